"""The Python source: which line of the program each thread is on, for the code view.

Sampling: every TENSORTRACE_PYTHON_SAMPLE_MS milliseconds (default 5; 0: off) each thread's
stack is read and a sample written when it changed since the last look (so an idle or blocked
thread costs one comparison). In CPython 3.11 a native thread of ours does it
(src/sources/python/native_sampler.cc, "tensortrace-pysample"): it reads the interpreter's
frames itself and creates no Python object. Elsewhere it is done here, in Python, by our daemon
thread ("tensortrace-python"), only when asked for: its own Python objects move the
interpreter's garbage collections, which may then run, and free the program's objects, on this
thread, so by default there is no sampling there. Frames are numbered once per process and
defined before their first use.

The daemon thread also writes where graph ops were created (sites, from TensorFlow's tracing:
tf_adapter.py queues them), so that ops that run on the runtime's threads find the Python line
behind them.

Everything goes through the preloaded runtime's tt_py_* functions (src/sources/python/), each
thread writing its own trace stream. Without the runtime (not under `tensortrace record`),
nothing starts.
"""
import collections
import os
import sys
import threading
import time

_sampler = None  # this process's Sampler, once started
_OWN_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
THREAD_NAME = "tensortrace-python"
DEFAULT_MS = 5.0  # the default period, where the native sampler runs
_NATIVE_LIB = os.path.join(os.path.dirname(_OWN_DIR.rstrip(os.sep)), "native", "libtt_pysample.so")


def _warn(text):
    try:
        sys.stderr.write("tensortrace: warning: %s\n" % text)
    except Exception:
        pass


class Sampler:
    def __init__(self, lib, interval_s):
        self.lib = lib
        self.interval = interval_s
        self.ids = {}  # (code, line) -> frame number
        self.texts = {}  # (file, line, function) -> frame number (sites)
        self.count = 0  # frame numbers given
        self.undefined = []  # (number, text) to write before the next sample or site
        self.last = {}  # thread ident -> what its innermost frame was at the last sample
        self.sites = collections.deque()  # (op name, [(file, line, function), ...])
        self.stop = threading.Event()
        self.prev_look = 0  # time.monotonic_ns() of the last look
        self.thread = None

    def start(self):
        self.thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)
        self.thread.start()

    def finish(self):
        """Stops the thread after one last look (at exit)."""
        t = self.thread
        if t is None or not t.is_alive():
            return
        self.stop.set()
        t.join(timeout=2.0)

    def _number(self, text):
        self.count += 1
        self.undefined.append((self.count, text))
        return self.count

    def _frame(self, key):
        """The number of frame (code, line); 0 for the bootstrap's own (not the program's)."""
        code = key[0]
        n = self.ids.get(key)
        if n is None:
            if code.co_filename.startswith(_OWN_DIR):
                n = self.ids[key] = 0
            else:
                name = getattr(code, "co_qualname", code.co_name)
                n = self.ids[key] = self._number("%s:%d:%s" % (code.co_filename, key[1], name))
        return n

    def _stack(self, codes):
        ids = [n for n in map(self._frame, codes) if n]
        ids.reverse()
        return ",".join(map(str, ids))

    def _forget(self):
        """Frame numbers defined before a silent spell may have been dropped: new ones."""
        self.ids.clear()
        self.texts.clear()
        self.last.clear()
        self.undefined.clear()

    def _define(self):
        for n, text in self.undefined:
            self.lib.tt_py_frame(n, text.encode("utf-8", "replace"))
        self.undefined.clear()

    def _write_sites(self):
        while self.sites:
            op, frames = self.sites.popleft()
            ids = []
            for fr in frames:
                if fr[0].startswith(_OWN_DIR):
                    continue
                n = self.texts.get(fr)
                if n is None:
                    n = self.texts[fr] = self._number("%s:%d:%s" % fr)
                ids.append(n)
            self._define()
            self.lib.tt_py_site(op.encode("utf-8", "replace"), ",".join(map(str, ids)).encode())

    def _look(self, me):
        """Each thread whose stack changed: (tid, seen before, [(code, line)] innermost first).
        No frame outlives this call: a frame held while the program's thread runs on (a ctypes
        call releases the GIL) would keep the locals of a function that returned alive, and
        the program's memory would not be what it is untraced."""
        active = threading._active  # ident -> Thread; its native_id is the trace's tid
        changed = []
        frames = sys._current_frames()
        for ident, f in frames.items():
            if ident == me:
                continue
            # The innermost frame unchanged (same object, line and caller): the same stack.
            key = (id(f), f.f_lineno, id(f.f_back))
            last = self.last.get(ident)
            if last == key:
                continue
            tid = getattr(active.get(ident), "native_id", None)
            if tid is None:
                continue
            self.last[ident] = key
            codes = []
            while f is not None:
                codes.append((f.f_code, f.f_lineno or 0))  # None while a frame starts
                f = f.f_back
            changed.append((tid, last is not None, codes))
        for gone in [i for i in self.last if i not in frames]:
            del self.last[gone]
        return changed

    def _sample(self, me):
        since = self.prev_look
        at = self.prev_look = time.monotonic_ns()  # the trace's clock
        for tid, seen, codes in self._look(me):
            stack = self._stack(codes)
            self._define()
            self.lib.tt_py_sample(tid, stack.encode(), since if seen else 0, at)

    def _run(self):
        try:
            self.lib.tt_set_thread_name(THREAD_NAME.encode())
            me = threading.get_ident()
            wait = self.interval if self.interval > 0 else 0.05
            silent = False
            while not self.stop.wait(wait):
                # Between capture windows (record --on-demand) nothing would be written: sites
                # wait in their queue, and the frames are defined again in the next window.
                if not self.lib.tt_enabled():
                    silent = True
                    continue
                if silent:
                    self._forget()
                    silent = False
                self._write_sites()
                if self.interval > 0:
                    self._sample(me)
            if self.lib.tt_enabled():
                self._write_sites()
                if self.interval > 0:
                    self._sample(me)
        except Exception as e:  # never let the source break the program
            _warn("Python sampling stopped: %r" % (e,))

    def add_sites(self, sites):
        """Queues (op name, frames) pairs; the sampler thread writes them."""
        self.sites.extend(sites)


