"""A custom training loop under tf.distribute.MirroredStrategy on 2 logical CPUs: the same
tf.function (strategy.run of a GradientTape step on each replica, gradients all-reduced) called
once per step, on synthetic data, for tests/analysis/job/steps_test.cc. No profiler calls.
Prints "steps N" and "weight_bytes B"."""
import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
STEPS, BATCH = 6, 32
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
rng = np.random.default_rng(0)
x = tf.constant(rng.normal(size=(BATCH, 64)).astype("float32"))
y = tf.constant(rng.normal(size=(BATCH, 1)).astype("float32"))
with strategy.scope():
    w1 = tf.Variable(rng.normal(size=(64, 128)).astype("float32") * 0.1)
    w2 = tf.Variable(rng.normal(size=(128, 1)).astype("float32") * 0.1)
    opt = tf.keras.optimizers.SGD(0.01)
weights = [w1, w2]
dataset = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensors((x, y)).repeat(STEPS).unbatch().batch(BATCH))


def replica_step(xb, yb):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.nn.relu(tf.matmul(xb, w1)), w2) - yb))
    opt.apply_gradients(zip(tape.gradient(loss, weights), weights))
    return loss


@tf.function
def distributed_step(batch):
    per_replica = strategy.run(replica_step, args=batch)
    return strategy.reduce(tf.distribute.ReduceOp.MEAN, per_replica, axis=None)


steps = 0
for batch in dataset:
    distributed_step(batch)
    steps += 1
print("steps", steps)
print("weight_bytes", sum(w.numpy().nbytes for w in weights))
