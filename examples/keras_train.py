"""A small Keras CNN trained on synthetic images: the program `scripts/setup.sh` records to show
tensortrace on a deep-learning job. Nothing in it knows about tensortrace:

    tensortrace record -o keras-trace -- python3 examples/keras_train.py
    tensortrace stats keras-trace --view op --top 10
    tensortrace stats keras-trace --view step
    tensortrace report keras-trace -o keras-report.html
"""
import numpy as np
import tensorflow as tf

STEPS, BATCH = 20, 32
rng = np.random.default_rng(0)
images = rng.random((STEPS * BATCH, 28, 28, 1), dtype=np.float32)
labels = rng.integers(0, 10, STEPS * BATCH)

model = tf.keras.Sequential([
    tf.keras.Input(shape=(28, 28, 1)),
    tf.keras.layers.Conv2D(16, 3, activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Conv2D(32, 3, activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(64, activation="relu"),
    tf.keras.layers.Dense(10),
])
model.compile(optimizer="adam",
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(images, labels, batch_size=BATCH, epochs=1, verbose=0)
print("trained", STEPS, "steps")
