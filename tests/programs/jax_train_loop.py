"""A jax.jit training loop (a two-layer MLP, plain gradient descent) on synthetic data, on the
CPU, for tests/e2e/tf_workloads_test.cc and steps_test.cc. No profiler calls. Prints "steps N" and
"weight_bytes B".

usage: jax_train_loop.py [STEPS [PAUSE]]   (default 8 steps; PAUSE: seconds each step's end
waits for its result and then sleeps, so that a run spans several capture windows).
TT_SAY_STARTED=1 prints "started 1" after the first step (compiled). TT_JAX_STEP_MARKER=1 marks
each step with jax.profiler.StepTraceAnnotation("train", step_num=i), as xprof asks programs to."""
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

STEPS, BATCH = int(sys.argv[1]) if len(sys.argv) > 1 else 8, 32
PAUSE = float(sys.argv[2]) if len(sys.argv) > 2 else 0
rng = np.random.default_rng(0)
x = jnp.asarray(rng.normal(size=(BATCH, 64)).astype("float32"))
y = jnp.asarray(rng.normal(size=(BATCH, 1)).astype("float32"))
params = {
    "w1": jnp.asarray(rng.normal(size=(64, 128)).astype("float32") * 0.1),
    "b1": jnp.zeros(128, jnp.float32),
    "w2": jnp.asarray(rng.normal(size=(128, 1)).astype("float32") * 0.1),
    "b2": jnp.zeros(1, jnp.float32),
}


def loss(p, x, y):
    h = jax.nn.relu(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)


@jax.jit
def update(p, x, y):
    g = jax.grad(loss)(p, x, y)
    return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g)


MARK = os.environ.get("TT_JAX_STEP_MARKER") == "1"
for i in range(STEPS):
    if MARK:
        with jax.profiler.StepTraceAnnotation("train", step_num=i):
            params = update(params, x, y)
            jax.block_until_ready(params)
    else:
        params = update(params, x, y)
    if i == 0 and os.environ.get("TT_SAY_STARTED"):
        print("started 1", flush=True)  # for a test that opens a capture window now
    if PAUSE:
        jax.block_until_ready(params)
        time.sleep(PAUSE)
jax.block_until_ready(params)
print("steps", STEPS)
print("weight_bytes", sum(v.size * v.dtype.itemsize for v in params.values()))
