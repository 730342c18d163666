"""The trainable parameters a program passes to its jitted functions, as the scope view's params.

At each jitted function's tracing (its first call for a signature: jax's pjit traces it once),
this reads the pytree of the call's arguments:
- Flax NNX (nnx.jit hands jax its modules as graph definitions with their states): the
  nnx.Param variables of each module argument, per module path under the module's class name
  ("MLP", "MLP/linear1");
- any other argument: the array leaves under a 'params' key (Flax linen's variables['params'],
  a TrainState's params) or of an argument named params, per path below it ("params",
  "params/Dense_0").
Each path's count is its leaves' sizes and its subpaths'. At each profiler stop the largest
count seen per path is written, "PATH<TAB>N", to DIR/xspace/<pid>/params.tsv (tf_params.py's
file and format). The program's results are unchanged: its arguments are only read, and an
error of ours never reaches it."""
import functools
import os

FILE = "params.tsv"
_counts = {}


def _add(counts, path, size):
    for i in range(1, len(path) + 1):
        key = "/".join(path[:i])
        counts[key] = counts.get(key, 0) + int(size)


def _key(k):
    for attr in ("key", "name", "idx"):
        if hasattr(k, attr):
            return str(getattr(k, attr))
    return str(k)


def _nnx_counts(node_states, counts):
    from flax import nnx

    if getattr(node_states, "_graphdef", None) is None:
        return
    module = nnx.merge(node_states._graphdef, *node_states.states)
    if not isinstance(module, nnx.Module):
        return
    root = type(module).__name__
    for path, var in nnx.state(module, nnx.Param).flat_state():
        _add(counts, [root] + [str(p) for p in path[:-1]], getattr(var, "size", 0))
    counts.setdefault(root, 0)


def _tree_counts(tree, named_params, counts):
    import jax

    for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
        keys = [_key(k) for k in path]
        if "params" in keys:
            keys = keys[keys.index("params"):]
        elif named_params:
            keys = ["params"] + keys
        else:
            continue
        if hasattr(leaf, "shape") and hasattr(leaf, "size"):
            _add(counts, keys[:-1], leaf.size)


def _read(args, arg_names):
    import jax

    try:
        from flax.nnx.extract import NodeStates
    except Exception:
        NodeStates = ()
    counts = {}
    first = 0  # arg_names names each array leaf ("params['w']"): the argument's first leaf's
    for arg in args:
        nodes = jax.tree_util.tree_leaves(arg, is_leaf=lambda x: isinstance(x, NodeStates))
        for node in nodes:
            if NodeStates and isinstance(node, NodeStates):
                _nnx_counts(node, counts)
        name = arg_names[first] if arg_names and first < len(arg_names) else ""
        first += len(jax.tree_util.tree_leaves(arg))
        _tree_counts(arg, str(name).split("[")[0] == "params", counts)
    return counts


def watch_jit():
    """Wraps jax's pjit tracing (once per process)."""
    try:
        from jax._src import pjit
    except Exception:
        return
    orig = getattr(pjit, "_trace_for_jit", None)
    if orig is None or getattr(orig, "_tensortrace_params", False):
        return

    @functools.wraps(orig)
    def trace_for_jit(fun, ji, mesh, dbg, avals, args, kwargs, *rest, **kw):
        try:
            names = getattr(dbg, "arg_names", None)
            for path, n in _read(tuple(args) + tuple(kwargs.values()), names).items():
                _counts[path] = max(_counts.get(path, 0), n)
        except Exception:
            pass
        return orig(fun, ji, mesh, dbg, avals, args, kwargs, *rest, **kw)

    trace_for_jit._tensortrace_params = True
    pjit._trace_for_jit = trace_for_jit


def save(logdir):
    """Writes the file (atomically; never raises)."""
    lines = {k: v for k, v in _counts.items() if v > 0}
    if not logdir or not lines:
        return
    try:
        os.makedirs(logdir, exist_ok=True)
        tmp = os.path.join(logdir, "." + FILE + ".tmp")
        with open(tmp, "w") as f:
            f.writelines("%s\t%d\n" % kv for kv in sorted(lines.items()))
        os.replace(tmp, os.path.join(logdir, FILE))
    except Exception:
        pass
