"""A small Keras CNN trained on synthetic images, for bench/tf_overhead.py.

It records the wall time of every training step (a callback's on_train_batch_begin/end) and the
CPU time the process spent in it, and writes them as JSON. It does not know whether it is
traced; tf_overhead.py runs it untraced, under `tensortrace record`, and with TensorFlow's own
profiler alone (--tf-profile or TT_BENCH_TF_PROFILE: the program then starts
tf.profiler.experimental itself, right after importing TensorFlow, as the tensortrace bootstrap
does, and stops it after training).

usage: keras_cnn.py [--out FILE] [--steps N] [--batch N] [--tf-profile DIR]
  --out FILE        where the JSON goes (default: $TT_BENCH_STEPS_JSON; required either way)
  --steps N         training steps, all in one epoch (default 200)
  --batch N         images per step (default 64)
  --tf-profile DIR  run TensorFlow's profiler (default options: host level 2) into DIR
"""
import argparse
import json
import os
import sys
import time

ap = argparse.ArgumentParser(description="A small Keras CNN with per-step wall times.")
ap.add_argument("--out", default=os.environ.get("TT_BENCH_STEPS_JSON"))
ap.add_argument("--steps", type=int, default=200)
ap.add_argument("--batch", type=int, default=64)
ap.add_argument("--tf-profile", default=os.environ.get("TT_BENCH_TF_PROFILE"))
args = ap.parse_args()
if not args.out:
    sys.exit("keras_cnn.py: give --out FILE or set TT_BENCH_STEPS_JSON")
if args.steps < 1 or args.batch < 1:
    sys.exit("keras_cnn.py: --steps and --batch must be at least 1")

t_start = time.time()
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

t_imported = time.time()
if args.tf_profile:
    tf.profiler.experimental.start(args.tf_profile)


class StepTimes(tf.keras.callbacks.Callback):
    """Wall time (perf_counter) and the process's CPU time, all threads (process_time), at the
    begin and end of every training batch. On a shared machine the wall time also holds the
    time other programs had the CPUs; the CPU time holds only this process's work."""

    def __init__(self):
        super().__init__()
        self.begin, self.end, self.cpu_begin, self.cpu_end = [], [], [], []

    def on_train_batch_begin(self, batch, logs=None):
        self.begin.append(time.perf_counter())
        self.cpu_begin.append(time.process_time())

    def on_train_batch_end(self, batch, logs=None):
        self.cpu_end.append(time.process_time())
        self.end.append(time.perf_counter())


rng = np.random.default_rng(0)
n = args.steps * args.batch
x = rng.normal(size=(n, 32, 32, 3)).astype("float32")
y = rng.integers(0, 10, size=(n,)).astype("int32")
model = tf.keras.Sequential([
    tf.keras.Input(shape=(32, 32, 3)),
    tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(64, activation="relu"),
    tf.keras.layers.Dense(10),
])
model.compile(optimizer="adam",
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
cb = StepTimes()
t_fit = time.time()
model.fit(x, y, batch_size=args.batch, epochs=1, shuffle=False, verbose=0, callbacks=[cb])
t_fit_end = time.time()
if args.tf_profile:
    tf.profiler.experimental.stop()
t_end = time.time()

doc = {
    "steps": len(cb.begin),
    "batch": args.batch,
    # seconds: step i is begin[i] -> end[i]; the period also holds the time between steps
    "step_s": [e - b for b, e in zip(cb.begin, cb.end)],
    "period_s": [b1 - b0 for b0, b1 in zip(cb.begin, cb.begin[1:])],
    "step_cpu_s": [e - b for b, e in zip(cb.cpu_begin, cb.cpu_end)],
    # wall clock (time.time) marks, to split a run's time outside the steps
    "wall": {"start": t_start, "tf_imported": t_imported, "fit": t_fit, "fit_end": t_fit_end,
             "end": t_end},
    "tf_version": tf.__version__,
    "tf_profile": bool(args.tf_profile),
}
with open(args.out, "w") as f:
    json.dump(doc, f)
