"""A small Keras training job on the CPU, for tests/e2e/tf_bootstrap_test.cc.

usage: keras_job.py [--raise] [--own-profile DIR] [--sleep S]
  --raise           raise RuntimeError after training (exit status 1)
  --own-profile DIR profile one epoch with tf.profiler.experimental.start/stop into DIR
  --sleep S         after the first epoch, print "training" and sleep S seconds (for signals)
"""
import argparse
import sys
import time

import numpy as np
import tensorflow as tf

ap = argparse.ArgumentParser()
ap.add_argument("--raise", dest="do_raise", action="store_true")
ap.add_argument("--own-profile")
ap.add_argument("--sleep", type=float, default=0)
args = ap.parse_args()

rng = np.random.default_rng(0)
x = rng.normal(size=(256, 16)).astype("float32")
y = (x.sum(axis=1, keepdims=True) > 0).astype("float32")
model = tf.keras.Sequential([
    tf.keras.Input(shape=(16,)),
    tf.keras.layers.Dense(32, activation="relu"),
    tf.keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(x, y, batch_size=32, epochs=1, verbose=0)
if args.own_profile:
    tf.profiler.experimental.start(args.own_profile)
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    tf.profiler.experimental.stop()
if args.sleep:
    print("training", flush=True)
    time.sleep(args.sleep)
model.fit(x, y, batch_size=32, epochs=1, verbose=0)
if args.do_raise:
    raise RuntimeError("keras_job: raising as asked")
print("done", flush=True)
