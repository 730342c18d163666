"""A tf.compat.v1 graph (placeholders, variables, MatMul, Relu, a gradient-descent train op)
run through Session.run, on synthetic data, on the CPU, for tests/tf_workloads_test.cc.
No profiler calls. Prints "steps N" (Session.run calls of the train op) and "weight_bytes B"."""
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
STEPS, BATCH = 8, 32
rng = np.random.default_rng(0)
xs = rng.normal(size=(BATCH, 64)).astype("float32")
ys = rng.normal(size=(BATCH, 1)).astype("float32")
x = tf1.placeholder(tf.float32, [None, 64])
y = tf1.placeholder(tf.float32, [None, 1])
w1 = tf1.Variable(tf1.random_normal([64, 128], stddev=0.1))
b1 = tf1.Variable(tf1.zeros([128]))
w2 = tf1.Variable(tf1.random_normal([128, 1], stddev=0.1))
b2 = tf1.Variable(tf1.zeros([1]))
h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
loss = tf.reduce_mean(tf.square(tf.nn.bias_add(tf.matmul(h, w2), b2) - y))
train = tf1.train.GradientDescentOptimizer(0.01).minimize(loss)
with tf1.Session() as sess:
    sess.run(tf1.global_variables_initializer())
    for _ in range(STEPS):
        sess.run(train, feed_dict={x: xs, y: ys})
print("steps", STEPS)
print("weight_bytes", (64 * 128 + 128 + 128 * 1 + 1) * 4)
