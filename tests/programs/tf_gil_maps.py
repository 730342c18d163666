"""A Keras fit fed by a tf.data pipeline with two Python stages, for replay's GIL (docs/replay.md):
each element goes through a `decode` and an `augment` tf.py_function map, each map parallel
(two calls at once) and each spending SLOW_MS of pure Python per element (a loop on the CPU,
holding the GIL). The maps run on tf.data's threads, on separate cores, but take turns on the
GIL, so the step waits for both stages' Python one after the other. TT_NO_AUGMENT=1 leaves the
augment stage out: the real run of `replay --what-if 'augment=0'` (the py_function ops are
named after their stage). Synthetic data, CPU, no profiler calls. Prints "steps N".

usage: tf_gil_maps.py [STEPS [SLOW_MS]]   (default 20 steps, 4 ms)"""
import os
import sys
import time

import numpy as np
import tensorflow as tf

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
SLOW_MS = float(sys.argv[2]) if len(sys.argv) > 2 else 4.0
BATCH = 4
rng = np.random.default_rng(0)
x = rng.normal(size=((STEPS + 4) * BATCH, 32)).astype("float32")
y = (x.sum(axis=1) > 0).astype("float32")


def spin(a):
    end = time.perf_counter() + SLOW_MS / 1000.0
    while time.perf_counter() < end:
        pass
    return a


def decode(a):
    return spin(a)


def augment(a):
    return spin(a)


ds = tf.data.Dataset.from_tensor_slices((x, y)).map(
    lambda a, b: (tf.ensure_shape(tf.py_function(decode, [a], tf.float32, name="decode"), (32,)), b),
    num_parallel_calls=2)
if os.environ.get("TT_NO_AUGMENT") != "1":
    ds = ds.map(
        lambda a, b: (tf.ensure_shape(tf.py_function(augment, [a], tf.float32, name="augment"), (32,)), b),
        num_parallel_calls=2)
ds = ds.batch(BATCH).prefetch(2)
model = tf.keras.Sequential([tf.keras.Input(shape=(32,)), tf.keras.layers.Dense(64, "relu"),
                             tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(ds, epochs=1, steps_per_epoch=STEPS, verbose=0)
print("steps", STEPS)
