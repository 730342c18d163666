"""torch_adapter.py: its pure parts (--steps ranges, who records CUDA activities); and, in
children with torch (skipped without it), Kineto run from step A to step B as the optimizer's
steps are counted, each nn.Module call a range named by its path, the program's own profiler
making ours step aside, torch.distributed's group and rank."""
import json

import pytest

from _tensortrace import torch_adapter
from conftest import LOAD_SHIM, require, run_child, set_rank_calls


@pytest.mark.parametrize("steps,expected", [(None, (0, None)), ("", (0, None)),
                                            ("2:5", (2, 5)), (":5", (0, 5)), ("3:", (3, None)),
                                            ("0:0", (0, 0))])
def test_step_range(steps, expected):
    assert torch_adapter._step_range(steps) == expected


@pytest.mark.parametrize("value,expected", [(None, 5.0), ("", 5.0), ("2", 2.0), ("0", 0),
                                            ("0.5", 0), ("soon", 5.0)])
def test_rank_window_seconds(value, expected, capsys):
    env = {} if value is None else {"TENSORTRACE_RANK_WINDOW_S": value}
    assert torch_adapter.rank_window_seconds(env) == expected
    # A value that is not taken as given says so, in one line.
    said = capsys.readouterr().err
    assert (said != "") == (value in ("0.5", "soon")), said
    assert said.count("\n") <= 1 and ("TENSORTRACE_RANK_WINDOW_S" in said or not said)


def test_cuda_activity_needs_a_gpu_and_no_cupti_source_of_ours():
    assert torch_adapter.cuda_activity({}, True)
    assert not torch_adapter.cuda_activity({}, False)
    ours = {"CUDA_INJECTION64_PATH": "/opt/tt/lib/libtensortrace.so"}
    assert not torch_adapter.cuda_activity(ours, True)
    other = {"CUDA_INJECTION64_PATH": "/opt/other/libinjection.so"}
    assert torch_adapter.cuda_activity(other, True)


CHILD = """
import json, os, sys
from _tensortrace import capture, import_hook, torch_adapter
import_hook._FRAMEWORKS.clear()  # no capture of ours: the adapter is driven here
import_hook.install()
import torch
out, logdir, events, aside = {}, sys.argv[1], [], []
a = torch_adapter.Adapter(torch)
out["available"] = a.available
a.wrap_user_entry_points(aside.append)
a.watch_rank()
torch_adapter.mark_modules(torch)
config = capture.Config({"TENSORTRACE_DIR": logdir})

def start():
    events.append("start after step %d" % a.steps_done)
    a.start(logdir, config)

def stop():
    events.append("stop after step %d" % a.steps_done)
    a.stop()

a.when_ready(start, lambda e: events.append(repr(e)), stop=stop, steps=sys.argv[2])
model = torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.ReLU())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(5):
    opt.zero_grad()
    model(torch.ones(3, 4)).sum().backward()
    opt.step()
out.update(events=events, files=sorted(os.listdir(os.path.join(logdir, "torch"))))
with open(os.path.join(logdir, "torch", out["files"][0])) as f:
    names = [e.get("name", "") for e in json.load(f)["traceEvents"]]
out["optimizer_steps"] = sum(n.startswith("Optimizer.step#SGD.step") for n in names)
out["modules"] = sorted({n for n in names if n.startswith("nn.Module: ")})
out["aside_before"] = list(aside)
with torch.profiler.profile():
    pass
out["aside"] = aside
import torch.distributed as dist
out["info_before"] = torch_adapter.distributed_info(torch)
dist.init_process_group("gloo", init_method="file://" + os.path.join(logdir, "store"), rank=0,
                        world_size=1)
info = torch_adapter.distributed_info(torch)
out["info"] = {k: info[k] for k in ("backend", "rank", "world_size", "pg_count")}
dist.destroy_process_group()
print(json.dumps(out), flush=True)
"""


@pytest.fixture(scope="module")
def torch_child(tmp_path_factory, rank_shim):
    require("torch")
    logdir = str(tmp_path_factory.mktemp("torch"))
    r = run_child(LOAD_SHIM % rank_shim + CHILD, args=(logdir, "1:2"))
    assert r.returncode == 0, r.stderr[-4000:]
    return dict(json.loads(r.stdout.strip().splitlines()[-1]),
                set_rank=set_rank_calls(r.stdout))


def test_kineto_runs_from_step_a_to_step_b(torch_child):
    assert torch_child["available"]
    # Started at the first safe point after step 0 ended, stopped at the first after step 2.
    assert torch_child["events"] == ["start after step 1", "stop after step 3"]
    # One Kineto file, window 0, its first step 1; beside it the module tree's parameter
    # counts written at the stop (params.tsv, for the scope view's params).
    assert torch_child["files"] == ["0-s1.pt.trace.json", "params.tsv"]
    assert torch_child["optimizer_steps"] == 2  # steps 1 and 2


