"""Where TensorFlow's graph ops were created, for the code view: each graph that tf.function
(and cond/while) traces records the Python stack of every node it creates; once a graph is
traced, its nodes' names and stacks go to the sampler (sampler.py), which writes them as
python.site events. An op that later runs on the runtime's threads is attributed to the line
that created it. Costs one pass over a graph's nodes when it is traced, nothing per step."""
import functools
import sys

_warned = False


def _sites_of(graph):
    sites = []
    for op in graph.get_operations():
        frames = [(f.filename, f.lineno, f.name) for f in op.traceback]
        if frames:
            sites.append((op.name, frames))
    return sites


# Collective ops whose input is what they move; their XSpace events carry no shape.
_COLLECTIVES = ("CollectiveReduce", "CollectiveGather", "CollectiveBcastSend", "CollectiveAllToAll",
                "CollectiveReduceScatter", "NcclAllReduce", "NcclReduce", "NcclBroadcast")


def _collectives_of(graph):
    """(op name, op type, bytes of its first input) of each collective op whose input's shape
    is fully known."""
    out = []
    for op in graph.get_operations():
        if not op.type.startswith(_COLLECTIVES) or not op.inputs:
            continue
        t = op.inputs[0]
        if t.shape.is_fully_defined() and t.dtype.size:
            out.append((op.name, op.type, t.shape.num_elements() * t.dtype.size))
    return out


# Eager collectives (MultiWorkerMirroredStrategy broadcasts its variables' initial values so):
# the generated op function and the op type it runs.
_EAGER = {"collective_bcast_send": "CollectiveBcastSend",
          "collective_bcast_recv": "CollectiveBcastRecv",
          "collective_reduce": "CollectiveReduce",
          "collective_gather": "CollectiveGather",
          "collective_bcast_send_v2": "CollectiveBcastSendV2",
          "collective_bcast_recv_v2": "CollectiveBcastRecvV2",
          "collective_reduce_v2": "CollectiveReduceV2",
          "collective_gather_v2": "CollectiveGatherV2"}


def _eager_record(op_type, a):
    """(op type, group key, instance key, bytes) of an eager call's bound arguments; None in a
    graph (symbolic keys) or when a value is unknown."""
    import tensorflow as tf

    if not tf.executing_eagerly():
        return None
    group, key = int(a["group_key"]), int(a["instance_key"])
    if "input" in a:
        t = a["input"]
        n, size = t.shape.num_elements(), t.dtype.size
    else:
        shape = a["shape"]
        if hasattr(shape, "numpy"):
            shape = shape.numpy().tolist()
        n, size = tf.TensorShape(shape).num_elements(), tf.as_dtype(a["T"]).size
    if n is None or not size:
        return None
    return op_type, group, key, n * size


def _wrap_eager(fn, op_type, add_eager):
    import inspect

    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            rec = _eager_record(op_type, sig.bind_partial(*args, **kwargs).arguments)
            if rec is not None:
                add_eager(*rec)
        except Exception:  # never in the program's way
            pass
        return fn(*args, **kwargs)

    wrapper._tensortrace_eager = True
    return wrapper


def install(add_sites, add_collectives=None, add_eager=None):
    from _tensortrace import import_hook

    def on_gen_collective_ops(module):
        for name, op_type in _EAGER.items():
            fn = getattr(module, name, None)
            if fn is not None and not getattr(fn, "_tensortrace_eager", False):
                setattr(module, name, _wrap_eager(fn, op_type, add_eager))

    if add_eager is not None:
        on_gen_collective_ops.__name__ = "recording eager collectives' bytes"
        import_hook.when_imported("tensorflow.python.ops.gen_collective_ops",
                                  on_gen_collective_ops)

    def on_func_graph(module):
        orig = getattr(module, "func_graph_from_py_func", None)
        if orig is None or getattr(orig, "_tensortrace_sites", False):
            return

        @functools.wraps(orig)
        def traced(*args, **kwargs):
            graph = orig(*args, **kwargs)
            global _warned
            try:
                add_sites(_sites_of(graph))
                if add_collectives is not None:
                    add_collectives(_collectives_of(graph))
            except Exception as e:  # the program's graph is returned whatever happens here
                if not _warned:
                    _warned = True
                    sys.stderr.write("tensortrace: warning: op creation sites not recorded: "
                                     "%r\n" % (e,))
            return graph

        traced._tensortrace_sites = True
        module.func_graph_from_py_func = traced

    on_func_graph.__name__ = "recording op creation sites"
    import_hook.when_imported("tensorflow.python.framework.func_graph", on_func_graph)
