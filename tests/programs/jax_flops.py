"""A jitted two-layer MLP training step on synthetic data, five steps; prints XLA's own count
of the step's FLOPs (jitted.lower(...).compile().cost_analysis()['flops']) as
`cost_analysis_flops N`, and the layer sizes (tests/e2e/jax_flops_test.cc)."""
import jax
import jax.numpy as jnp

B, I, H, O = 128, 256, 512, 64


def loss(p, x, y):
    h = jnp.maximum(x @ p["w1"] + p["b1"], 0)
    return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)


@jax.jit
def step(p, x, y):
    g = jax.grad(loss)(p, x, y)
    return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g)


k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(0), 4)
p = {"w1": jax.random.normal(k1, (I, H)) * 0.05, "b1": jnp.zeros(H),
     "w2": jax.random.normal(k2, (H, O)) * 0.05, "b2": jnp.zeros(O)}
x = jax.random.normal(k3, (B, I))
y = jax.random.normal(k4, (B, O))
cost = step.lower(p, x, y).compile().cost_analysis()
if isinstance(cost, list):  # older jax: one dict per computation
    cost = cost[0]
print("cost_analysis_flops %d" % int(cost["flops"]))
print("batch %d\ninputs %d\nhidden %d\noutputs %d" % (B, I, H, O))
for _ in range(5):
    p = step(p, x, y)
jax.block_until_ready(p)
