"""jax_params.py, in a child with JAX (skipped without it): the parameters a jitted function's
arguments hold under a 'params' key (Flax linen's variables) or as an argument named params,
summed per path at its tracing, written at save; the batch and a second call add nothing, and
the function's results are unchanged."""
from conftest import child_json, require

CHILD = """
import json, os, sys
from _tensortrace import jax_params
jax_params.watch_jit()
import jax, jax.numpy as jnp
variables = {"params": {"Dense_0": {"kernel": jnp.ones((3, 4)), "bias": jnp.ones(4)},
                        "Dense_1": {"kernel": jnp.ones((4, 2))}},
             "batch_stats": {"mean": jnp.ones(7)}}

@jax.jit
def apply(variables, x):
    return x @ variables["params"]["Dense_0"]["kernel"]

@jax.jit
def sgd(params, grads):
    return jax.tree_util.tree_map(lambda p, g: p - g, params, grads)

y = apply(variables, jnp.ones((5, 3)))
apply(variables, jnp.ones((5, 3)))
z = sgd({"w": jnp.ones(30)}, {"w": jnp.ones(30)})
jax_params.save(sys.argv[1])
print(json.dumps({"file": open(os.path.join(sys.argv[1], "params.tsv")).read(),
                  "y": float(y.sum()), "z": float(z["w"].sum())}))
"""


def test_params_per_path_from_the_jitted_calls_arguments(tmp_path):
    require("jax")
    out = child_json(CHILD, args=(str(tmp_path),))
    lines = dict(line.split("\t") for line in out["file"].splitlines())
    assert lines == {"params": "30", "params/Dense_0": "16", "params/Dense_1": "8"}
    assert out["y"] == 5 * 4 * 3 and out["z"] == 0
