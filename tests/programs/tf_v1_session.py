"""A tf.compat.v1 graph (placeholders, variables, MatMul, Relu, a gradient-descent train op)
run through Session.run, on synthetic data, on the CPU, for tests/e2e/tf_workloads_test.cc.
No profiler calls. Prints "steps N" (Session.run calls), "setup_steps 1" (the initializer's
run, with no training op) and "weight_bytes B"."""
# The 256x512 layer (512 KiB) is wide enough that TensorFlow's oneDNN CPU allocator takes it from
# its BFC allocator, which reports MemoryAllocation events; tensors under 256 KiB come from a
# small-size allocator that reports none.
import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
STEPS, BATCH = 8, 32
rng = np.random.default_rng(0)
xs = rng.normal(size=(BATCH, 256)).astype("float32")
ys = rng.normal(size=(BATCH, 1)).astype("float32")
x = tf1.placeholder(tf.float32, [None, 256])
y = tf1.placeholder(tf.float32, [None, 1])
w1 = tf1.Variable(tf1.random_normal([256, 512], stddev=0.1))
b1 = tf1.Variable(tf1.zeros([512]))
w2 = tf1.Variable(tf1.random_normal([512, 1], stddev=0.1))
b2 = tf1.Variable(tf1.zeros([1]))
h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
loss = tf.reduce_mean(tf.square(tf.nn.bias_add(tf.matmul(h, w2), b2) - y))
train = tf1.train.GradientDescentOptimizer(0.01).minimize(loss)
with tf1.Session() as sess:
    sess.run(tf1.global_variables_initializer())
    for _ in range(STEPS):
        sess.run(train, feed_dict={x: xs, y: ys})
print("steps", STEPS + 1)  # every Session.run is a step: the initializer's too
print("setup_steps", 1)
print("weight_bytes", (256 * 512 + 512 + 512 * 1 + 1) * 4)
