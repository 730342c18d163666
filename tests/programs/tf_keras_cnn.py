"""Keras model.fit of a small CNN (Conv2D, MaxPooling2D, Dense) on synthetic images, on the CPU,
for tests/e2e/tf_workloads_test.cc. No profiler calls: `tensortrace record` captures it.
Prints "steps N" (training steps run) and "weight_bytes B" (the model's weights)."""
import numpy as np
import tensorflow as tf

STEPS, BATCH = 6, 16
rng = np.random.default_rng(0)
x = rng.normal(size=(STEPS * BATCH, 28, 28, 1)).astype("float32")
y = rng.integers(0, 10, size=(STEPS * BATCH,)).astype("int32")
model = tf.keras.Sequential([
    tf.keras.Input(shape=(28, 28, 1)),
    tf.keras.layers.Conv2D(16, 3, activation="relu"),
    tf.keras.layers.MaxPooling2D(2),
    tf.keras.layers.Conv2D(32, 3, activation="relu"),
    tf.keras.layers.MaxPooling2D(2),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(64, activation="relu"),
    tf.keras.layers.Dense(10),
])
model.compile(optimizer="adam",
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
print("steps", STEPS)
print("weight_bytes", sum(w.numpy().nbytes for w in model.weights))
