"""jax.shard_map over two host devices, as JAX's "Manual parallelism with shard_map" guide
writes a data-parallel step: a mesh, per-device gradients, jax.lax.psum over the data axis.
Needs XLA_FLAGS=--xla_force_host_platform_device_count=2 (set here unless given). Synthetic
data. Prints one JSON line with the program's own step times."""
import json
import os
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 40
mesh = Mesh(np.array(jax.devices()[:2]), ("data",))


def loss(params, x, y):
    h = jnp.tanh(x @ params["w1"])
    return jnp.mean((h @ params["w2"] - y) ** 2)


def per_device_grads(params, x, y):
    g = jax.grad(loss)(params, x, y)
    return jax.tree.map(lambda t: jax.lax.psum(t, "data") / 2, g)


@jax.jit
def train_step(params, x, y):
    grads = jax.shard_map(per_device_grads, mesh=mesh,
                          in_specs=(P(), P("data"), P("data")), out_specs=P())(params, x, y)
    return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)


def main():
    rng = np.random.default_rng(0)
    params = {"w1": jnp.asarray(rng.standard_normal((256, 512), dtype=np.float32) * 0.05),
              "w2": jnp.asarray(rng.standard_normal((512, 16), dtype=np.float32) * 0.05)}
    data = NamedSharding(mesh, P("data"))
    xs = rng.standard_normal((STEPS, 512, 256), dtype=np.float32)
    ys = rng.standard_normal((STEPS, 512, 16), dtype=np.float32)
    times = []
    for i in range(STEPS):
        t0 = time.perf_counter()
        x, y = jax.device_put(xs[i], data), jax.device_put(ys[i], data)
        params = train_step(params, x, y)
        jax.block_until_ready(params)
        times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"program": "jax_shard_map_psum", "steps": STEPS, "step_ms": times}))


if __name__ == "__main__":
    main()
