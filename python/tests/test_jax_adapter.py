"""jax_adapter.py, in children with JAX (skipped without it): the profiler started right after
the program's first backend initialisation (not at `import jax`), StepTraceAnnotation's steps
reported, the program's own profiler calls making ours step aside, and JAX's process index
passed on as the trace's rank."""
import pytest

from conftest import LOAD_SHIM, child_json, require, run_child, set_rank_calls

CHILD = """
import glob, json, os, sys
from _tensortrace import capture, jax_adapter
import jax
from jax._src import xla_bridge
out, logdir, events = {}, sys.argv[1], []
a = jax_adapter.Adapter(jax)
out.update(available=a.available, version=a.version == jax.__version__)
orig_backends = xla_bridge.backends

def start():
    events.append("start")
    a.start(logdir, capture.Config({"TENSORTRACE_DIR": logdir}))

a.when_ready(start, lambda e: events.append("error %r" % e))
out.update(at_import=list(events), waiting=xla_bridge.backends is not orig_backends)
import jax.numpy as jnp
(jnp.arange(4.0) * 2).block_until_ready()
out.update(at_first_use=list(events), restored=xla_bridge.backends is orig_backends)
steps = []
a.number_steps(lambda: steps.append("start"), lambda: steps.append("end"))
for i in range(2):
    with jax.profiler.StepTraceAnnotation("train", step_num=i):
        steps.append("body %d" % i)
try:
    with jax.profiler.StepTraceAnnotation("train", step_num=2):
        raise KeyError("in the step")
except KeyError:
    steps.append("raised")
out["steps"] = steps
a.stop()
out["xplanes"] = len(glob.glob(os.path.join(logdir, "plugins", "profile", "*", "*.xplane.pb")))
aside = []
a.wrap_user_entry_points(aside.append)
jax.profiler.start_trace(os.path.join(logdir, "own"))
jax.profiler.stop_trace()
out["aside"] = aside
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def jax_child(tmp_path_factory):
    require("jax")
    logdir = str(tmp_path_factory.mktemp("jax"))
    return child_json(CHILD, env={"JAX_PLATFORMS": "cpu"}, args=(logdir,))


def test_adapter_available_with_jaxs_version(jax_child):
    assert jax_child["available"] and jax_child["version"]


def test_profiler_starts_at_the_first_backend_initialisation(jax_child):
    assert jax_child["at_import"] == [] and jax_child["waiting"]
    assert jax_child["at_first_use"] == ["start"]
    assert jax_child["restored"]  # JAX's own xla_bridge.backends again


def test_step_annotations_are_reported_around_each_step(jax_child):
    assert jax_child["steps"] == ["start", "body 0", "end", "start", "body 1", "end",
                                  "start", "end", "raised"]  # a step that raises ends too


def test_stop_writes_the_xspace(jax_child):
    assert jax_child["xplanes"] == 1


def test_the_programs_own_profiler_calls_make_ours_step_aside(jax_child):
    assert jax_child["aside"] == ["jax.profiler.start_trace", "jax.profiler.stop_trace"]


def test_process_index_becomes_the_rank(rank_shim):
    require("jax")
    r = run_child(LOAD_SHIM % rank_shim + """
import socket
from _tensortrace import jax_adapter
import jax
jax_adapter.Adapter(jax).watch_rank()
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
jax.distributed.initialize(coordinator_address="127.0.0.1:%d" % port, num_processes=1,
                           process_id=0)
print("process_index", jax.process_index(), flush=True)
jax.distributed.shutdown()
""", env={"JAX_PLATFORMS": "cpu"})
    assert r.returncode == 0, r.stderr[-4000:]
    assert set_rank_calls(r.stdout) == [(0, 1, "jax.process_index")]
    assert "process_index 0" in r.stdout
