"""keras_steps.py: Keras 3's torch trainer's steps numbered as torch.profiler's ProfilerStep#N
ranges, and reported to capture.py before and after each step. On a trainer class of the
same shape as Keras's (in this process), and on Keras itself in a child (skipped without
Keras or torch)."""
import sys
import types

import pytest

from _tensortrace import keras_steps
from conftest import child_json, require

TRAINER = "keras.src.backend.torch.trainer"


@pytest.fixture
def trainer(monkeypatch):
    """A module of Keras's name holding a TorchTrainer whose make_train_function sets
    self.train_function, as Keras's does; steps numbered in it (watch_torch_trainer)."""
    pytest.importorskip("torch")

    class TorchTrainer:
        made = 0

        def make_train_function(self, force=False):
            TorchTrainer.made += 1

            def train_function(batch):
                if batch == "bad":
                    raise ValueError("bad batch")
                return batch * 2

            self.train_function = train_function
            return train_function

    mod = types.ModuleType(TRAINER)
    mod.TorchTrainer = TorchTrainer
    monkeypatch.setitem(sys.modules, TRAINER, mod)
    calls = []
    keras_steps.watch_torch_trainer(lambda: calls.append("start"), lambda: calls.append("end"))
    return TorchTrainer, calls


def test_each_train_call_is_a_profiler_step(trainer):
    import torch

    cls, calls = trainer
    t = cls()
    fn = t.make_train_function()
    assert fn is t.train_function
    with torch.autograd.profiler.profile() as prof:
        assert [fn(1), fn(2), fn(3)] == [2, 4, 6]  # the program's results are unchanged
    assert calls == ["start", "end"] * 3
    steps = [e.name for e in prof.function_events if e.name.startswith("ProfilerStep")]
    assert len(steps) == 3


def test_a_step_that_raises_still_ends(trainer):
    cls, calls = trainer
    fn = cls().make_train_function()
    with pytest.raises(ValueError, match="bad batch"):
        fn("bad")
    assert calls == ["start", "end"]


def test_wrapped_once(trainer):
    cls, calls = trainer
    keras_steps.watch_torch_trainer(lambda: calls.append("again"), lambda: None)  # ignored
    t = cls()
    t.make_train_function()
    t.make_train_function()  # Keras makes it again (force=True): one numbering still
    t.train_function(1)
    assert calls == ["start", "end"] and cls.made == 2
    assert t.train_function._tensortrace_step


CHILD = """
import json, sys
from _tensortrace import import_hook, keras_steps
import_hook._FRAMEWORKS.clear()  # no capture of ours: only the steps are numbered
import_hook.install()
calls = []
keras_steps.watch_torch_trainer(lambda: calls.append("start"), lambda: calls.append("end"))
import numpy as np
import keras
import torch
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
with torch.autograd.profiler.profile() as prof:
    model.fit(np.zeros((12, 2)), np.zeros((12, 1)), batch_size=4, epochs=1, verbose=0)
prof.export_chrome_trace(sys.argv[1])
with open(sys.argv[1]) as f:
    steps = [e["name"] for e in json.load(f)["traceEvents"]
             if e.get("name", "").startswith("ProfilerStep#")]
print(json.dumps({"backend": keras.backend.backend(), "calls": calls, "steps": steps}))
"""


def test_keras_fit_on_torch_has_numbered_steps(tmp_path):
    require("keras")
    require("torch")
    out = child_json(CHILD, env={"KERAS_BACKEND": "torch"}, args=(str(tmp_path / "t.json"),))
    assert out["backend"] == "torch"
    assert out["calls"] == ["start", "end"] * 3  # 12 samples in batches of 4
    assert out["steps"] == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"]
