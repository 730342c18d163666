"""boot/sitecustomize.py, in child processes started as `tensortrace record` starts them
(boot/ first on PYTHONPATH): the package loaded under its private name only inside a
recording, the program's own sitecustomize still run, and no error of ours reaching it."""
import json
import os
import shutil

from conftest import BOOT, PKG, require, run_child

PROBE = """
import json, sys, threading
try:
    import tensortrace
    importable = True
except ImportError:
    importable = False
print(json.dumps({
    "loaded": "_tensortrace" in sys.modules,
    "finder": type(sys.meta_path[0]).__name__,
    "importable": importable,
    "chained": getattr(sys.modules.get("sitecustomize"), "CHAINED", False),
    "threads": sorted(t.name for t in threading.enumerate()),
}))
"""


def boot(tmp_path, code=PROBE, trace=True, boot_dir=BOOT, site="CHAINED = True\n", env=None):
    """Runs `code` with boot_dir first on PYTHONPATH and, after it, a directory holding the
    program's own sitecustomize (`site`)."""
    own = tmp_path / "own_site"
    own.mkdir(exist_ok=True)
    (own / "sitecustomize.py").write_text(site)
    extra = {"PYTHONPATH": boot_dir + os.pathsep + str(own)}
    if trace:
        extra["TENSORTRACE_DIR"] = str(tmp_path / "trace")
    extra.update(env or {})
    return run_child(code, env=extra, prelude=False, cwd=str(tmp_path))


def test_outside_a_recording_only_the_programs_sitecustomize_runs(tmp_path):
    r = boot(tmp_path, trace=False)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    out = json.loads(r.stdout)
    assert not out["loaded"] and out["finder"] != "_Finder"
    assert out["chained"]


def test_inside_a_recording_the_package_is_private_and_the_hook_first(tmp_path):
    r = boot(tmp_path)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    out = json.loads(r.stdout)
    assert out["loaded"] and out["finder"] == "_Finder"
    assert not out["importable"]  # nothing on sys.path for the program to import by accident
    assert out["chained"]
    # No runtime preloaded here: no sampler thread either.
    assert out["threads"] == ["MainThread"]


def test_a_broken_bootstrap_is_one_warning_and_the_program_runs(tmp_path):
    pkg = tmp_path / "pkg"
    shutil.copytree(PKG, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (pkg / "import_hook.py").write_text("raise OSError('a broken install')\n")
    r = boot(tmp_path, boot_dir=str(pkg / "boot"))
    assert r.returncode == 0
    assert r.stderr == ("tensortrace: warning: Python bootstrap disabled: "
                        "OSError('a broken install')\n")
    assert json.loads(r.stdout)["chained"]


def test_the_programs_failing_sitecustomize_fails_as_without_us(tmp_path):
    r = boot(tmp_path, code="print('program ran')", site="raise RuntimeError('site broken')\n")
    assert r.returncode == 0
    assert r.stdout == "program ran\n"
    assert r.stderr == ("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                        "RuntimeError: site broken\n")
    # What Python itself says of it without us:
    r = boot(tmp_path, code="print('program ran')", site="raise RuntimeError('site broken')\n",
             boot_dir=str(tmp_path / "none"), trace=False)
    assert r.stderr == ("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                        "RuntimeError: site broken\n")


def test_importing_torch_captures_it_until_exit(tmp_path):
    require("torch")
    r = boot(tmp_path, code="""
import os, torch
print(os.getpid(), float((torch.ones(4) * 2).sum()))
""")
    assert r.returncode == 0, r.stderr[-4000:]
    pid, total = r.stdout.split()
    assert total == "8.0"
    logdir = tmp_path / "trace" / "xspace" / pid
    doc = json.loads((logdir / "capture.json").read_text())
    assert (doc["framework"], doc["status"], doc["message"], doc["windows"]) == (
        "torch", "captured", "stopped at exit", 1)
    assert os.listdir(logdir / "torch") == ["0-s0.pt.trace.json"]
    names = {e.get("name") for e in
             json.loads((logdir / "torch" / "0-s0.pt.trace.json").read_text())["traceEvents"]}
    assert "aten::mul" in names
