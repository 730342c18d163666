"""An input-bound Keras fit for tests/e2e/tf_workloads_test.cc: each element costs the tf.data map
about 4 ms of Python (a py_function), one element per batch, no parallelism and no prefetch,
while the model's step computes little, so each step waits for its input most of its time.
Synthetic data, CPU, no profiler calls. Prints "steps N" and "weight_bytes B".
TT_CACHE_INPUT=1: the map's output cached and read once before fit (the input is there when
a step asks: the real change behind `replay --what-if input=0`, bench/whatif_bench.py).
TT_NO_PY_FUNCTION=1: the map without its py_function (the real change behind
`--what-if 'line:tf_input_bound.py:LINE=0'` on the map's line)."""
import os
import time

import numpy as np
import tensorflow as tf

STEPS = 12
x = np.random.default_rng(0).normal(size=(STEPS, 16)).astype("float32")
y = (x.sum(axis=1) > 0).astype("float32")


def slow(a):
    time.sleep(0.004)
    return a


PY_FUNCTION = os.environ.get("TT_NO_PY_FUNCTION") != "1"
ds = (tf.data.Dataset.from_tensor_slices((x, y))
      .map(lambda a, b: (tf.py_function(slow, [a], tf.float32) if PY_FUNCTION else a, b))
      .map(lambda a, b: (tf.ensure_shape(a, (16,)), b))
      .batch(1))
# No prefetch at all: tf.data injects one by default, which fills while the first step traces
# (more elements on a slower machine), so the share of waiting varied from run to run.
options = tf.data.Options()
options.experimental_optimization.inject_prefetch = False
ds = ds.with_options(options)
if os.environ.get("TT_CACHE_INPUT") == "1":
    ds = ds.cache()
    for _ in ds:
        pass
model = tf.keras.Sequential([tf.keras.Input(shape=(16,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(ds, epochs=1, verbose=0)
print("steps", STEPS)
print("weight_bytes", sum(w.numpy().nbytes for w in model.weights))
