"""A small TensorFlow training job profiled with TensorFlow's own profiler.

The XSpace goes where tensortrace's importer looks for it:
$TENSORTRACE_DIR/xspace/<pid>/plugins/profile/<run>/<host>.xplane.pb.
Steps are marked with tf.profiler.experimental.Trace("train", step_num=...), and a few ops
run outside any step (warm-up), as in a real job.
"""
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# TensorFlow's BFC allocator (used here for the CPU too) is what emits the MemoryAllocation and
# MemoryDeallocation events the profiler records.
os.environ.setdefault("TF_CPU_ALLOCATOR_USE_BFC", "true")
import tensorflow as tf  # noqa: E402

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 4


def main():
    logdir = os.path.join(os.environ.get("TENSORTRACE_DIR", tempfile.gettempdir()), "xspace", str(os.getpid()))
    tf.random.set_seed(0)
    x = tf.random.normal([256, 64])
    y = tf.random.normal([256, 8])
    w1 = tf.Variable(tf.random.normal([64, 128]) * 0.1)
    w2 = tf.Variable(tf.random.normal([128, 8]) * 0.1)
    opt = tf.keras.optimizers.SGD(0.01)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(64).repeat()
    it = iter(ds)

    @tf.function  # graph execution: ops appear as "node:OpType" events
    def step(xb, yb):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(xb, w1))
            loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - yb))
        grads = tape.gradient(loss, [w1, w2])
        opt.apply_gradients(zip(grads, [w1, w2]))
        return loss

    options = tf.profiler.experimental.ProfilerOptions(host_tracer_level=3, python_tracer_level=0)
    tf.profiler.experimental.start(logdir, options=options)
    for i in range(STEPS):
        with tf.profiler.experimental.Trace("train", step_num=i, _r=1):
            xb, yb = next(it)
            loss = step(xb, yb)
    tf.profiler.experimental.stop()
    print("loss %.4f" % float(loss))
    return 0


if __name__ == "__main__":
    sys.exit(main())
