"""A tf.data pipeline (from_tensor_slices, map, batch, prefetch) feeding Keras model.fit of a
small dense model, synthetic data, CPU, for tests/e2e/tf_workloads_test.cc. No profiler calls.
Prints "steps N" and "weight_bytes B"."""
# The 256x512 layer (512 KiB) is wide enough that TensorFlow's oneDNN CPU allocator takes it from
# its BFC allocator, which reports MemoryAllocation events; tensors under 256 KiB come from a
# small-size allocator that reports none.
import numpy as np
import tensorflow as tf

STEPS, BATCH = 6, 32
rng = np.random.default_rng(0)
x = rng.normal(size=(STEPS * BATCH, 256)).astype("float32")
y = (x.sum(axis=1) > 0).astype("float32")
ds = (tf.data.Dataset.from_tensor_slices((x, y))
      .map(lambda a, b: (a * 2.0 + 1.0, b), num_parallel_calls=2)
      .batch(BATCH)
      .prefetch(2))
model = tf.keras.Sequential([
    tf.keras.Input(shape=(256,)),
    tf.keras.layers.Dense(512, activation="relu"),
    tf.keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
print("steps", STEPS)
print("weight_bytes", sum(w.numpy().nbytes for w in model.weights))
