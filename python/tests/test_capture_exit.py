"""capture.py's exit paths, in a child process: the profiler is stopped and capture.json written
at normal exit, on a default-handled SIGTERM (the process still dies by it), on an uncaught
exception (the program's excepthook still runs), and never by a forked child."""
import json
import os
import signal

from conftest import run_child

# The child: a capture around an adapter that logs each start and stop with its pid.
CHILD = """
import os, signal, sys, time
from _tensortrace import capture

class Adapter:
    name, version = "fake", "1"
    def start(self, logdir, config):
        self.logdir = logdir
        self.log("start")
    def stop(self):
        self.log("stop")
    def log(self, what):
        with open(os.path.join(self.logdir, "log"), "a") as f:
            f.write("%d %s\\n" % (os.getpid(), what))

mode = sys.argv[1]
if mode == "own-handler":
    signal.signal(signal.SIGTERM, lambda *a: print("program's handler"))
c = capture.Capture(capture.Config(os.environ), Adapter())
c.start()
print("pid", os.getpid(), flush=True)
if mode in ("sigterm", "own-handler"):
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.5)
    print("still running")
elif mode == "raise":
    1 / 0
elif mode == "fork":
    child = os.fork()
    if child == 0:
        sys.exit(0)  # the child's atexit runs too: it must not stop the parent's profiler
    os.waitpid(child, 0)
"""


def run(tmp_path, mode):
    r = run_child(CHILD, env={"TENSORTRACE_DIR": str(tmp_path)}, args=(mode,))
    pid = int(r.stdout.split()[1])
    logdir = tmp_path / "xspace" / str(pid)
    doc = json.loads((logdir / "capture.json").read_text())
    log = (logdir / "log").read_text().split("\n")[:-1]
    return r, pid, doc, log


def test_normal_exit(tmp_path):
    r, pid, doc, log = run(tmp_path, "exit")
    assert r.returncode == 0, r.stderr
    assert (doc["status"], doc["message"], doc["windows"], doc["pid"]) == (
        "captured", "stopped at exit", 1, pid)
    assert log == ["%d start" % pid, "%d stop" % pid]


def test_sigterm_stops_and_the_process_dies_by_it(tmp_path):
    r, pid, doc, log = run(tmp_path, "sigterm")
    assert r.returncode == -signal.SIGTERM
    assert "still running" not in r.stdout
    assert (doc["status"], doc["message"], doc["windows"]) == (
        "captured", "stopped by signal SIGTERM", 1)
    assert log == ["%d start" % pid, "%d stop" % pid]


def test_the_programs_own_signal_handler_is_left_alone(tmp_path):
    r, pid, doc, log = run(tmp_path, "own-handler")
    assert r.returncode == 0, r.stderr
    assert "program's handler" in r.stdout and "still running" in r.stdout
    assert doc["message"] == "stopped at exit"


def test_uncaught_exception(tmp_path):
    r, pid, doc, log = run(tmp_path, "raise")
    assert r.returncode == 1
    assert r.stderr.rstrip().endswith("ZeroDivisionError: division by zero")  # Python's own hook
    assert (doc["status"], doc["message"]) == ("captured",
                                               "stopped by an uncaught ZeroDivisionError")
    assert log == ["%d start" % pid, "%d stop" % pid]


def test_a_forked_child_leaves_the_parents_capture_alone(tmp_path):
    r, pid, doc, log = run(tmp_path, "fork")
    assert r.returncode == 0, r.stderr
    assert doc["pid"] == pid and doc["message"] == "stopped at exit"
    assert log == ["%d start" % pid, "%d stop" % pid]
    assert os.listdir(tmp_path / "xspace") == [str(pid)]
