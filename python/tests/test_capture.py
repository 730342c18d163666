"""capture.py: the options a recording passes in the environment, the recording's capture word,
and one capture's life (start, windows, stop; capture.json) around an adapter that records what
it is asked (a stand-in for a framework's profiler)."""
import json
import os
import struct
import time

import pytest

from _tensortrace import capture


class Adapter:
    """Records each start and stop capture.py asks of the framework's profiler."""
    name = "fake"
    version = "1.2"

    def __init__(self, narrows_steps=False):
        self.calls = []
        self.stop_times = []
        self.narrows_steps = narrows_steps

    def start(self, logdir, config):
        self.calls.append(("start", logdir))

    def stop(self):
        self.calls.append(("stop",))
        self.stop_times.append(time.time())


def config(tmp_path, **env):
    return capture.Config(dict({"TENSORTRACE_DIR": str(tmp_path)}, **env))


def read_json(c):
    with open(os.path.join(c.logdir, "capture.json")) as f:
        return json.load(f)


@pytest.fixture
def no_exit_hooks(monkeypatch):
    """Captures made in this process leave its atexit, excepthook and signals alone (the exit
    paths are tested in a child: test_capture_exit.py)."""
    monkeypatch.setattr(capture.Capture, "_hook_exit", lambda self: None)


# ---- Config: the environment `tensortrace record` sets ----

def test_config_defaults(tmp_path):
    c = config(tmp_path)
    assert (c.dir, c.host_level, c.python_tracer, c.steps, c.window_s, c.on_demand) == (
        str(tmp_path), 2, False, None, None, False)


def test_config_values(tmp_path):
    c = config(tmp_path, TENSORTRACE_TF_HOST_LEVEL="3", TENSORTRACE_PYTHON_TRACER="1",
               TENSORTRACE_STEPS="2:5", TENSORTRACE_WINDOW_S="2.5", TENSORTRACE_ON_DEMAND="1")
    assert (c.host_level, c.python_tracer, c.steps, c.window_s, c.on_demand) == (
        3, True, "2:5", 2.5, True)


def test_config_empty_values_are_the_defaults(tmp_path):
    c = config(tmp_path, TENSORTRACE_TF_HOST_LEVEL="", TENSORTRACE_STEPS="",
               TENSORTRACE_WINDOW_S="", TENSORTRACE_PYTHON_TRACER="yes", TENSORTRACE_ON_DEMAND="0")
    assert (c.host_level, c.steps, c.window_s, c.python_tracer, c.on_demand) == (
        2, None, None, False, False)


@pytest.mark.parametrize("env", [{"TENSORTRACE_TF_HOST_LEVEL": "0"},
                                 {"TENSORTRACE_TF_HOST_LEVEL": "4"},
                                 {"TENSORTRACE_TF_HOST_LEVEL": "two"},
                                 {"TENSORTRACE_WINDOW_S": "0.5"},
                                 {"TENSORTRACE_WINDOW_S": "soon"}])
def test_config_bad_values_raise(tmp_path, env):
    with pytest.raises(ValueError):
        config(tmp_path, **env)


def test_config_needs_the_trace_directory():
    with pytest.raises(KeyError):
        capture.Config({})


# ---- The capture word (DIR/losses: open at 16, steps at 20, target at 24) ----

def losses(tmp_path, open_=0, steps=0, target=0):
    page = bytearray(4096)
    struct.pack_into("<III", page, 16, open_, steps, target)
    (tmp_path / "losses").write_bytes(bytes(page))


def word_at(tmp_path, offset):
    return struct.unpack_from("<I", (tmp_path / "losses").read_bytes(), offset)[0]


def test_word_open_follows_the_file(tmp_path):
    losses(tmp_path)
    w = capture.CaptureWord(str(tmp_path))
    assert not w.open()
    with open(tmp_path / "losses", "r+b") as f:
        f.seek(16)
        f.write(struct.pack("<I", 7))
    assert w.open()  # the same mapping sees record's write


def test_word_counts_steps_up_to_its_target(tmp_path):
    losses(tmp_path, open_=1, steps=0, target=3)
    w = capture.CaptureWord(str(tmp_path))
    assert [w.count_step() for _ in range(4)] == [False, False, True, True]
    assert word_at(tmp_path, 20) == 4


