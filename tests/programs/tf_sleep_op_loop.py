"""A tf.function training loop with one op of known cost, for tests/replay_fidelity_test.cc and
docs/replay.md: each step runs an MLP's forward and backward pass (tens of milliseconds on one
thread) and, unless told otherwise, a tf.py_function that sleeps SLEEP_MS milliseconds; the loss
depends on its result, so the step waits for it. Steps this long keep a loaded machine's
scheduling delays (milliseconds) small beside them. CPU, synthetic data, no profiler calls.
Prints "steps N".

usage: tf_sleep_op_loop.py [STEPS [SLEEP_MS]]   (default 10 steps, 50 ms; SLEEP_MS 0: the same
loop with no py_function at all)"""
import sys
import time

import numpy as np
import tensorflow as tf

# One thread per op: a pool of threads that fall asleep during the 20 ms sleep and must be woken
# after it makes the ops after it slower than in the loop without it (a cost the what-if cannot
# know), and this machine may be shared.
tf.config.threading.set_intra_op_parallelism_threads(1)

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 10
SLEEP_MS = float(sys.argv[2]) if len(sys.argv) > 2 else 50.0
rng = np.random.default_rng(0)
x = tf.constant(rng.normal(size=(256, 1024)).astype("float32"))
y = tf.constant(rng.normal(size=(256, 1)).astype("float32"))
w1 = tf.Variable(rng.normal(size=(1024, 1024)).astype("float32") * 0.05)
w2 = tf.Variable(rng.normal(size=(1024, 1)).astype("float32") * 0.05)
weights = [w1, w2]
opt = tf.keras.optimizers.SGD(0.01)


def known_cost(a):
    time.sleep(SLEEP_MS / 1000.0)
    return a


@tf.function
def train_step(x, y):
    if SLEEP_MS > 0:
        x = tf.py_function(known_cost, [x], tf.float32)
        x.set_shape((256, 1024))
    with tf.GradientTape() as tape:
        h = tf.nn.relu(tf.matmul(x, w1))
        h = tf.nn.relu(tf.matmul(h, w1))
        loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - y))
    opt.apply_gradients(zip(tape.gradient(loss, weights), weights))
    return loss


for _ in range(STEPS):
    loss = train_step(x, y)
loss.numpy()
print("steps", STEPS)
