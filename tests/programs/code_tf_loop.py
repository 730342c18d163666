"""A custom tf.function training loop (GradientTape) whose model has two parts that differ in
cost by a known factor: small_part multiplies by a 512x256 matrix, big_part by a 512x1024 one
(tensortrace's code view test). TT_CODE_EAGER=1 runs the step eagerly (no tf.function)."""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf

tf.config.threading.set_inter_op_parallelism_threads(1)
tf.config.threading.set_intra_op_parallelism_threads(1)
tf.random.set_seed(0)
w_small = tf.Variable(tf.random.normal([512, 256], stddev=0.05))
w_big = tf.Variable(tf.random.normal([512, 1024], stddev=0.05))
x = tf.random.normal([256, 512])


def small_part(x):
    with tf.name_scope("small"):  # the test's ground truth: ops by scope
        return tf.nn.relu(tf.matmul(x, w_small))


def big_part(x):
    with tf.name_scope("big"):
        return tf.nn.relu(tf.matmul(x, w_big))


def train_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(small_part(x)) + tf.reduce_mean(big_part(x))
    grads = tape.gradient(loss, [w_small, w_big])
    for w, g in zip([w_small, w_big], grads):
        w.assign_sub(0.01 * g)
    return loss


step = train_step if os.environ.get("TT_CODE_EAGER") == "1" else tf.function(train_step)
for _ in range(30):
    step(x)
