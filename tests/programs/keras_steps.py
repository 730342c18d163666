"""Keras 3 fit, evaluate and predict of a small dense model on synthetic data, on the CPU, for
tests/analysis/job/steps_test.cc. No profiler calls. Prints "steps N" (train, test and predict steps
run, in that order: fit's, then evaluate's, then predict's), "fit_steps F" and "weight_bytes B".

usage: keras_steps.py [--fit-steps F] [--pause S]
  --fit-steps F  training steps (default 8, over 2 epochs)
  --pause S      each training step's end waits S seconds (a Keras callback), so that a run
                 lasts long enough for several capture windows
"""
import argparse
import time

import keras
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--fit-steps", type=int, default=8)
ap.add_argument("--pause", type=float, default=0)
args = ap.parse_args()

BATCH, EVAL_STEPS, PREDICT_STEPS = 8, 3, 2
EPOCHS = 2
rng = np.random.default_rng(0)
n = args.fit_steps // EPOCHS * BATCH
x = rng.normal(size=(n, 16)).astype("float32")
y = (x.sum(axis=1, keepdims=True) > 0).astype("float32")
model = keras.Sequential([
    keras.Input(shape=(16,)),
    keras.layers.Dense(32, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")


class Pause(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        time.sleep(args.pause)


model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=0,
          callbacks=[Pause()] if args.pause else [])
model.evaluate(x[:EVAL_STEPS * BATCH], y[:EVAL_STEPS * BATCH], batch_size=BATCH, verbose=0)
model.predict(x[:PREDICT_STEPS * BATCH], batch_size=BATCH, verbose=0)
fit_steps = n // BATCH * EPOCHS
print("steps", fit_steps + EVAL_STEPS + PREDICT_STEPS)
print("fit_steps", fit_steps)
print("weight_bytes", sum(w.numpy().nbytes for w in model.weights))