def _runtime():
    import ctypes

    lib = ctypes.CDLL(None)
    try:
        if not lib.tt_armed():  # (between capture windows, tt_enabled is 0)
            return None
        lib.tt_py_frame.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
        lib.tt_py_sample.argtypes = [ctypes.c_int64, ctypes.c_char_p, ctypes.c_int64,
                                     ctypes.c_int64]
        lib.tt_py_site.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        lib.tt_tf_collective_op.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int64]
        lib.tt_tf_collective_op.restype = None
        lib.tt_tf_eager_collective.argtypes = [ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64,
                                               ctypes.c_int64]
        lib.tt_tf_eager_collective.restype = None
        lib.tt_set_thread_name.argtypes = [ctypes.c_char_p]
        for f in (lib.tt_py_frame, lib.tt_py_sample, lib.tt_py_site, lib.tt_set_thread_name):
            f.restype = None
    except AttributeError:  # the runtime is not preloaded (or an older one)
        return None
    return lib


def interval_from_env(env):
    """The period asked for, in seconds (0: off), or None where none was (the default)."""
    text = env.get("TENSORTRACE_PYTHON_SAMPLE_MS")
    if text is None:
        return None
    ms = float(text)
    if ms < 0:
        raise ValueError("TENSORTRACE_PYTHON_SAMPLE_MS must be 0 (off) or more")
    return ms / 1000.0


class Native:
    """The native sampler (CPython 3.11 only), or None where it cannot run here."""

    @staticmethod
    def load():
        if sys.version_info[:2] != (3, 11) or not os.path.exists(_NATIVE_LIB):
            return None
        if os.environ.get("TENSORTRACE_TEST_NO_NATIVE_SAMPLER"):  # tests of the Python one
            return None
        import ctypes

        try:
            held = ctypes.PyDLL(_NATIVE_LIB)  # start: with the GIL held
            free = ctypes.CDLL(_NATIVE_LIB)  # stop: without it, while our thread takes it
        except OSError:
            return None
        if held.tt_pysample_abi() != sys.hexversion >> 16:
            return None
        held.tt_pysample_start.argtypes = [ctypes.c_double, ctypes.c_char_p, ctypes.c_ulong]
        free.tt_pysample_stop.restype = held.tt_pysample_forget.restype = None
        n = Native()
        n.held, n.free = held, free
        return n

    def start(self, interval_s, skip):
        """Samples every interval_s seconds every thread but `skip` (our Python thread)."""
        return self.held.tt_pysample_start(interval_s * 1000.0, _OWN_DIR.encode(), skip) == 0

    def stop(self):
        self.free.tt_pysample_stop()

    def forget(self):
        self.held.tt_pysample_forget()


_native = None  # the native sampler, once loaded (False: none here)
_at_exit = []  # [True] once _finish is registered


def start():
    """Starts this process's sampler (the bootstrap calls it once; a forked child again)."""
    global _sampler, _native
    asked = interval_from_env(os.environ)
    lib = _runtime()
    if lib is None:
        return None
    if _native is None and asked != 0:
        _native = Native.load() or False
    interval = asked if asked is not None else DEFAULT_MS / 1000.0
    native = interval > 0 and _native
    # Sampling in Python only when asked for (and no native sampler).
    _sampler = Sampler(lib, 0.0 if native else (asked or 0.0))
    _sampler.start()
    if native and not _native.start(interval, _sampler.thread.ident):
        _warn("the native Python sampler did not start: no sampling")
    if not _at_exit:  # a forked child has its parent's registration
        import atexit

        atexit.register(_finish)
        _at_exit.append(True)
    return _sampler


def _finish():
    if _native:
        _native.stop()
    if _sampler is not None:
        _sampler.finish()


def _after_fork():
    global _sampler
    if _sampler is None:
        return
    _sampler = None  # the parent's threads are not in the child
    if _native:
        _native.forget()
    try:
        start()
    except Exception as e:
        _warn("Python sampling not started in the child: %r" % (e,))


def add_sites(sites):
    if _sampler is not None:
        _sampler.add_sites(sites)


def add_collectives(ops):
    """(op name, op type, bytes) of a traced graph's collective ops, written at once (once per
    traced graph, from the tracing thread)."""
    if _sampler is not None:
        for name, op_type, nbytes in ops:
            _sampler.lib.tt_tf_collective_op(name.encode("utf-8", "replace"),
                                              op_type.encode(), nbytes)


def add_eager_collective(op_type, group_key, instance_key, nbytes):
    """An eager collective op's group and instance keys and its bytes (from the calling
    thread)."""
    if _sampler is not None:
        _sampler.lib.tt_tf_eager_collective(op_type.encode(), group_key, instance_key, nbytes)


def install():
    """The bootstrap's entry: sampling, and TensorFlow's op creation sites when it loads."""
    try:
        from _tensortrace import tracer

        tracer.start()
    except Exception as e:
        _warn("--python-tracer: the exact tracer not started: %r" % (e,))
    try:
        if start() is not None:
            os.register_at_fork(after_in_child=_after_fork)
            from _tensortrace import tf_sites

            tf_sites.install(add_sites, add_collectives, add_eager_collective)
    except Exception as e:
        _warn("Python sampling not started: %r" % (e,))