def test_word_without_target_never_completes(tmp_path):
    losses(tmp_path, open_=1)
    w = capture.CaptureWord(str(tmp_path))
    assert not any(w.count_step() for _ in range(5))
    assert word_at(tmp_path, 20) == 5


def test_word_step_count_wraps_around(tmp_path):
    losses(tmp_path, open_=1, steps=0xFFFFFFFE, target=1)
    w = capture.CaptureWord(str(tmp_path))
    assert not w.count_step()  # 0xFFFFFFFF: before the target, modulo 2**32
    assert not w.count_step()  # 0
    assert w.count_step()  # 1
    assert word_at(tmp_path, 20) == 1


# ---- One capture: start, stop, capture.json ----

def test_start_and_stop_write_capture_json(tmp_path, no_exit_hooks):
    a = Adapter()
    c = capture.Capture(config(tmp_path, TENSORTRACE_STEPS="1:2"), a)
    assert c.logdir == os.path.join(str(tmp_path), "xspace", str(os.getpid()))
    c.start()
    assert a.calls == [("start", c.logdir)]
    doc = read_json(c)
    # What a killed process leaves behind.
    assert doc["status"] == "error"
    assert "ended before it was stopped" in doc["message"]
    before = time.time_ns()
    c.stop()
    c.stop()  # once only
    assert a.calls == [("start", c.logdir), ("stop",)]
    doc = read_json(c)
    assert (doc["status"], doc["message"], doc["windows"]) == ("captured", "stopped", 1)
    assert (doc["pid"], doc["framework"], doc["version"]) == (os.getpid(), "fake", "1.2")
    assert (doc["host_tracer_level"], doc["python_tracer"], doc["steps"], doc["window_s"]) == (
        2, False, "1:2", None)
    [[first, last]] = doc["window_times"]
    assert first <= before <= last
    assert os.listdir(c.logdir) == ["capture.json"]  # written atomically: no temporary left


def test_capture_json_names_what_decides_tensorflows_allocator(tmp_path, monkeypatch):
    monkeypatch.setenv("TF_ENABLE_ONEDNN_OPTS", "0")
    monkeypatch.delenv("TF_CPU_ALLOCATOR_USE_BFC", raising=False)
    a = Adapter()
    a.cpu_allocator = "bfc (oneDNN off)"
    c = capture.Capture(config(tmp_path), a)
    c.write_json("captured", "m")
    doc = read_json(c)
    assert doc["env"] == {"TF_ENABLE_ONEDNN_OPTS": "0", "TF_CPU_ALLOCATOR_USE_BFC": None}
    assert doc["tf_cpu_allocator"] == "bfc (oneDNN off)"
    other = capture.Capture(config(tmp_path), Adapter())  # an adapter that chooses nothing
    other.write_json("captured", "m")
    assert read_json(other)["tf_cpu_allocator"] is None


def test_the_programs_own_profiler_makes_ours_step_aside(tmp_path, no_exit_hooks, capsys):
    a = Adapter()
    c = capture.Capture(config(tmp_path), a)
    c.start()
    c.step_aside("tf.profiler.experimental.start")
    c.step_aside("tf.profiler.experimental.stop")  # already aside: no second stop or warning
    assert a.calls == [("start", c.logdir), ("stop",)]
    doc = read_json(c)
    assert doc["status"] == "stepped_aside"
    assert "the program called tf.profiler.experimental.start" in doc["message"]
    assert capsys.readouterr().err == (
        "tensortrace: warning: the program called tf.profiler.experimental.start: tensortrace "
        "stopped its fake capture (1 window(s) kept) so the program's own profile works\n")


def test_a_failed_start_is_reported(tmp_path, capsys):
    c = capture.Capture(config(tmp_path), Adapter())
    c.start_failed(RuntimeError("no profiler here"))
    assert c.done
    doc = read_json(c)
    assert doc["status"] == "error"
    assert doc["message"] == "fake while starting the profiler: RuntimeError: no profiler here"
    assert capsys.readouterr().err == "tensortrace: warning: " + doc["message"] + "\n"
    c.stop()
    assert read_json(c)["status"] == "error"  # nothing more once done


