"""A tf.data input pipeline whose map calls Python through tf.py_function, as TensorFlow's
"tf.data: Build TensorFlow input pipelines" guide applies arbitrary Python logic, feeding
Keras model.fit. The Python function sleeps, so the input is the bottleneck. Synthetic data.
Prints one JSON line: each batch's time from Keras's own callback (the time between the ends
of consecutive batches). TT_CACHE_INPUT=1: the map's output cached and read once before fit
(the real change behind `replay --what-if input=0`, bench/whatif_bench.py)."""
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

BATCHES = int(sys.argv[1]) if len(sys.argv) > 1 else 30
BATCH = 32


def augment(x):
    time.sleep(0.0005)  # Python-side work per sample (a decoder, a tokenizer...)
    return x.numpy() * np.float32(0.5)


def tf_augment(x, y):
    (x,) = tf.py_function(augment, [x], [tf.float32])
    x.set_shape([64])
    return x, y


class BatchTimes(tf.keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.ends = []

    def on_train_batch_begin(self, batch, logs=None):
        if not self.ends:
            self.ends.append(time.perf_counter())

    def on_train_batch_end(self, batch, logs=None):
        self.ends.append(time.perf_counter())


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCHES * BATCH, 64), dtype=np.float32)
    y = rng.integers(0, 10, BATCHES * BATCH).astype(np.int32)
    ds = (tf.data.Dataset.from_tensor_slices((x, y))
          .map(tf_augment, num_parallel_calls=tf.data.AUTOTUNE)
          .batch(BATCH))
    if os.environ.get("TT_CACHE_INPUT") == "1":
        ds = ds.cache()
        for _ in ds:
            pass
    ds = ds.prefetch(tf.data.AUTOTUNE)
    model = tf.keras.Sequential([tf.keras.Input(shape=(64,)),
                                 tf.keras.layers.Dense(256, activation="relu"),
                                 tf.keras.layers.Dense(10)])
    model.compile(optimizer="adam",
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    cb = BatchTimes()
    model.fit(ds, epochs=1, verbose=0, callbacks=[cb])
    times = [(b - a) * 1e3 for a, b in zip(cb.ends, cb.ends[1:])]
    print(json.dumps({"program": "tf_data_py_function", "steps": len(times), "step_ms": times}))


if __name__ == "__main__":
    main()
