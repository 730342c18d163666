"""A tf.function training loop with one op of known cost, for
tests/analysis/replay/replay_fidelity_test.cc and docs/replay.md: each step runs an MLP's forward
and backward pass (tens of milliseconds on one thread) and a tf.py_function that sleeps SLEEP_MS
milliseconds; the loss depends on its result, so the step waits for it. CPU, synthetic data, no
profiler calls. Prints "steps N".

usage: tf_sleep_op_loop.py [STEPS [SLEEP_MS [MODE]]]   (default 10 steps, 50 ms, sleep)
  MODE sleep: STEPS steps with the py_function asleep (SLEEP_MS 0: no py_function at all)
  MODE spin:  the same, the py_function waiting its time out busy, on the CPU
  MODE alternate: 2 STEPS steps, the even ones with it, the odd ones without (steps 0 and 1
              trace the function, once with the op and once without): both kinds of step run
              side by side in one process, under the same load on the machine
  MODE alternate-spin: the same, the py_function spinning"""
import sys
import time

import numpy as np
import tensorflow as tf

# One thread for all the ops, one at a time: ops that share the cores with each other (and with
# whatever else the machine runs) take longer by an amount that changes with the load, a cost
# no what-if can know; one thread needs one core.
tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(1)

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 10
SLEEP_MS = float(sys.argv[2]) if len(sys.argv) > 2 else 50.0
MODE = sys.argv[3] if len(sys.argv) > 3 else "sleep"
rng = np.random.default_rng(0)
x = tf.constant(rng.normal(size=(256, 1024)).astype("float32"))
y = tf.constant(rng.normal(size=(256, 1)).astype("float32"))
w1 = tf.Variable(rng.normal(size=(1024, 1024)).astype("float32") * 0.05)
w2 = tf.Variable(rng.normal(size=(1024, 1)).astype("float32") * 0.05)
weights = [w1, w2]
opt = tf.keras.optimizers.SGD(0.01)


def known_cost(a):
    if MODE in ("spin", "alternate-spin"):
        end = time.perf_counter() + SLEEP_MS / 1000.0
        while time.perf_counter() < end:
            pass
    else:
        time.sleep(SLEEP_MS / 1000.0)
    return a


@tf.function
def train_step(x, y, with_op):
    if with_op:  # a Python bool: one traced function with the op, one without
        x = tf.py_function(known_cost, [x], tf.float32)
        x.set_shape((256, 1024))
    with tf.GradientTape() as tape:
        h = tf.nn.relu(tf.matmul(x, w1))
        h = tf.nn.relu(tf.matmul(h, w1))
        loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - y))
    opt.apply_gradients(zip(tape.gradient(loss, weights), weights))
    return loss


alternate = MODE.startswith("alternate")
steps = STEPS * (2 if alternate else 1)
for i in range(steps):
    loss = train_step(x, y, SLEEP_MS > 0 and (not alternate or i % 2 == 0))
loss.numpy()
print("steps", steps)
