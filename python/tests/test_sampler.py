"""sampler.py: the sampling period from the environment, frame numbering (each frame defined
once, before its first use; the bootstrap's own frames left out), op creation sites, and the
stacks of the process's threads, all as sent to the runtime's tt_py_* functions (here a stand-in
that records each call)."""
import os
import threading
import time

import pytest

from _tensortrace import sampler


class Runtime:
    """Records the tt_py_* calls the sampler makes (the preloaded runtime's C API)."""

    def __init__(self, enabled=True):
        self.calls = []
        self.enabled = enabled

    def tt_py_frame(self, n, text):
        self.calls.append(("frame", n, text.decode()))

    def tt_py_sample(self, tid, stack, since, at):
        self.calls.append(("sample", tid, stack.decode(), since, at))

    def tt_py_site(self, op, ids):
        self.calls.append(("site", op.decode(), ids.decode()))

    def tt_set_thread_name(self, name):
        self.calls.append(("thread", name.decode()))

    def tt_enabled(self):
        return self.enabled

    def frames(self):
        return {n: text for kind, n, text, *_ in self.calls if kind == "frame"}


@pytest.mark.parametrize("text,interval", [(None, None), ("5", 0.005), ("0", 0.0),
                                           ("0.5", 0.0005)])
def test_interval_from_env(text, interval):
    env = {} if text is None else {"TENSORTRACE_PYTHON_SAMPLE_MS": text}
    assert sampler.interval_from_env(env) == interval


@pytest.mark.parametrize("text", ["-1", "often"])
def test_interval_from_env_bad(text):
    with pytest.raises(ValueError):
        sampler.interval_from_env({"TENSORTRACE_PYTHON_SAMPLE_MS": text})


def test_own_frames_are_left_out_and_others_numbered_once():
    s = sampler.Sampler(Runtime(), 0.0)
    own = compile("pass", os.path.join(sampler._OWN_DIR, "capture.py"), "exec")

    def program_function():
        pass

    code = program_function.__code__
    assert s._frame((own, 3)) == 0
    assert s._frame((code, 10)) == 1
    assert s._frame((code, 11)) == 2  # another line: another frame
    assert s._frame((code, 10)) == 1
    qualname = code.co_qualname if hasattr(code, "co_qualname") else code.co_name
    assert s.undefined == [(1, "%s:10:%s" % (code.co_filename, qualname)),
                           (2, "%s:11:%s" % (code.co_filename, qualname))]
    # Innermost first in, outermost first out; the bootstrap's frame dropped.
    assert s._stack([(code, 11), (own, 3), (code, 10)]) == "1,2"


def test_sites_define_their_frames_first_and_once():
    rt = Runtime()
    s = sampler.Sampler(rt, 0.0)
    own = os.path.join(sampler._OWN_DIR, "tf_sites.py")
    s.add_sites([("model/dense/MatMul", [("/p/train.py", 3, "main"), (own, 9, "traced"),
                                         ("/p/model.py", 7, "call")]),
                 ("model/dense/BiasAdd", [("/p/train.py", 3, "main")])])
    s._write_sites()
    assert rt.calls == [("frame", 1, "/p/train.py:3:main"), ("frame", 2, "/p/model.py:7:call"),
                        ("site", "model/dense/MatMul", "1,2"),
                        ("site", "model/dense/BiasAdd", "1")]


def test_forgotten_frames_are_numbered_and_defined_again():
    rt = Runtime()
    s = sampler.Sampler(rt, 0.0)
    s.add_sites([("a", [("/p/x.py", 1, "f")])])
    s._write_sites()
    s._forget()  # a silent spell between capture windows: what was defined may be lost
    s.add_sites([("b", [("/p/x.py", 1, "f")])])
    s._write_sites()
    assert rt.calls[2:] == [("frame", 2, "/p/x.py:1:f"), ("site", "b", "2")]


def tt_blocked_here(event):
    event.wait()


def test_a_threads_stack_is_sampled_when_it_changed_only():
    rt = Runtime()
    s = sampler.Sampler(rt, 0.0)
    go = threading.Event()
    t = threading.Thread(target=tt_blocked_here, args=(go,))
    t.start()
    try:
        time.sleep(0.1)  # blocked in Event.wait by now
        me = threading.get_ident()
        s._sample(me)
        s._sample(me)
    finally:
        go.set()
        t.join()
    mine = [c for c in rt.calls if c[0] == "sample" and c[1] == t.native_id]
    assert len(mine) == 1  # unchanged at the second look: no sample
    _, _, stack, since, at = mine[0]
    assert since == 0 and at > 0  # not seen before
    frames = rt.frames()
    texts = [frames[int(n)] for n in stack.split(",")]
    assert texts[0].endswith(":Thread._bootstrap")  # outermost first, by qualified name
    assert [x.rsplit(":", 1)[1] for x in texts[-3:]] == [
        "tt_blocked_here", "Event.wait", "Condition.wait"]  # innermost last
    line = tt_blocked_here.__code__.co_firstlineno + 1
    assert texts[-3] == "%s:%d:tt_blocked_here" % (__file__, line)
    assert not any(c[0] == "sample" and c[1] == threading.get_native_id() for c in rt.calls)


def test_nothing_is_written_while_the_runtime_is_disabled():
    rt = Runtime(enabled=False)
    s = sampler.Sampler(rt, 0.0)
    s.add_sites([("op", [("/p/x.py", 1, "f")])])
    s.start()
    time.sleep(0.2)  # several looks of the thread (every 50 ms)
    assert rt.calls == [("thread", "tensortrace-python")]
    rt.enabled = True
    s.finish()  # one last look, at exit
    assert rt.calls[1:] == [("frame", 1, "/p/x.py:1:f"), ("site", "op", "1")]


def test_without_the_runtime_nothing_starts():
    # This process has no runtime preloaded (no tt_armed): no sampler, no thread.
    assert sampler.start() is None
    assert sampler._sampler is None
    assert not any(t.name == sampler.THREAD_NAME for t in threading.enumerate())
    sampler.add_sites([("op", [("/p/x.py", 1, "f")])])  # and nothing to queue to