def test_module_calls_are_ranges_named_by_their_path(torch_child):
    assert torch_child["modules"] == ["nn.Module: Sequential", "nn.Module: Sequential/Linear_0",
                                      "nn.Module: Sequential/ReLU_1"]


def test_the_programs_own_profiler_makes_ours_step_aside(torch_child):
    assert torch_child["aside_before"] == []  # ours does not
    assert torch_child["aside"] == ["torch.profiler"]


def test_distributed_info_names_the_group(torch_child):
    assert torch_child["info_before"] is None
    assert torch_child["info"] == {"backend": "gloo", "rank": 0, "world_size": 1, "pg_count": 1}


def test_init_process_group_gives_the_rank(torch_child):
    assert torch_child["set_rank"] == [(0, 1, "torch.distributed")]


def test_a_launchers_rank_is_left_to_the_launcher(tmp_path, rank_shim):
    require("torch")
    r = run_child(LOAD_SHIM % rank_shim + """
import sys
from _tensortrace import torch_adapter
import torch.distributed as dist
torch_adapter.watch_torch_rank()
dist.init_process_group("gloo", init_method="file://" + sys.argv[1], rank=0, world_size=1)
print("rank", dist.get_rank(), flush=True)
dist.destroy_process_group()
""", env={"RANK": "0"}, args=(str(tmp_path / "store"),))
    assert r.returncode == 0, r.stderr[-4000:]
    assert "rank 0" in r.stdout
    assert set_rank_calls(r.stdout) == []  # torchrun's RANK names the rank already


class _Param:
    def __init__(self, n, trainable=True):
        self.n, self.requires_grad = n, trainable

    def numel(self):
        return self.n


class _Module:
    def __init__(self, *params):
        self._params = params

    def parameters(self):
        return iter(self._params)


def test_save_module_params_counts_trainable_parameters_per_path(tmp_path, monkeypatch):
    import weakref
    root, fc = _Module(_Param(10), _Param(5, trainable=False), _Param(3)), _Module(_Param(3))
    gone = _Module(_Param(7))
    paths = {"Net": weakref.ref(root), "Net/Linear_fc": weakref.ref(fc),
             "Net/Dropped_x": weakref.ref(gone)}
    del gone  # a module no longer alive is left out
    monkeypatch.setattr(torch_adapter, "_module_paths", paths)
    torch_adapter.save_module_params(str(tmp_path))
    text = (tmp_path / "params.tsv").read_text()
    assert text == "Net\t13\nNet/Linear_fc\t3\n"
    torch_adapter.save_module_params(str(tmp_path / "absent" / "dir"))  # never raises


BARE_LOOP = """
import json, os, sys
from _tensortrace import capture, import_hook, torch_adapter
import_hook._FRAMEWORKS.clear()  # no capture of ours: the adapter is driven here
import_hook.install()
import torch
logdir, events = sys.argv[1], []
a = torch_adapter.Adapter(torch)
a.wrap_user_entry_points(lambda who: None)
torch_adapter.mark_modules(torch)
config = capture.Config({"TENSORTRACE_DIR": logdir})

def start():
    events.append("start after step %d" % a.steps_done)
    a.start(logdir, config)

def stop():
    events.append("stop after step %d" % a.steps_done)
    a.stop()

a.when_ready(start, lambda e: events.append(repr(e)), stop=stop, steps="1:2")
model = torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.ReLU())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(5):
    for p in model.parameters():
        p.grad = None  # no zero_grad(), no DataLoader
    model(torch.ones(3, 4)).sum().backward()
    opt.step()
files = sorted(f for f in os.listdir(os.path.join(logdir, "torch")) if f.endswith(".json"))
steps = 0
for name in files:
    with open(os.path.join(logdir, "torch", name)) as f:
        steps += sum(e.get("name", "").startswith("Optimizer.step#SGD.step")
                     for e in json.load(f)["traceEvents"])
print(json.dumps({"events": events, "files": files, "optimizer_steps": steps}), flush=True)
"""


def test_a_loop_without_zero_grad_or_dataloader_switches_at_its_model_call(tmp_path):
    # The next safe point after a step: the outermost module call on the loop's thread, where
    # the loop calls neither an optimizer's zero_grad() nor a DataLoader.
    require("torch")
    r = run_child(BARE_LOOP, args=(str(tmp_path),))
    assert r.returncode == 0, r.stderr[-4000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["events"] == ["start after step 1", "stop after step 3"]
    assert out["files"] == ["0-s1.pt.trace.json"]
    assert out["optimizer_steps"] == 2  # steps 1 and 2
