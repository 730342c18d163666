"""import_hook.py: callbacks once a module has imported, and the framework import that starts a
capture (the outer one only, once). Each test installs a finder of its own over fresh tables."""
import importlib
import sys

import pytest

from _tensortrace import capture, import_hook


@pytest.fixture
def hook(monkeypatch, tmp_path):
    """A finder first on sys.meta_path, empty tables, and tmp_path on sys.path for the probe
    modules a test writes (write(name, text))."""
    monkeypatch.setattr(import_hook, "_FRAMEWORKS", {})
    monkeypatch.setattr(import_hook, "_waiting", {})
    monkeypatch.setattr(import_hook, "_importing", [])
    monkeypatch.syspath_prepend(str(tmp_path))
    finder = import_hook._Finder()
    sys.meta_path.insert(0, finder)
    written = []

    def write(name, text=""):
        path = tmp_path.joinpath(*name.split("."))
        if "." in name:
            path.parent.mkdir(exist_ok=True)
            (path.parent / "__init__.py").touch()
        path.with_suffix(".py").write_text(text)
        written.append(name.split(".")[0])
        importlib.invalidate_caches()

    yield write
    sys.meta_path.remove(finder)
    for name in list(sys.modules):
        if name.split(".")[0] in written:
            del sys.modules[name]


def test_a_module_already_imported_is_called_back_at_once(hook):
    seen = []
    import_hook.when_imported("json", seen.append)
    assert seen == [sys.modules["json"]]
    assert import_hook._waiting == {}


def test_callback_runs_once_the_module_has_executed(hook):
    hook("tt_probe_a", "VALUE = 42\n")
    seen = []
    import_hook.when_imported("tt_probe_a", lambda m: seen.append((m.__name__, m.VALUE)))
    assert seen == []
    import tt_probe_a
    assert seen == [("tt_probe_a", 42)]
    assert import_hook._waiting == {}
    # The module sees its own loader, as without us.
    assert type(tt_probe_a.__loader__).__name__ == "SourceFileLoader"
    assert tt_probe_a.__spec__.loader is tt_probe_a.__loader__


def test_submodule_of_a_package(hook):
    hook("tt_probe_pkg.trainer", "class Trainer: pass\n")
    seen = []
    import_hook.when_imported("tt_probe_pkg.trainer", lambda m: seen.append(m.Trainer.__name__))
    import tt_probe_pkg  # the package alone: not yet
    assert seen == []
    import tt_probe_pkg.trainer  # noqa: F401
    assert seen == ["Trainer"]


def test_a_callbacks_error_is_one_warning_and_the_import_succeeds(hook, capsys):
    hook("tt_probe_b", "X = 1\n")

    def numbering(module):
        raise ValueError("boom")

    import_hook.when_imported("tt_probe_b", numbering)
    import tt_probe_b
    assert tt_probe_b.X == 1
    assert capsys.readouterr().err == (
        "tensortrace: warning: numbering after importing tt_probe_b: ValueError('boom')\n")


def test_a_failing_import_fails_as_without_us(hook):
    hook("tt_probe_c", "raise RuntimeError('the module fails')\n")
    seen = []
    import_hook.when_imported("tt_probe_c", seen.append)
    with pytest.raises(RuntimeError, match="the module fails"):
        import tt_probe_c  # noqa: F401
    assert seen == []
    assert "tt_probe_c" not in sys.modules


def test_a_module_not_found_is_not_found(hook):
    import_hook.when_imported("tt_probe_missing", lambda m: None)
    with pytest.raises(ModuleNotFoundError):
        import tt_probe_missing  # noqa: F401


@pytest.fixture
def frameworks(hook, monkeypatch):
    """Two probe frameworks, the outer importing the inner; capture's entry point records."""
    monkeypatch.setattr(import_hook, "_FRAMEWORKS", {"tt_fw_outer": "outer",
                                                     "tt_fw_inner": "inner"})
    hook("tt_fw_inner", "NAME = 'inner'\n")
    hook("tt_fw_outer", "import tt_fw_inner\nNAME = 'outer'\n")
    started = []
    monkeypatch.setattr(capture, "on_framework_imported",
                        lambda name, module: started.append((name, module.NAME)))
    return hook, started


def test_only_the_outer_framework_import_starts_a_capture(frameworks):
    _, started = frameworks
    import tt_fw_outer  # noqa: F401
    assert started == [("outer", "outer")]
    # Both were imported (the inner one on the outer's way): neither starts a capture again.
    assert import_hook._FRAMEWORKS == {}


def test_each_framework_starts_once(frameworks):
    _, started = frameworks
    import tt_fw_inner  # noqa: F401
    del sys.modules["tt_fw_inner"]
    import tt_fw_inner  # noqa: F401,F811
    assert started == [("inner", "inner")]


def test_a_failed_framework_import_starts_nothing(frameworks):
    hook, started = frameworks
    hook("tt_fw_outer", "raise ImportError('no such build')\n")
    with pytest.raises(ImportError, match="no such build"):
        import tt_fw_outer  # noqa: F401
    assert started == [] and import_hook._importing == []


def test_a_capture_that_fails_to_start_is_a_warning(frameworks, monkeypatch, capsys):
    def fails(name, module):
        raise RuntimeError("no profiler")

    monkeypatch.setattr(capture, "on_framework_imported", fails)
    import tt_fw_inner
    assert tt_fw_inner.NAME == "inner"
    assert capsys.readouterr().err == (
        "tensortrace: warning: inner profiler not started: RuntimeError: no profiler\n")
