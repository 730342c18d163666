"""A custom training loop that writes a scalar and a histogram summary every step, as a user
would: a tf.function step (an MLP's forward and backward pass, tf.GradientTape, an optimizer)
on synthetic data, on the CPU, with the loss and a histogram of the first layer's activations
written by tf.summary.write inside it (the histogram made as TensorBoard's
tf.summary.histogram makes it: 30 buckets by one_hot; TensorBoard itself is not installed). For tests/analysis/replay/whatif_line_test.cc: the what-if
`line:tf_summary_loop.py:FIRST-LAST=0` on the two summary lines (SUMMARY_LINES below) predicts
the loop without them, which TT_NO_SUMMARY=1 runs for real (the lines are left out when the
function is traced). Prints "summary_lines FIRST-LAST" and "steps N".

usage: tf_summary_loop.py [STEPS]   (default 40)"""
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np
import tensorflow as tf

STEPS, BATCH = int(sys.argv[1]) if len(sys.argv) > 1 else 40, 64
SUMMARIES = os.environ.get("TT_NO_SUMMARY") != "1"
rng = np.random.default_rng(0)
x = tf.constant(rng.normal(size=(BATCH, 256)).astype("float32"))
y = tf.constant(rng.normal(size=(BATCH, 1)).astype("float32"))
w1 = tf.Variable(rng.normal(size=(256, 512)).astype("float32") * 0.1)
b1 = tf.Variable(np.zeros(512, "float32"))
w2 = tf.Variable(rng.normal(size=(512, 1)).astype("float32") * 0.1)
b2 = tf.Variable(np.zeros(1, "float32"))
weights = [w1, b1, w2, b2]
opt = tf.keras.optimizers.SGD(0.01)
writer = tf.summary.create_file_writer(tempfile.mkdtemp(prefix="tt_summary_"))


def histogram(t, buckets=30):
    """[buckets, 3] (left edge, right edge, count), as TensorBoard's histogram summary."""
    with tf.name_scope("histogram"):
        t = tf.reshape(tf.cast(t, tf.float64), [-1])
        lo, hi = tf.reduce_min(t), tf.reduce_max(t)
        width = (hi - lo) / buckets
        index = tf.clip_by_value(tf.cast(tf.floor((t - lo) / width), tf.int32), 0, buckets - 1)
        counts = tf.reduce_sum(tf.one_hot(index, buckets, dtype=tf.float64), axis=0)
        edges = lo + width * tf.range(buckets + 1, dtype=tf.float64)
        return tf.stack([edges[:-1], edges[1:], counts], axis=1)


@tf.function
def train_step(x, y, step):
    with tf.GradientTape() as tape:
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
        loss = tf.reduce_mean(tf.square(tf.nn.bias_add(tf.matmul(h, w2), b2) - y))
    opt.apply_gradients(zip(tape.gradient(loss, weights), weights))
    if SUMMARIES:
        tf.summary.write("loss", loss, step=step)  # SUMMARY_LINES: this line
        tf.summary.write("h", histogram(h), step=step)  # and this one
    return loss


first = next(i for i, l in enumerate(open(__file__), 1) if "SUMMARY_LINES: this" in l)
print("summary_lines %d-%d" % (first, first + 1))
with writer.as_default():
    for i in range(STEPS):
        train_step(x, y, tf.constant(i, tf.int64))
print("steps", STEPS)
