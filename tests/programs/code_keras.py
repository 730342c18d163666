"""Keras fit of a model with two parts whose cost differs by a known factor (tensortrace's code
view test): small_part's Dense is 256 wide, big_part's 1024."""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np
import tensorflow as tf
import keras

tf.config.threading.set_inter_op_parallelism_threads(1)
tf.config.threading.set_intra_op_parallelism_threads(1)


class TwoParts(keras.Model):
    def __init__(self):
        super().__init__()
        self.small_dense = keras.layers.Dense(256, activation="relu", name="small_dense")
        self.big_dense = keras.layers.Dense(1024, activation="relu", name="big_dense")
        self.head = keras.layers.Dense(10, name="head")

    def small_part(self, x):
        return self.small_dense(x)

    def big_part(self, x):
        return self.big_dense(x)

    def call(self, x):
        a = self.small_part(x)
        b = self.big_part(x)
        return self.head(tf.concat([a, b], axis=1))


rng = np.random.default_rng(0)
x = rng.standard_normal((2048, 512)).astype("float32")
y = rng.integers(0, 10, 2048)
model = TwoParts()
model.compile(optimizer="sgd", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, batch_size=256, epochs=3, verbose=0)
