"""One capture of a framework's own profiler in this process: start, windows, stop, capture.json.

The profiler is stopped (and its XSpace written) at normal exit (atexit), on SIGTERM/SIGHUP/
SIGINT whose handler is the default one (then the signal is raised again, so the exit status
stays what it would be), on an uncaught exception (sys.excepthook, chained), and when the
program starts the framework's profiler itself (then ours steps aside with one warning).
Options come from the environment that `tensortrace record` sets:
  TENSORTRACE_DIR             the trace directory; the capture goes to xspace/<pid>/
  TENSORTRACE_TF_HOST_LEVEL   host tracer level 1..3 (default 2)
  TENSORTRACE_PYTHON_TRACER   1: the framework's Python tracer on
  TENSORTRACE_STEPS           "A:B": steps the importer keeps (the capture is not narrowed)
  TENSORTRACE_WINDOW_S        N: stop and restart the profiler every N seconds (between two
                              steps where the adapter numbers them: Keras 3)
  TENSORTRACE_TF_CPU_ALLOCATOR  auto: TensorFlow's CPU allocator a BFC one when oneDNN is off
                              (tf_adapter.choose_cpu_allocator says why)
  TENSORTRACE_ON_DEMAND       1: the profiler runs only in the recording's capture windows
                              (record --on-demand, --every), which the loss page's capture word
                              opens and closes (format/loss_page.h)
Adapters may number the framework's steps (tf_adapter.py: Keras 3's train/test/predict calls).
"""
import importlib
import os
import sys
import time

from _tensortrace import frameworks

_capture = None  # the Capture of this process, once a framework is imported


class Config:
    def __init__(self, env):
        self.dir = env["TENSORTRACE_DIR"]
        self.host_level = int(env.get("TENSORTRACE_TF_HOST_LEVEL") or 2)
        if not 1 <= self.host_level <= 3:
            raise ValueError("TENSORTRACE_TF_HOST_LEVEL must be 1, 2 or 3")
        self.python_tracer = env.get("TENSORTRACE_PYTHON_TRACER", "0") == "1"
        self.steps = env.get("TENSORTRACE_STEPS") or None
        w = env.get("TENSORTRACE_WINDOW_S")
        self.window_s = float(w) if w else None
        if self.window_s is not None and self.window_s < 1:
            raise ValueError("TENSORTRACE_WINDOW_S must be at least 1")
        self.on_demand = env.get("TENSORTRACE_ON_DEMAND") == "1"


class CaptureWord:
    """The recording's capture word (DIR/losses, offset 16): nonzero while a window is open;
    and its step count (offset 20): the steps that ended while this process's framework
    profiler captured, which `capture --steps N` waits on until it reaches the target at offset
    24 (0: none), where the process closes its window itself, at that step's end."""

    OFFSET, STEPS, TARGET = 16, 20, 24

    def __init__(self, trace_dir):
        import mmap

        with open(os.path.join(trace_dir, "losses"), "r+b") as f:
            self._map = mmap.mmap(f.fileno(), 4096)

    def open(self):
        import struct

        return struct.unpack_from("<I", self._map, self.OFFSET)[0] != 0

    def count_step(self):
        """Counts a step; True when that reaches the window's step target."""
        import struct

        n = (struct.unpack_from("<I", self._map, self.STEPS)[0] + 1) & 0xFFFFFFFF
        struct.pack_into("<I", self._map, self.STEPS, n)
        target = struct.unpack_from("<I", self._map, self.TARGET)[0]
        return target != 0 and ((n - target) & 0xFFFFFFFF) < 0x80000000


def _warn(text):
    try:
        sys.stderr.write("tensortrace: warning: %s\n" % text)
        sys.stderr.flush()
    except Exception:
        pass


