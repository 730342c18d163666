"""Keras 3 model.fit, as Keras's own "getting started" guide trains: a Sequential CNN on NumPy
arrays, compiled with an optimizer and a loss. The backend is Keras's own choice from
KERAS_BACKEND (jax, tensorflow or torch), as users set it. Synthetic data.
Prints one JSON line: each batch's time from Keras's own callback (the time between the ends
of consecutive batches), so tests compare tensortrace's steps with the program's timing."""
import json
import os
import sys
import time

import keras
import numpy as np

BATCHES = int(sys.argv[1]) if len(sys.argv) > 1 else 30
BATCH = 64


class BatchTimes(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.ends = []

    def on_train_batch_begin(self, batch, logs=None):
        if not self.ends:
            self.ends.append(time.perf_counter())

    def on_train_batch_end(self, batch, logs=None):
        self.ends.append(time.perf_counter())


def main():
    model = keras.Sequential([
        keras.Input(shape=(28, 28, 1)),
        keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Conv2D(64, 3, activation="relu"),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(10),
    ])
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCHES * BATCH, 28, 28, 1), dtype=np.float32)
    y = rng.integers(0, 10, BATCHES * BATCH).astype(np.int32)
    cb = BatchTimes()
    model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0, callbacks=[cb])
    times = [(b - a) * 1e3 for a, b in zip(cb.ends, cb.ends[1:])]
    print(json.dumps({"program": "keras3_fit", "backend": keras.backend.backend(),
                      "steps": len(times), "step_ms": times}))


if __name__ == "__main__":
    main()
