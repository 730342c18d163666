"""A JAX loop whose two parts differ in cost by a known factor, each its own jitted function
called from the loop: small_part multiplies by a 1024x512 matrix, big_part by a 1024x2048 one
(tensortrace's code view test; each call lasts several sampling periods). Prints `small_ns N` and `big_ns N`: the loop's own timing of
each part's calls (dispatch through the result ready)."""
import os
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# One thread computes each dot, so that the ops' time is the calls' (several threads' would add).
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")
import jax
import jax.numpy as jnp

w_small = jax.random.normal(jax.random.PRNGKey(0), (1024, 512))
w_big = jax.random.normal(jax.random.PRNGKey(1), (1024, 2048))
x = jax.random.normal(jax.random.PRNGKey(2), (1024, 1024))


@jax.jit
def small_jit(x):
    return jax.nn.relu(x @ w_small).sum()


@jax.jit
def big_jit(x):
    return jax.nn.relu(x @ w_big).sum()


def small_part(x):
    return small_jit(x).block_until_ready()


def big_part(x):
    return big_jit(x).block_until_ready()


# Compiled and run once outside the parts, so that every call of a part, which the code view
# counts, is one the loop times (its first execution, slow on a loaded machine, included).
small_jit(x).block_until_ready()
big_jit(x).block_until_ready()
took = {"small": 0, "big": 0}
for i in range(20):
    for name, part in (("small", small_part), ("big", big_part)):
        t = time.monotonic_ns()
        part(x)
        took[name] += time.monotonic_ns() - t
print("small_ns", took["small"])
print("big_ns", took["big"])
