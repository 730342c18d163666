"""A small Transformer (one encoder block: multi-head self-attention, layer norms, a feed-forward
layer) trained by a custom loop, a tf.function step with tf.GradientTape and SGD, on synthetic
tokens, on the CPU, for tests/e2e/tf_workloads_test.cc. No profiler calls.
Prints "steps N" and "weight_bytes B". (SGD rather than Adam: Adam's many small ops per weight
would take xprof's framework op table past the 500 rows it shows.)"""
import numpy as np
import tensorflow as tf

STEPS, BATCH, SEQ, VOCAB, DIM = 8, 8, 32, 256, 128
rng = np.random.default_rng(0)
tokens = tf.constant(rng.integers(0, VOCAB, size=(BATCH, SEQ)), tf.int32)
labels = tf.constant(rng.integers(0, VOCAB, size=(BATCH, SEQ)), tf.int32)

inputs = tf.keras.Input(shape=(SEQ,), dtype="int32")
x = tf.keras.layers.Embedding(VOCAB, DIM)(inputs)
a = tf.keras.layers.MultiHeadAttention(num_heads=4, key_dim=DIM // 4)(x, x)
x = tf.keras.layers.LayerNormalization()(x + a)
f = tf.keras.layers.Dense(4 * DIM, activation="relu")(x)
x = tf.keras.layers.LayerNormalization()(x + tf.keras.layers.Dense(DIM)(f))
model = tf.keras.Model(inputs, tf.keras.layers.Dense(VOCAB)(x))
opt = tf.keras.optimizers.SGD(0.01)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(tokens, labels):
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(tokens, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for _ in range(STEPS):
    train_step(tokens, labels)
print("steps", STEPS)
print("weight_bytes", sum(w.numpy().nbytes for w in model.weights))
