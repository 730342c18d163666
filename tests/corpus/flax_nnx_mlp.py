"""Flax NNX + optax, as Flax's own "MNIST tutorial" trains: an nnx.Module, nnx.Optimizer,
an @nnx.jit train step, batches fed from NumPy through jnp.asarray. Synthetic data.
Prints one JSON line: the program's own step times (wall clock around each step, the result
blocked on), so tests compare tensortrace's steps with the program's timing, and Flax's own
count of the model's parameters (the nnx.Param leaves' sizes) in all and per submodule."""
import json
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 40
BATCH = 128


class MLP(nnx.Module):
    def __init__(self, din, dhidden, dout, *, rngs: nnx.Rngs):
        self.linear1 = nnx.Linear(din, dhidden, rngs=rngs)
        self.dropout = nnx.Dropout(0.1, rngs=rngs)
        self.linear2 = nnx.Linear(dhidden, dhidden, rngs=rngs)
        self.linear3 = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.linear1(x))
        x = self.dropout(x)
        x = nnx.relu(self.linear2(x))
        return self.linear3(x)


def loss_fn(model, batch):
    logits = model(batch["image"])
    loss = optax.softmax_cross_entropy_with_integer_labels(logits, batch["label"]).mean()
    return loss, logits


@nnx.jit
def train_step(model, optimizer, metrics, batch):
    grad_fn = nnx.value_and_grad(loss_fn, has_aux=True)
    (loss, logits), grads = grad_fn(model, batch)
    metrics.update(loss=loss, logits=logits, labels=batch["label"])
    optimizer.update(model, grads)


def param_counts(model):
    """{"MLP": all, "MLP/linear1": ...}: Flax's nnx.Param leaves' sizes, per top-level part."""
    root = type(model).__name__
    counts = {root: 0}
    for path, leaf in jax.tree_util.tree_leaves_with_path(nnx.state(model, nnx.Param)):
        counts[root] += leaf.size
        part = "%s/%s" % (root, path[0].key)
        counts[part] = counts.get(part, 0) + leaf.size
    return counts


def main():
    model = MLP(784, 1024, 10, rngs=nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adamw(1e-3, 0.9), wrt=nnx.Param)
    metrics = nnx.MultiMetric(accuracy=nnx.metrics.Accuracy(), loss=nnx.metrics.Average("loss"))
    rng = np.random.default_rng(0)
    images = rng.standard_normal((STEPS, BATCH, 784), dtype=np.float32)
    labels = rng.integers(0, 10, (STEPS, BATCH)).astype(np.int32)
    times = []
    for i in range(STEPS):
        t0 = time.perf_counter()
        batch = {"image": jnp.asarray(images[i]), "label": jnp.asarray(labels[i])}
        train_step(model, optimizer, metrics, batch)
        jax.block_until_ready(model.linear3.kernel.value)
        times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"program": "flax_nnx_mlp", "steps": STEPS, "step_ms": times,
                      "accuracy": float(metrics.compute()["accuracy"]),
                      "params": param_counts(model)}))


if __name__ == "__main__":
    main()
