"""An input-bound tf.function loop and the same loop fed from a cache, side by side, for
docs/replay.md (the issue's check (c)): each step takes its batch from an iterator inside the
step (so the step waits for it) and runs an MLP's forward and backward pass on one thread. The
even steps read a dataset whose map costs SLOW_MS milliseconds of Python per element (no
prefetch); the odd steps read the same dataset cached in memory (filled before the loop) and
prefetched. CPU, synthetic data, no profiler calls. Prints "steps N".

usage: tf_input_cached_loop.py [STEPS [SLOW_MS [sleep|spin]]]   (default 10 of each, 20 ms,
spin: the map waits its time out on the CPU)"""
import sys
import time

import numpy as np
import tensorflow as tf

tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(1)

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 10
SLOW_MS = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
WAIT = sys.argv[3] if len(sys.argv) > 3 else "spin"
rng = np.random.default_rng(0)
x = rng.normal(size=(STEPS + 2, 256, 1024)).astype("float32")
w1 = tf.Variable(rng.normal(size=(1024, 1024)).astype("float32") * 0.05)
w2 = tf.Variable(rng.normal(size=(1024, 1)).astype("float32") * 0.05)
weights = [w1, w2]
opt = tf.keras.optimizers.SGD(0.01)


def slow(a):
    if WAIT == "spin":
        end = time.perf_counter() + SLOW_MS / 1000.0
        while time.perf_counter() < end:
            pass
    else:
        time.sleep(SLOW_MS / 1000.0)
    return a


def dataset():
    ds = tf.data.Dataset.from_tensor_slices(x).map(
        lambda a: tf.ensure_shape(tf.py_function(slow, [a], tf.float32), (256, 1024)))
    options = tf.data.Options()
    options.experimental_optimization.inject_prefetch = False
    return ds.with_options(options)


cached = dataset().cache()
for _ in cached:  # fill the cache before the loop
    pass
it_slow, it_fast = iter(dataset()), iter(cached.prefetch(2))


@tf.function
def train_step(it):
    xb = next(it)
    with tf.GradientTape() as tape:
        h = tf.nn.relu(tf.matmul(xb, w1))
        h = tf.nn.relu(tf.matmul(h, w1))
        loss = tf.reduce_mean(tf.square(tf.matmul(h, w2)))
    opt.apply_gradients(zip(tape.gradient(loss, weights), weights))
    return loss


for i in range(2 * STEPS):
    loss = train_step(it_slow if i % 2 == 0 else it_fast)
loss.numpy()
print("steps", 2 * STEPS)
