"""The weights of the program's Keras models per layer, as the scope view's params.

tf_adapter remembers (weakly) each Keras model whose train, test or predict function is made.
At each profiler stop this writes, for every layer with weights of those models (the models
themselves and nested ones included), "SCOPE<TAB>N" to DIR/xspace/<pid>/params.tsv, the
torch adapter's format (docs/trace-format.md): N is the layer's count_params(), SCOPE the name
scope its ops have in the graphs of the program's tf.functions ("sequential_1/conv_1", where
Keras made the layer's scope unique), found from the op that reads its first weight there.
The program's results are unchanged: the models and graphs are only read."""
import os
import re
import weakref

FILE = "params.tsv"
_models = weakref.WeakSet()


def remember_model(model):
    try:
        _models.add(model)
    except TypeError:
        pass


def _handle(variable):
    v = getattr(variable, "value", variable)  # Keras 3 wraps a tf.Variable
    return getattr(v, "handle", None)


def _read_scopes():
    """id(variable handle) -> the name scope of an op reading it in a forward graph."""
    from _tensortrace import tf_graphs

    scopes = {}
    for function in tf_graphs._copy(tf_graphs._functions):
        try:
            concrete = tf_graphs._concrete(function)
        except Exception:
            continue
        for cf in concrete:
            captured = {inner.op.name: ext for ext, inner in cf.graph.captures}
            for op in cf.graph.get_operations():
                if op.type != "ReadVariableOp" or "gradient_tape" in op.name:
                    continue
                ext = captured.get(op.inputs[0].op.name)
                if ext is not None:
                    scopes.setdefault(id(ext), op.name.rsplit("/", 1)[0])
    return scopes


def _scope_of(layer, scopes):
    """The graph's name scope of the layer: its first weight's read scope, up to the segment
    that is the layer's name (or its name made unique, "conv_1")."""
    for w in layer.weights:
        where = scopes.get(id(_handle(w)))
        if where is None:
            continue
        parts = where.split("/")
        name = re.escape(layer.name)
        for i in range(len(parts) - 1, -1, -1):
            if re.fullmatch(name + r"(_\d+)?", parts[i]):
                return "/".join(parts[:i + 1])
    return None


def _lines():
    scopes = _read_scopes()
    lines = {}
    for model in list(_models):
        layers = getattr(model, "_flatten_layers", None)
        for layer in (layers(include_self=True, recursive=True) if layers else [model]):
            try:
                n = layer.count_params()
            except Exception:
                continue  # not built
            scope = _scope_of(layer, scopes) if n else None
            if scope:
                lines[scope] = n
    return lines


def save(logdir):
    """Writes the file (atomically; never raises)."""
    if not logdir:
        return
    try:
        lines = _lines()
        if not lines:
            return
        os.makedirs(logdir, exist_ok=True)
        tmp = os.path.join(logdir, "." + FILE + ".tmp")
        with open(tmp, "w") as f:
            f.writelines("%s\t%d\n" % kv for kv in lines.items())
        os.replace(tmp, os.path.join(logdir, FILE))
    except Exception:
        pass
