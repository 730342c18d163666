"""Shared setup of the unit tests of python/tensortrace (run: python3 -m pytest -q python/tests).

The package is loaded as the bootstrap loads it (boot/sitecustomize.py): under the private
name `_tensortrace`, which its modules import each other by. Tests that need a fresh
interpreter (a framework's profiler, process-wide hooks, exit paths) run a child Python that
loads it the same way (`child`)."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PKG = os.path.join(REPO, "python", "tensortrace")
BOOT = os.path.join(PKG, "boot")


def _load_package():
    if "_tensortrace" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(
        "_tensortrace", os.path.join(PKG, "__init__.py"), submodule_search_locations=[PKG])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["_tensortrace"] = mod
    spec.loader.exec_module(mod)


_load_package()

# A child's first lines: the package under its private name, as the bootstrap loads it.
PRELUDE = """\
import importlib.util as _u, sys as _s
_spec = _u.spec_from_file_location("_tensortrace", %r, submodule_search_locations=[%r])
_m = _u.module_from_spec(_spec); _s.modules["_tensortrace"] = _m; _spec.loader.exec_module(_m)
""" % (os.path.join(PKG, "__init__.py"), PKG)


# A recording's and a launcher's variables, which would change what a child does.
_NOT_INHERITED = ("PYTHONPATH", "RANK", "LOCAL_RANK", "WORLD_SIZE", "TF_CONFIG", "KERAS_BACKEND",
                  "TF_CPU_ALLOCATOR_USE_BFC", "TF_ENABLE_ONEDNN_OPTS")


def child_env(extra=None):
    """This environment without anything of a recording's or a launcher's (TENSORTRACE_*,
    PYTHONPATH, RANK, ...), quiet TensorFlow logs, and `extra` added."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TENSORTRACE_") and k not in _NOT_INHERITED}
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    env.update(extra or {})
    return env


def run_child(code, env=None, timeout=240, prelude=True, args=(), cwd=None):
    """Runs `code` in a new python3 (this interpreter's), the package loaded first."""
    text = (PRELUDE if prelude else "") + code
    return subprocess.run([sys.executable, "-c", text, *args], env=child_env(env),
                          capture_output=True, text=True, timeout=timeout, cwd=cwd)


def child_json(code, env=None, timeout=240, args=()):
    """Runs `code`, which prints one JSON document as its last line of output, and returns it."""
    r = run_child(code, env=env, timeout=timeout, args=args)
    assert r.returncode == 0, r.stderr[-4000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def require(module):
    """Skips where `module` is not installed (found, not imported: importing TensorFlow or torch
    here only to decide would cost as much as the test)."""
    if importlib.util.find_spec(module) is None:
        pytest.skip("%s is not installed" % module)


# The preloaded runtime's tt_set_rank, as a stand-in library that prints each call: what
# ranks.set_rank passes through ctypes, read back from the child's output.
_RANK_SHIM = r"""
#include <stdint.h>
#include <stdio.h>
void tt_set_rank(int64_t rank, int64_t world, const char* source) {
  printf("tt_set_rank %lld %lld %s\n", (long long)rank, (long long)world, source);
  fflush(stdout);
}
"""


@pytest.fixture(scope="session")
def rank_shim(tmp_path_factory):
    """The path of a shared library defining tt_set_rank (skips without a C compiler). A child
    loads it with `LOAD_SHIM % path` before calling set_rank."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler for the tt_set_rank stand-in")
    d = tmp_path_factory.mktemp("shim")
    src, lib = d / "shim.c", d / "libshim.so"
    src.write_text(_RANK_SHIM)
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    return str(lib)


# Loads the tt_set_rank stand-in globally, where ctypes.CDLL(None) finds it (as it finds the
# preloaded runtime's).
LOAD_SHIM = "import ctypes; ctypes.CDLL(%r, mode=ctypes.RTLD_GLOBAL)\n"


def set_rank_calls(stdout):
    """The (rank, world, source) of each tt_set_rank call a child printed."""
    calls = []
    for line in stdout.splitlines():
        if line.startswith("tt_set_rank "):
            _, rank, world, source = line.split(" ", 3)
            calls.append((int(rank), int(world), source))
    return calls
