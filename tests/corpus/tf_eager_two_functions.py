"""Eager TensorFlow, as TensorFlow's "Basics" guide runs it: Python functions calling tf ops
directly, no tf.function. Two functions whose costs differ (a 512x256 and a 512x1024 matmul
with their gradients); each step calls both under a GradientTape. Synthetic data.
Prints one JSON line: the program's own time in each function and per step (eager ops run
synchronously on the CPU, so timing a call times its ops)."""
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 150
tf.random.set_seed(0)
w_small = tf.Variable(tf.random.normal([512, 256], stddev=0.05))
w_big = tf.Variable(tf.random.normal([512, 1024], stddev=0.05))
x = tf.random.normal([256, 512])
spent = {"small_part": 0.0, "big_part": 0.0}


def small_part(x):
    t0 = time.perf_counter()
    y = tf.nn.relu(tf.matmul(x, w_small))
    spent["small_part"] += time.perf_counter() - t0
    return y


def big_part(x):
    t0 = time.perf_counter()
    y = tf.nn.relu(tf.matmul(x, w_big))
    spent["big_part"] += time.perf_counter() - t0
    return y


def train_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(small_part(x)) + tf.reduce_mean(big_part(x))
    grads = tape.gradient(loss, [w_small, w_big])
    for w, g in zip([w_small, w_big], grads):
        w.assign_sub(0.01 * g)
    return loss


times = []
for _ in range(STEPS):
    t0 = time.perf_counter()
    train_step(x)
    times.append((time.perf_counter() - t0) * 1e3)
print(json.dumps({"program": "tf_eager_two_functions", "steps": STEPS, "step_ms": times,
                  "function_ms": {k: v * 1e3 for k, v in spent.items()}}))
