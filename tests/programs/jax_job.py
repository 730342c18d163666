"""A small JAX job on the CPU, for tests/tf_bootstrap_test.cc.

usage: jax_job.py [--own-trace DIR]
  --own-trace DIR  also profile some steps with jax.profiler.trace(DIR) (the program's own)
"""
import sys

import jax
import jax.numpy as jnp


@jax.jit
def step(w, x):
    return jnp.tanh(x @ w) @ w.T


w = jnp.ones((64, 64)) / 64
x = jnp.ones((32, 64))
for _ in range(5):
    x = step(w, x)
if len(sys.argv) == 3 and sys.argv[1] == "--own-trace":
    with jax.profiler.trace(sys.argv[2]):
        for _ in range(5):
            x = step(w, x)
print("done", float(x.sum()), flush=True)
