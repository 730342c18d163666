"""tf.summary written inside a tf.function, as TensorFlow's "Migrating tf.summary usage" and
TensorBoard's "Custom training" guides write a custom loop: a file writer made the default,
tf.summary.scalar and tf.summary.histogram called in the @tf.function train step with the
step number. Synthetic data. Prints one JSON line: each step's time from the loop's own clock
(the step's result read back, so the time is the step's work)."""
import json
import os
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 30


def main():
    tf.random.set_seed(0)
    model = tf.keras.Sequential([tf.keras.Input(shape=(128,)),
                                 tf.keras.layers.Dense(512, activation="relu"),
                                 tf.keras.layers.Dense(512, activation="relu"),
                                 tf.keras.layers.Dense(10)])
    opt = tf.keras.optimizers.SGD(0.01)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    x = tf.random.normal([256, 128])
    y = tf.random.uniform([256], 0, 10, dtype=tf.int32)

    @tf.function
    def train_step(x, y, step):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        tf.summary.scalar("loss", loss, step=step)
        tf.summary.histogram("logits", model(x), step=step)
        return loss

    times = []
    with tempfile.TemporaryDirectory() as logdir:
        writer = tf.summary.create_file_writer(logdir)
        with writer.as_default():
            for i in range(STEPS):
                t0 = time.perf_counter()
                train_step(x, y, tf.constant(i, dtype=tf.int64)).numpy()
                times.append((time.perf_counter() - t0) * 1e3)
        writer.close()
    print(json.dumps({"program": "tf_summary_function", "steps": STEPS, "step_ms": times}))


if __name__ == "__main__":
    main()
