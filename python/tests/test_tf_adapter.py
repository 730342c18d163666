"""tf_adapter.py: TensorFlow's CPU allocator chosen under --tf-cpu-allocator auto; and, in a
child with TensorFlow (skipped without it), the adapter driven as capture.py drives it: its
profiler started and stopped (an XSpace and the graphs' file written), tf.function calls
numbered, Keras 3's steps reported, op creation sites and collectives' bytes of a traced graph,
and the program's own profiler calls making ours step aside."""
import os

import pytest

from _tensortrace import tf_adapter
from conftest import PRELUDE, child_json, require


def test_allocator_untouched_unless_auto(monkeypatch):
    monkeypatch.delenv("TENSORTRACE_TF_CPU_ALLOCATOR", raising=False)
    monkeypatch.delenv("TF_CPU_ALLOCATOR_USE_BFC", raising=False)
    assert tf_adapter.choose_cpu_allocator() is None
    monkeypatch.setenv("TENSORTRACE_TF_CPU_ALLOCATOR", "default")
    assert tf_adapter.choose_cpu_allocator() is None
    assert "TF_CPU_ALLOCATOR_USE_BFC" not in os.environ


def test_the_programs_own_allocator_choice_wins(monkeypatch):
    monkeypatch.setenv("TENSORTRACE_TF_CPU_ALLOCATOR", "auto")
    monkeypatch.setenv("TF_CPU_ALLOCATOR_USE_BFC", "false")
    assert tf_adapter.choose_cpu_allocator() == "the program's TF_CPU_ALLOCATOR_USE_BFC"
    assert os.environ["TF_CPU_ALLOCATOR_USE_BFC"] == "false"


CHILD = """
import glob, json, os, sys
import numpy as np
from _tensortrace import capture, import_hook, tf_adapter, tf_sites
import_hook._FRAMEWORKS.clear()  # no capture of ours: the adapter is driven here
import_hook.install()
import tensorflow as tf
out, logdir = {}, sys.argv[1]
a = tf_adapter.Adapter(tf)
out.update(available=a.available, version=a.version == tf.__version__,
           allocator=a.cpu_allocator, use_bfc=os.environ.get("TF_CPU_ALLOCATOR_USE_BFC"))
steps, aside = [], []
a.number_steps(lambda: steps.append("start"), lambda: steps.append("end"))
a.wrap_user_entry_points(aside.append)

@tf.function
def step(x):
    return x * 2.0 + 1.0

for _ in range(3):
    step(tf.constant([1.0, 2.0]))
out["calls"] = step._tensortrace_calls
a.start(logdir, capture.Config({"TENSORTRACE_DIR": logdir}))
step(tf.constant([3.0, 4.0]))
a.stop()
out["xplanes"] = len(glob.glob(os.path.join(logdir, "plugins", "profile", "*", "*.xplane.pb")))
out["graph"] = open(os.path.join(logdir, "tf_graph.tsv")).read().split("\\n")

@tf.function
def reduce(x):
    return tf.raw_ops.CollectiveReduceV2(input=x, group_size=2, group_key=1, instance_key=5,
                                         ordering_token=[], merge_op="Add", final_op="Id")

g = reduce.get_concrete_function(tf.TensorSpec([4, 3], tf.float32)).graph
out["collectives"] = tf_sites._collectives_of(g)
g = step.get_concrete_function(tf.constant([1.0, 2.0])).graph
out["sites"] = {op: [list(f) for f in frames if f[0] == "<string>"]
                for op, frames in tf_sites._sites_of(g)}
import keras
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
del steps[:]
model.fit(np.zeros((12, 2)), np.zeros((12, 1)), batch_size=4, verbose=0)
out["fit"] = list(steps)
del steps[:]
model.evaluate(np.zeros((8, 2)), np.zeros((8, 1)), batch_size=4, verbose=0)
out["evaluate"] = list(steps)
tf.profiler.experimental.start(os.path.join(logdir, "own"))
tf.profiler.experimental.stop()
out["aside"] = aside
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def tf_child(tmp_path_factory):
    require("tensorflow")
    logdir = str(tmp_path_factory.mktemp("tf"))
    return child_json(CHILD, env={"TF_ENABLE_ONEDNN_OPTS": "0",
                                  "TENSORTRACE_TF_CPU_ALLOCATOR": "auto"}, args=(logdir,))


def test_adapter_available_with_tensorflows_version(tf_child):
    assert tf_child["available"] and tf_child["version"]


def test_oneDNN_off_makes_the_cpu_allocator_bfc(tf_child):
    assert (tf_child["allocator"], tf_child["use_bfc"]) == ("bfc (oneDNN off)", "true")


def test_oneDNN_on_keeps_tensorflows_allocator():
    require("tensorflow")
    out = child_json("""
import json, os
from _tensortrace import tf_adapter
import tensorflow as tf
a = tf_adapter.Adapter(tf)
print(json.dumps([a.cpu_allocator, os.environ.get("TF_CPU_ALLOCATOR_USE_BFC")]))
""", env={"TF_ENABLE_ONEDNN_OPTS": "1", "TENSORTRACE_TF_CPU_ALLOCATOR": "auto"})
    assert out == ["TensorFlow's (oneDNN on)", None]


def test_tf_function_calls_are_numbered(tf_child):
    assert tf_child["calls"] == 3


def test_stop_writes_the_xspace_and_the_called_functions_graph(tf_child):
    assert tf_child["xplanes"] == 1
    header, *nodes = tf_child["graph"]
    assert header.startswith("# function __inference_step_")
    assert nodes == ["x\tPlaceholder", "mul/y\tConst", "mul\tMul\tx\tmul/y", "add/y\tConst",
                     "add\tAddV2\tmul\tadd/y", "Identity\tIdentity\tadd", ""]


def test_collectives_of_a_traced_graph_with_their_bytes(tf_child):
    assert tf_child["collectives"] == [["CollectiveReduceV2", "CollectiveReduceV2", 4 * 3 * 4]]


def test_sites_of_a_traced_graph_name_the_line_that_made_each_op(tf_child):
    lines = (PRELUDE + CHILD).split("\n")
    body = lines.index("    return x * 2.0 + 1.0") + 1
    assert tf_child["sites"]["mul"][-1] == ["<string>", body, "step"]
    assert tf_child["sites"]["add"][-1] == ["<string>", body, "step"]


def test_keras_train_and_test_steps_are_reported(tf_child):
    assert tf_child["fit"] == ["start", "end"] * 3  # 12 samples in batches of 4
    assert tf_child["evaluate"] == ["start", "end"] * 2


def test_the_programs_own_profiler_calls_make_ours_step_aside(tf_child):
    assert tf_child["aside"] == ["tf.profiler.experimental.start",
                                 "tf.profiler.experimental.stop"]
