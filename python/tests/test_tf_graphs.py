"""tf_graphs.py: the graphs of remembered tf.functions and Sessions written as
DIR/xspace/<pid>/tf_graph.tsv, one line per node with its producers, within its bounds. The
graphs here are made of plain objects with the fields of TensorFlow's GraphDef that it reads
(test_tf_adapter.py writes a real one)."""
import weakref

import pytest

from _tensortrace import tf_graphs


class Obj:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def node(name, op, *inputs):
    return Obj(name=name, op=op, input=list(inputs))


def graph_def(nodes, library=()):
    return Obj(node=nodes, library=Obj(function=[Obj(signature=Obj(name=n), node_def=nd)
                                                for n, nd in library]))


class Function:
    """A tf.function: its concrete functions, each a name and a graph."""

    def __init__(self, *concrete):
        self.concrete = [Obj(name=name, graph=Obj(as_graph_def=lambda gd=gd: gd))
                         for name, gd in concrete]

    def _list_all_concrete_functions(self):
        return self.concrete


class Graph:
    def __init__(self, gd, version):
        self.gd, self.version = gd, version

    def as_graph_def(self):
        return self.gd


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.setattr(tf_graphs, "_functions", weakref.WeakSet())
    monkeypatch.setattr(tf_graphs, "_graphs", weakref.WeakSet())
    monkeypatch.setattr(tf_graphs, "_done", {})
    monkeypatch.setattr(tf_graphs, "_state", {"nodes": 0})


def lines(tmp_path):
    return (tmp_path / tf_graphs.FILE).read_text().split("\n")[:-1]


def test_a_functions_nodes_and_its_library(tmp_path):
    body = [node("x", "_Arg"), node("add", "AddV2", "x", "y:0")]
    f = Function((b"__inference_step_12", graph_def(
        [node("x", "Placeholder"), node("y", "Const"), node("mul", "Mul", "x:0", "y:0", "^init"),
         node("call", "StatefulPartitionedCall", "mul:1")],
        library=[("__inference_body_7", body)])))
    tf_graphs.remember(f)
    tf_graphs.save(str(tmp_path))
    assert lines(tmp_path) == [
        "# function __inference_step_12",
        "x\tPlaceholder",
        "y\tConst",
        "mul\tMul\tx\ty\tinit",  # output index and control marker dropped
        "call\tStatefulPartitionedCall\tmul",
        "# function __inference_body_7",
        "x\t_Arg",
        "add\tAddV2\tx\ty"]
    assert not (tmp_path / ("." + tf_graphs.FILE + ".tmp")).exists()


def test_a_concrete_function_is_converted_once(tmp_path):
    gd = graph_def([node("a", "Const")])
    f = Function(("f", gd))
    tf_graphs.remember(f)
    tf_graphs.save(str(tmp_path))
    gd.node.append(node("b", "Const"))  # not read again
    tf_graphs.save(str(tmp_path))
    assert lines(tmp_path) == ["# function f", "a\tConst"]
    assert tf_graphs._state["nodes"] == 2


def test_a_session_graph_is_converted_again_when_it_grew(tmp_path):
    gd = graph_def([node("a", "Const")])
    g = Graph(gd, version=1)
    tf_graphs.remember_session(Obj(graph=g))
    tf_graphs.save(str(tmp_path))
    gd.node.append(node("b", "Identity", "a"))
    g.version = 2
    tf_graphs.save(str(tmp_path))
    key = "session graph %d" % id(g)
    assert lines(tmp_path) == ["# " + key, "a\tConst", "b\tIdentity\ta"]
    assert tf_graphs._state["nodes"] == 3  # the first conversion's lines replaced, not added


def test_at_most_max_functions(tmp_path, monkeypatch):
    monkeypatch.setattr(tf_graphs, "MAX_FUNCTIONS", 1)
    f = Function(("f1", graph_def([node("a", "Const")])), ("f2", graph_def([node("b", "Const")])))
    tf_graphs.remember(f)
    tf_graphs.save(str(tmp_path))
    assert lines(tmp_path) == ["# function f1", "a\tConst"]


def test_nothing_remembered_writes_nothing(tmp_path):
    tf_graphs.save(str(tmp_path))
    tf_graphs.save(None)
    assert list(tmp_path.iterdir()) == []


def test_errors_never_reach_the_program(tmp_path):
    class Broken:
        def _list_all_concrete_functions(self):
            raise RuntimeError("a function TensorFlow cannot list")

    tf_graphs.remember(Broken())
    tf_graphs.remember(3)  # not weakly referenceable: not remembered, no error
    tf_graphs.remember_session(object())  # no graph: nothing
    tf_graphs.save(str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_functions_are_remembered_weakly(tmp_path):
    f = Function(("f", graph_def([node("a", "Const")])))
    tf_graphs.remember(f)
    assert len(tf_graphs._functions) == 1
    del f
    assert len(tf_graphs._functions) == 0
