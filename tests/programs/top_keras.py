"""A Keras 3 fit that runs until told to stop, for tests/analysis/live/top_test.cc: `tensortrace
top` watches it while TensorFlow's profile (its step markers and ops) waits to be imported at the
end. Prints "fit_steps N" at the end.

usage: top_keras.py STOPFILE [MAX_S]
  STOPFILE  training stops at the first step's end after this file exists (or after MAX_S
            seconds, default 240, so that a broken test cannot hang)
"""
import os
import sys
import time

import keras
import numpy as np

stop, max_s = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 240
deadline = time.monotonic() + max_s
rng = np.random.default_rng(0)
x = rng.normal(size=(64, 16)).astype("float32")
y = (x.sum(axis=1, keepdims=True) > 0).astype("float32")
model = keras.Sequential([
    keras.Input(shape=(16,)),
    keras.layers.Dense(32, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")


class StopWhenTold(keras.callbacks.Callback):
    steps = 0

    def on_train_batch_end(self, batch, logs=None):
        StopWhenTold.steps += 1
        time.sleep(0.05)
        if os.path.exists(stop) or time.monotonic() > deadline:
            self.model.stop_training = True


model.fit(x, y, batch_size=8, epochs=100000, shuffle=False, verbose=0,
          callbacks=[StopWhenTold()])
print("fit_steps", StopWhenTold.steps)