class Capture:
    def __init__(self, config, adapter):
        import threading

        self.config = config
        self.adapter = adapter
        self.pid = os.getpid()
        self.logdir = os.path.join(config.dir, "xspace", str(self.pid))
        self.lock = threading.RLock()
        self.active = False  # a profiler session of ours is running
        self.done = False  # stopped for good (exit, signal, exception, stepped aside)
        self.windows = 0  # capture windows written
        self.last_export = None  # wall second of the last export (run directories are per second)
        self.wake = threading.Event()
        self.prev_signal = {}
        self.exporting = None  # the thread inside _export (a signal then waits for it)
        self.pending_signal = None
        # Windows end between two steps where the adapter numbers them (Keras 3): the window
        # thread marks one due and the next step's end writes it (between_steps).
        self.due = False
        self.steps_seen = False  # a step ended since the window thread last looked
        self.in_step = False  # a numbered step runs now
        self.window_times = []  # [start, end] realtime ns of each window written
        self.window_start = None
        self.step_began_active = False  # on demand: the step now ending began in a window

    # capture.json, the contract with the importer (see docs/trace-format.md).
    def write_json(self, status, message):
        import json

        doc = {
            "pid": self.pid,
            "framework": self.adapter.name,
            "version": self.adapter.version,
            "host_tracer_level": self.config.host_level,
            "python_tracer": self.config.python_tracer,
            "steps": self.config.steps,
            "window_s": self.config.window_s,
            "windows": self.windows,
            # Per window written: [first, last] CLOCK_REALTIME ns it surely covers (from its
            # profiler's start returning to its stop being asked): events between two windows
            # are lost, and `info` says which steps were around each gap.
            "window_times": self.window_times,
            "status": status,
            "message": message,
            # What decides TensorFlow's CPU allocator (and so whether it reports allocations).
            "env": {k: os.environ.get(k) for k in ("TF_ENABLE_ONEDNN_OPTS",
                                                   "TF_CPU_ALLOCATOR_USE_BFC")},
            # Who chose TensorFlow's CPU allocator under record's --tf-cpu-allocator auto.
            "tf_cpu_allocator": getattr(self.adapter, "cpu_allocator", None),
        }
        os.makedirs(self.logdir, exist_ok=True)
        tmp = os.path.join(self.logdir, ".capture.json.tmp")
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        os.replace(tmp, os.path.join(self.logdir, "capture.json"))

    def start(self):
        if self.config.on_demand:
            return self._start_on_demand()
        with self.lock:
            os.makedirs(self.logdir, exist_ok=True)
            # Until a stop overwrites it, this is what a killed process leaves behind.
            self.write_json(
                "error", "the profiler was started but the process ended before it was stopped "
                "(SIGKILL, os._exit or a crash)")
            self.adapter.start(self.logdir, self.config)
            self.window_start = time.time_ns()
            self.active = True
        import atexit

        self._hook_exit()
        if self.config.window_s and not getattr(self.adapter, "narrows_steps", False):
            import threading

            threading.Thread(target=self._windows, name="tensortrace-window", daemon=True).start()

    def _hook_exit(self):
        import atexit

        atexit.register(self.stop, "captured", "stopped at exit")
        self._hook_exceptions()
        self._hook_signals()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._forked)

    def _start_on_demand(self):
        """The profiler runs in the recording's capture windows only: a thread of ours follows
        the capture word (every 50 ms) and starts and stops it. Adapters that can only switch on
        the program's thread (PyTorch) ask want_window() at their step boundaries instead."""
        import threading

        self.word = CaptureWord(self.config.dir)
        os.makedirs(self.logdir, exist_ok=True)
        self.write_json("captured", "on demand: no capture window yet")
        self._hook_exit()
        if not getattr(self.adapter, "narrows_steps", False):
            threading.Thread(target=self._follow_word, name="tensortrace-window",
                             daemon=True).start()

    def want_window(self):
        return self.word.open()

    def step_ended(self):
        """A step ended (Keras): counted for `capture --steps` if the window was open all
        through it; True when the window has its steps (the caller closes it now)."""
        began, self.step_began_active = self.step_began_active, self.active
        return began and self.count_captured_step()

    def count_captured_step(self):
        """A step captured whole ended; True when that completes the window's steps."""
        return self.active and self.word.count_step()

    def open_window(self):
        """Starts the profiler for a capture window; False when capturing is over."""
        with self.lock:
            # Asked again under the lock: a window this process closed itself (its steps
            # counted) stays closed while `record` has not yet cleared the word.
            if self.done or self.active or not self.want_window():
                return not self.done
            try:
                self.write_json("error", "capturing window %d; the process ended before the "
                                "profiler was stopped" % (self.windows + 1))
                self.adapter.start(self.logdir, self.config)
                self.window_start = time.time_ns()
                self.active = True
                return True
            except Exception as e:
                self.done = True
                self._report(e, "while starting a capture window")
                return False

    def close_window(self):
        """Stops the profiler at a window's end: its XSpace written."""
        with self.lock:
            if self.done or not self.active:
                return
            try:
                self._export()
                self.write_json("captured", "on demand: %d window(s) captured" % self.windows)
            except Exception as e:
                self.done = True
                self._report(e, "while ending a capture window")

    def _follow_word(self):
        while not self.wake.wait(0.05):
            want = self.want_window()
            if want and not self.active:
                if not self.open_window():
                    return
            elif not want and self.active:
                self.close_window()
            if self.done:
                return

    def _export(self):
        """Stops our session and writes its XSpace; at most one export per wall second."""
        import threading
        import time

        if self.last_export is not None and int(time.time()) == self.last_export:
            time.sleep(1.0 - (time.time() % 1.0) + 0.01)
        self.active = False
        self.exporting = threading.get_ident()
        try:
            end = time.time_ns()
            self.adapter.stop()
            if self.window_start is not None:
                self.window_times.append([self.window_start, end])
            self.last_export = int(time.time())
            self.windows += 1
        finally:
            self.exporting = None
        if self.pending_signal is not None:
            self._die(self.pending_signal)

    def _windows(self):
        while not self.wake.wait(self.config.window_s):
            with self.lock:
                if self.done or not self.active:
                    return
                if self.in_step or self.steps_seen:
                    # Steps are running: the next one's end closes the window, so that no
                    # step falls in the gap while the window is written.
                    self.steps_seen = False
                    self.due = True
                    continue
                # No step ended for a whole window (not Keras, or between fits): now.
                self.due = False
                if not self._next_window():
                    return

    def step_starts(self):
        """Called by the adapter before each step it numbers."""
        self.in_step = True
        self.step_began_active = self.active

    def between_steps(self):
        """Called by the adapter after each step: writes a due window there."""
        self.in_step = False
        self.steps_seen = True
        if self.config.on_demand and self.step_ended():
            self.close_window()
        if not self.due:
            return
        with self.lock:
            if self.done or not self.active or not self.due:
                return
            self.due = False
            self._next_window()

    def rotate(self):
        """Ends the window and starts the next now, on the calling thread; False when capturing
        is over. For adapters that switch windows at their own step boundaries and cannot be
        stopped from the window thread (torch_adapter.py: Kineto stops only on the thread it
        started on; no window thread runs for them)."""
        with self.lock:
            if self.done or not self.active:
                return False
            return self._next_window()

    def _next_window(self):
        """Ends the current window (its XSpace written) and starts the next; False on error."""
        try:
            self._export()
            self.adapter.start(self.logdir, self.config)
            self.window_start = time.time_ns()
            self.active = True
            self.write_json("error", "capturing window %d; the process ended before the "
                            "profiler was stopped" % (self.windows + 1))
            return True
        except Exception as e:
            self.done = True
            self._report(e, "while starting a new capture window")
            return False

    def stop(self, status="captured", message="stopped"):
        with self.lock:
            if self.done or os.getpid() != self.pid:
                return
            self.done = True
            self.wake.set()
            try:
                if self.active:
                    self._export()
                if self.config.on_demand and status == "captured":
                    message += " (on demand: %d window(s) captured)" % self.windows
                self.write_json(status, message)
            except Exception as e:
                self._report(e, "while stopping the profiler")

    def step_aside(self, what):
        """The program starts the framework's profiler itself: ours stops first."""
        with self.lock:
            if self.done or os.getpid() != self.pid:
                return
        self.stop("stepped_aside", "the program called %s; tensortrace's capture stopped "
                  "there so that the program's own profiler works" % what)
        _warn("the program called %s: tensortrace stopped its %s capture (%d window(s) kept) "
              "so the program's own profile works" % (what, self.adapter.name, self.windows))

    def start_failed(self, e):
        self.done = True  # nothing of ours runs; the program's own profiler calls go through
        self._report(e, "while starting the profiler")

    def _report(self, e, when):
        msg = "%s %s: %s: %s" % (self.adapter.name, when, type(e).__name__, e)
        _warn(msg)
        try:
            self.write_json("error", msg)
        except Exception:
            pass

    def _forked(self):
        # The child has a copy of our state but not the profiler's threads: leave it alone.
        self.done = True
        self.active = False

    def _hook_exceptions(self):
        prev = sys.excepthook

        def excepthook(typ, value, tb):
            try:
                self.stop("captured", "stopped by an uncaught %s" % typ.__name__)
            except Exception:
                pass
            prev(typ, value, tb)

        sys.excepthook = excepthook

    def _hook_signals(self):
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return  # only the main thread may set handlers; atexit still covers normal exits
        for name in ("SIGTERM", "SIGHUP", "SIGINT"):
            sig = getattr(signal, name, None)
            if sig is None:
                continue
            prev = signal.getsignal(sig)
            # Python's own SIGINT handler raises KeyboardInterrupt, which ends in atexit (or is
            # caught and the program goes on): only the default action needs us.
            if prev not in (signal.SIG_DFL, None):
                continue
            self.prev_signal[sig] = prev
            signal.signal(sig, self._on_signal)

    def _on_signal(self, sig, frame):
        import signal

        import threading

        if self.exporting == threading.get_ident():
            # This (main) thread was writing the XSpace when the signal came: let it finish.
            # (Another thread's export is waited for by stop(), through the lock.)
            self.pending_signal = sig
            return
        self.stop("captured", "stopped by signal %s" % signal.Signals(sig).name)
        self._die(sig)

    def _die(self, sig):
        """The default action, as without us: the process ends by the same signal."""
        import signal

        try:
            self.write_json("captured", "stopped by signal %s" % signal.Signals(sig).name)
        except Exception:
            pass
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)


