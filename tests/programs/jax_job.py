"""A small JAX job on the CPU, for tests/e2e/tf_bootstrap_test.cc.

usage: jax_job.py [--own-trace DIR | --sleep S]
  --own-trace DIR  also profile some steps with jax.profiler.trace(DIR) (the program's own)
  --sleep S        after the steps, print "running <pid>" and sleep S seconds (for signals)
"""
import os
import sys
import time

import jax
import jax.numpy as jnp
from jax._src import xla_bridge

# Whether anything (a profiler started at import, say) set up JAX's backends before the program
# asked: jax.distributed.initialize() must come before that.
print("backends before first use:", xla_bridge.backends_are_initialized(), flush=True)


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
