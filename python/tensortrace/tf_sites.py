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


def install(add_sites, add_collectives=None):
    from _tensortrace import import_hook

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
