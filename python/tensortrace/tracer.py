"""The Python source's exact mode (record --python-tracer): every Python function call on every
thread, through the native library's C profile hook (src/sources/python/native_tracer.cc,
CPython 3.11 only). Where a framework's own Python tracer delivers the calls (PyTorch's Kineto,
JAX's), its adapter stops ours first (stop()), so that no call is counted twice.

A program that installs its own profile hook keeps it: ours is installed only on threads that
have none, the program's sys.setprofile / threading.setprofile replaces ours (on that thread, or
on the threads started after), and we say so once on stderr."""
import os
import sys
import threading

from _tensortrace import sampler

_lib = None  # the native library, while our tracer runs
_warned = []


def warn_own_hook(text):
    """One warning per process about the program's own profile hook (ours, or a framework
    adapter's that yields to it)."""
    if not _warned:
        _warned.append(True)
        sampler._warn(text)


def _warn_once(what):
    warn_own_hook("the program has its own Python profile hook (%s): --python-tracer stops "
                  "where it runs (the code view uses the sampled stacks there)" % what)


def _thread_hook(frame, event, arg):
    """Each thread started after ours: our C hook replaces this one at its first call."""
    lib = _lib
    if lib is not None:
        lib.tt_pytrace_thread()


def _wrap_setprofile():
    """The program's sys.setprofile / threading.setprofile: its hook wins, with one warning."""
    import functools

    for mod, attr in ((sys, "setprofile"), (threading, "setprofile")):
        orig = getattr(mod, attr)

        def wrapped(func, *args, _orig=orig, _what="%s.%s" % (mod.__name__, attr), **kwargs):
            if func is not None and func is not _thread_hook and _lib is not None:
                _warn_once(_what)
            return _orig(func, *args, **kwargs)

        setattr(mod, attr, functools.wraps(orig)(wrapped))


def start():
    """Starts the tracer where --python-tracer asked for it; False where it cannot run."""
    global _lib
    if os.environ.get("TENSORTRACE_PYTHON_TRACER") != "1" or _lib is not None:
        return False
    if sys.version_info[:2] != (3, 11) or not os.path.exists(sampler._NATIVE_LIB):
        sampler._warn("--python-tracer: the exact tracer needs CPython 3.11 and the native "
                      "library; the code view uses the sampled stacks")
        return False
    import ctypes

    lib = ctypes.PyDLL(sampler._NATIVE_LIB)  # with the GIL held
    lib.tt_pytrace_start.argtypes = [ctypes.c_char_p]
    lib.tt_pytrace_thread.restype = lib.tt_pytrace_stop.restype = None
    if sys.getprofile() is not None or getattr(threading, "_profile_hook", None) is not None:
        _warn_once("before tensortrace started")
    if lib.tt_pytrace_start(sampler._OWN_DIR.encode()) != 0:
        return False
    _lib = lib
    threading.setprofile(_thread_hook)
    _wrap_setprofile()
    return True


def stop():
    """A framework's own tracer takes over (its adapter calls this first)."""
    global _lib
    lib, _lib = _lib, None
    if lib is None:
        return
    threading.setprofile(None)
    lib.tt_pytrace_stop()


def running():
    return _lib is not None
