"""The graphs of the program's tf.functions, saved for replay: each node's producers.

The profiler's XSpace names each op that ran ("node:OpType") but holds no graph. The function
objects the program called (tf_adapter's numbered __call__ remembers them, weakly) hold their
traced graphs; at each profiler stop this writes, for every concrete function they hold (and the
functions in its library: nested tf.functions, loop bodies), one line per node to
DIR/xspace/<pid>/tf_graph.tsv (docs/trace-format.md):

    # function NAME
    NODE<TAB>OP<TAB>PRODUCER<TAB>PRODUCER...

Producers are the node names of its inputs (data and control; output index dropped; a
function's arguments are names too, they match no op). Bounded: at most MAX_FUNCTIONS concrete
functions and MAX_NODES nodes in all; a function seen before is not converted again.

The graphs of tf.compat.v1 Sessions (remembered, weakly, when each Session is made) are saved
the same way, under "# session graph N": converted again when nodes were added since. The
program's results are unchanged: the graphs are only read."""
import os
import weakref

MAX_FUNCTIONS = 256
MAX_NODES = 200_000
FILE = "tf_graph.tsv"

_functions = weakref.WeakSet()  # tf.function objects the program called
_graphs = weakref.WeakSet()  # the graphs of the program's tf.compat.v1 Sessions
_done = {}  # key -> (version, lines): a concrete function's (converted once), a session graph's
_state = {"nodes": 0}


def remember(function):
    """Called on each tf.function call (cheap: one weak set insertion)."""
    try:
        _functions.add(function)
    except TypeError:
        pass


def remember_session(session):
    """Called when a tf.compat.v1 Session is made (once per Session)."""
    try:
        _graphs.add(session.graph)
    except (TypeError, AttributeError):
        pass


def _producer(name):
    name = name[1:] if name.startswith("^") else name
    return name.split(":", 1)[0]


def _node_lines(nodes):
    lines = []
    for n in nodes:
        ins = [_producer(i) for i in n.input]
        lines.append("\t".join([n.name, n.op] + ins))
    return lines


def _convert(header, gd):
    """The lines of one graph: its nodes, then its library's functions."""
    lines = ["# " + header] + _node_lines(gd.node)
    for f in gd.library.function:
        lines.append("# function " + f.signature.name)
        lines += _node_lines(f.node_def)
    return lines


def _name(cf):
    n = cf.name
    return n.decode() if isinstance(n, bytes) else str(n)


def _concrete(function):
    lister = getattr(function, "_list_all_concrete_functions", None)
    return list(lister()) if lister else []


def _copy(weak_set):
    for _ in range(3):  # another thread may add one while the set is copied
        try:
            return list(weak_set)
        except RuntimeError:
            continue
    return []


def _room():
    return len(_done) < MAX_FUNCTIONS and _state["nodes"] < MAX_NODES


def _keep(key, version, lines):
    old = _done.get(key)
    if old is not None:
        _state["nodes"] -= len(old[1])
    _state["nodes"] += len(lines)
    _done[key] = (version, lines)


def save(logdir):
    """Writes what the remembered functions and graphs hold now (atomically; never raises)."""
    if not logdir:
        return
    try:
        for function in _copy(_functions):
            for cf in _concrete(function):
                key = _name(cf)
                if key not in _done and _room():
                    _keep(key, None, _convert("function " + key, cf.graph.as_graph_def()))
        for graph in _copy(_graphs):
            key = "session graph %d" % id(graph)
            old = _done.get(key)
            if old is not None and old[0] == graph.version:
                continue  # no node added since it was converted
            if old is None and not _room():
                continue
            _keep(key, graph.version, _convert(key, graph.as_graph_def()))
        if not _done:
            return
        os.makedirs(logdir, exist_ok=True)
        tmp = os.path.join(logdir, "." + FILE + ".tmp")
        with open(tmp, "w") as f:
            for _, lines in _done.values():
                f.write("\n".join(lines))
                f.write("\n")
        os.replace(tmp, os.path.join(logdir, FILE))
    except Exception:
        pass  # no graph: replay infers the ops' order from the trace, as without it
