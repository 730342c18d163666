"""A small JAX job on the CPU, for tests/tf_bootstrap_test.cc.

usage: jax_job.py [--own-trace DIR | --sleep S]
  --own-trace DIR  also profile some steps with jax.profiler.trace(DIR) (the program's own)
  --sleep S        after the steps, print "running <pid>" and sleep S seconds (for signals)
"""
import os
import sys
import time

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
if len(sys.argv) == 3 and sys.argv[1] == "--sleep":
    print("running", os.getpid(), flush=True)
    time.sleep(float(sys.argv[2]))
print("done", float(x.sum()), flush=True)