def test_rotate_writes_one_window_per_wall_second(tmp_path, no_exit_hooks):
    a = Adapter()
    c = capture.Capture(config(tmp_path), a)
    c.start()
    assert c.rotate() and c.rotate()
    c.stop()
    assert not c.rotate()  # stopped: no new window
    assert a.calls == [("start", c.logdir), ("stop",)] * 3
    # The framework names each window's run directory by its wall second: one per second.
    assert len({int(t) for t in a.stop_times}) == 3
    doc = read_json(c)
    assert doc["windows"] == 3
    times = doc["window_times"]
    assert all(a_ <= b_ for a_, b_ in times)
    assert all(times[i][1] <= times[i + 1][0] for i in range(2))


# ---- Windows: every TENSORTRACE_WINDOW_S seconds, and on demand ----

def wait_until(predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_window_thread_rotates_where_no_step_runs(tmp_path, no_exit_hooks):
    a = Adapter()
    c = capture.Capture(config(tmp_path, TENSORTRACE_WINDOW_S="1"), a)
    c.start()
    try:
        assert wait_until(lambda: c.windows >= 2)
    finally:
        c.stop()
    assert a.calls[:4] == [("start", c.logdir), ("stop",), ("start", c.logdir), ("stop",)]


def test_a_due_window_ends_between_two_steps_not_inside_one(tmp_path, no_exit_hooks):
    a = Adapter()
    c = capture.Capture(config(tmp_path, TENSORTRACE_WINDOW_S="1"), a)
    c.start()
    try:
        c.step_starts()  # a long step: the window thread marks the window due, and waits
        assert wait_until(lambda: c.due)
        assert c.windows == 0 and a.calls == [("start", c.logdir)]
        c.between_steps()  # the step's end writes it, and the next window starts
        assert c.windows == 1 and not c.due
        assert a.calls == [("start", c.logdir), ("stop",), ("start", c.logdir)]
    finally:
        c.stop()


def on_demand(tmp_path, narrows_steps=True, target=0):
    losses(tmp_path, target=target)
    a = Adapter(narrows_steps=narrows_steps)
    c = capture.Capture(config(tmp_path, TENSORTRACE_ON_DEMAND="1"), a)
    c.start()
    return a, c


def set_word(tmp_path, value):
    with open(tmp_path / "losses", "r+b") as f:
        f.seek(16)
        f.write(struct.pack("<I", value))


def test_on_demand_runs_the_profiler_in_the_words_windows_only(tmp_path, no_exit_hooks):
    a, c = on_demand(tmp_path)
    assert a.calls == []
    assert (read_json(c)["status"], read_json(c)["message"]) == (
        "captured", "on demand: no capture window yet")
    assert c.open_window()  # the word is closed: nothing starts, capturing goes on
    assert a.calls == []
    set_word(tmp_path, 1)
    assert c.open_window() and c.active
    assert read_json(c)["message"] == (
        "capturing window 1; the process ended before the profiler was stopped")
    c.close_window()
    assert a.calls == [("start", c.logdir), ("stop",)]
    assert read_json(c)["message"] == "on demand: 1 window(s) captured"
    c.stop()
    assert read_json(c)["message"] == "stopped (on demand: 1 window(s) captured)"


def test_on_demand_window_closes_itself_after_its_steps(tmp_path, no_exit_hooks):
    a, c = on_demand(tmp_path, target=2)
    c.step_starts()  # begins before the window opens: not a captured step
    set_word(tmp_path, 1)
    c.open_window()
    c.between_steps()
    assert word_at(tmp_path, 20) == 0 and c.active
    for _ in range(2):
        c.step_starts()
        c.between_steps()
    assert word_at(tmp_path, 20) == 2
    assert not c.active and c.windows == 1
    assert a.calls == [("start", c.logdir), ("stop",)]


def test_on_demand_thread_follows_the_word(tmp_path, no_exit_hooks):
    a, c = on_demand(tmp_path, narrows_steps=False)
    try:
        set_word(tmp_path, 1)
        assert wait_until(lambda: c.active)
        set_word(tmp_path, 0)
        assert wait_until(lambda: c.windows == 1 and not c.active)
    finally:
        c.stop()
    assert a.calls == [("start", c.logdir), ("stop",)]