def on_framework_imported(framework, module):
    """Called by the import hook once `tensorflow` or `jax` has finished importing."""
    global _capture
    if _capture is not None:
        return  # one framework profiler per process: the first one imported
    config = Config(os.environ)
    adapter_mod = importlib.import_module("_tensortrace." + frameworks.by_name(framework).adapter)
    adapter = adapter_mod.Adapter(module)
    _capture = Capture(config, adapter)
    if not adapter.available:
        _capture.done = True
        _capture.write_json("no_framework", adapter.unavailable_reason)
        return
    adapter.wrap_user_entry_points(_capture.step_aside)
    if hasattr(adapter, "watch_rank"):
        adapter.watch_rank()
    if hasattr(adapter, "number_steps"):
        adapter.number_steps(_capture.step_starts, _capture.between_steps)
    if framework == "torch":
        from _tensortrace import keras_steps

        keras_steps.watch_torch_trainer(_capture.step_starts, _capture.between_steps)
    if getattr(adapter, "narrows_steps", False):
        # The adapter counts steps itself: it starts at step A, stops after step B, and switches
        # windows at the first step boundary after each window_s seconds.
        def stop():
            _capture.stop("captured", "stopped after step %s" % config.steps.split(":")[1])

        adapter.when_ready(_capture.start, _capture.start_failed, stop=stop, steps=config.steps,
                           rotate=_capture.rotate, window_s=config.window_s,
                           windows=_capture if config.on_demand else None)
    else:
        adapter.when_ready(_capture.start, _capture.start_failed)


def report_error(framework, e):
    _warn("%s profiler not started: %s: %s" % (framework, type(e).__name__, e))
    if _capture is not None:
        try:
            _capture.write_json("error", "%s: %s" % (type(e).__name__, e))
        except Exception:
            pass
