"""A custom training loop: a tf.function step with tf.GradientTape and an optimizer, on
synthetic data, on the CPU, for tests/e2e/tf_workloads_test.cc and steps_test.cc. No profiler calls.
Prints "steps N" and "weight_bytes B".

usage: tf_custom_loop.py [STEPS [PAUSE]]   (default 8 steps; PAUSE: seconds each step's end
waits for its result and then sleeps, so that a run spans several capture windows)"""
# The 256x512 layer (512 KiB) is wide enough that TensorFlow's oneDNN CPU allocator takes it from
# its BFC allocator, which reports MemoryAllocation events; tensors under 256 KiB come from a
# small-size allocator that reports none.
import sys
import time

import numpy as np
import tensorflow as tf

STEPS, BATCH = int(sys.argv[1]) if len(sys.argv) > 1 else 8, 32
PAUSE = float(sys.argv[2]) if len(sys.argv) > 2 else 0
rng = np.random.default_rng(0)
x = tf.constant(rng.normal(size=(BATCH, 256)).astype("float32"))
y = tf.constant(rng.normal(size=(BATCH, 1)).astype("float32"))
w1 = tf.Variable(rng.normal(size=(256, 512)).astype("float32") * 0.1)
b1 = tf.Variable(np.zeros(512, "float32"))
w2 = tf.Variable(rng.normal(size=(512, 1)).astype("float32") * 0.1)
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
    loss = train_step(x, y)
    if PAUSE:
        loss.numpy()
        time.sleep(PAUSE)
print("steps", STEPS)
print("weight_bytes", sum(w.numpy().nbytes for w in weights))
