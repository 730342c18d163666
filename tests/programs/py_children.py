"""Annotates from a Python parent, a subprocess, and multiprocessing workers (fork and spawn).

Run under `tensortrace record`; TT_LIB names libtensortrace.so (ctypes loads the copy that
record preloaded, so the marks land in this process's trace)."""
import ctypes
import multiprocessing as mp
import os
import subprocess
import sys


def lib():
    return ctypes.CDLL(os.environ["TT_LIB"])


def worker(tag):
    lib().tt_mark(tag.encode())
    return os.getpid()


def main():
    lib().tt_mark(b"py-parent")
    subprocess.run([sys.executable, "-c",
                    "import ctypes, os; ctypes.CDLL(os.environ['TT_LIB']).tt_mark(b'py-subprocess')"],
                   check=True)
    for method, tag in (("fork", "py-mp-fork"), ("spawn", "py-mp-spawn")):
        ctx = mp.get_context(method)
        with ctx.Pool(2) as pool:
            pids = pool.map(worker, [tag] * 4)
        print(method, sorted(set(pids)))
    print("enabled", lib().tt_enabled())


if __name__ == "__main__":
    main()
