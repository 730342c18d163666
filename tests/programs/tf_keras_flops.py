"""Keras model.fit of a tiny Conv2D + Dense model on the CPU, for tests/e2e/tf_flops_test.cc
(issue 36). No profiler calls: `tensortrace record` captures it. 20 samples in batches of 8: two
full batches, then one of 4 (the step Keras traces again with its batch unknown).

With TT_TF_FLOPS_REFERENCE=PATH it also writes, as JSON, TensorFlow's own count
(ops.get_stats_for_node_def(graph, node_def, "flops")) of the model's forward Conv2D and
MatMul nodes, traced for a batch of 8, by layer, and each layer's count_params()."""
import json
import os

import numpy as np
import tensorflow as tf

N, BATCH = 20, 8
rng = np.random.default_rng(0)
x = rng.normal(size=(N, 10, 10, 3)).astype("float32")
y = rng.integers(0, 5, size=(N,)).astype("int32")
model = tf.keras.Sequential([
    tf.keras.Input(shape=(10, 10, 3)),
    tf.keras.layers.Conv2D(8, 3, activation="relu", name="conv"),
    tf.keras.layers.Flatten(name="flatten"),
    tf.keras.layers.Dense(16, activation="relu", name="hidden"),
    tf.keras.layers.Dense(5, name="logits"),
])
model.compile(optimizer="sgd",
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
print("params", model.count_params())
for layer in model.layers:
    print("params_" + layer.name, layer.count_params())

out = os.environ.get("TT_TF_FLOPS_REFERENCE")
if out:
    from tensorflow.python.framework import ops

    graph = tf.function(lambda t: model(t)).get_concrete_function(
        tf.TensorSpec([BATCH, 10, 10, 3], tf.float32)).graph
    counts = {}
    for op in graph.get_operations():
        if op.type in ("Conv2D", "MatMul"):
            layer = op.name.split("/")[-2]
            layer = layer.rsplit("_", 1)[0] if layer[-1].isdigit() else layer
            counts[layer] = int(ops.get_stats_for_node_def(graph, op.node_def, "flops").value)
    params = {layer.name: layer.count_params() for layer in model.layers}
    with open(out, "w") as f:
        json.dump({"flops": counts, "params": params, "total": model.count_params()}, f)
