"""A small JAX computation profiled with JAX's own profiler (XLA on the CPU).

The XSpace goes where tensortrace's importer looks for it:
$TENSORTRACE_DIR/xspace/<pid>/plugins/profile/<run>/<host>.xplane.pb.
"""
import os
import sys
import tempfile

import jax
import jax.numpy as jnp

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 3


@jax.jit
def train_step(w, x, y):
    def loss(w):
        return jnp.mean((jnp.tanh(x @ w) - y) ** 2)

    l, g = jax.value_and_grad(loss)(w)
    return w - 0.1 * g, l


def main():
    logdir = os.path.join(os.environ.get("TENSORTRACE_DIR", tempfile.gettempdir()), "xspace", str(os.getpid()))
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    x = jax.random.normal(k1, (128, 64))
    y = jax.random.normal(k2, (128, 16))
    w = jax.random.normal(k3, (64, 16)) * 0.1
    w, l = train_step(w, x, y)  # compile outside the capture
    jax.profiler.start_trace(logdir)
    for i in range(STEPS):
        with jax.profiler.StepTraceAnnotation("train", step_num=i):
            w, l = train_step(w, x, y)
            l.block_until_ready()
    jax.profiler.stop_trace()
    print("loss %.4f" % float(l))
    return 0


if __name__ == "__main__":
    sys.exit(main())
