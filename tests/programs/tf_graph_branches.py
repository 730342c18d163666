"""A tf.function of two independent branches joined at the end, for replay's TensorFlow graph edges
(tests/analysis/replay/replay_fidelity_test.cc, docs/replay.md): left0 -> left1 -> left2 and right0
-> right1 -> right2, chains of 384x384 matrix products, then join = left2 + right2. Two inter-op
threads, so the branches may run side by side; one intra-op thread each. CPU, no profiler calls.
Prints "steps N".

usage: tf_graph_branches.py [STEPS [alternate]]   (default 12 steps)
  alternate: 2 STEPS steps, the even ones as above, the odd ones without the right branch
             (join = left2 + b): both kinds of step side by side in one process, under the
             same load, to check what replay predicts when the right branch is removed"""
import sys

import numpy as np
import tensorflow as tf

tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(2)

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 12
ALTERNATE = len(sys.argv) > 2 and sys.argv[2] == "alternate"
rng = np.random.default_rng(0)
a = tf.constant(rng.normal(size=(384, 384)).astype("float32") * 0.05)
b = tf.constant(rng.normal(size=(384, 384)).astype("float32") * 0.05)


@tf.function
def step(a, b, right=True):
    x = a
    for i in range(3):
        x = tf.matmul(x, a, name="left%d" % i)
    y = b
    if right:  # a Python bool: one traced function with the branch, one without
        for i in range(3):
            y = tf.matmul(y, b, name="right%d" % i)
    return tf.add(x, y, name="join")


steps = 2 * STEPS if ALTERNATE else STEPS
for i in range(steps):
    step(a, b, not ALTERNATE or i % 2 == 0).numpy()
print("steps %d" % steps)
