"""A custom training loop: a tf.function step with tf.GradientTape and an optimizer, on
synthetic data, on the CPU, for tests/tf_workloads_test.cc. No profiler calls.
Prints "steps N" and "weight_bytes B"."""
import numpy as np
import tensorflow as tf

STEPS, BATCH = 8, 32
rng = np.random.default_rng(0)
x = tf.constant(rng.normal(size=(BATCH, 64)).astype("float32"))
y = tf.constant(rng.normal(size=(BATCH, 1)).astype("float32"))
w1 = tf.Variable(rng.normal(size=(64, 128)).astype("float32") * 0.1)
b1 = tf.Variable(np.zeros(128, "float32"))
w2 = tf.Variable(rng.normal(size=(128, 1)).astype("float32") * 0.1)
b2 = tf.Variable(np.zeros(1, "float32"))
weights = [w1, b1, w2, b2]
opt = tf.keras.optimizers.SGD(0.01)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
        loss = tf.reduce_mean(tf.square(tf.nn.bias_add(tf.matmul(h, w2), b2) - y))
    opt.apply_gradients(zip(tape.gradient(loss, weights), weights))
    return loss


for _ in range(STEPS):
    train_step(x, y)
print("steps", STEPS)
print("weight_bytes", sum(w.numpy().nbytes for w in weights))
