"""tracer.py: --python-tracer's exact tracer starts only where asked and where it can run."""
import pytest

from _tensortrace import sampler, tracer


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.setattr(tracer, "_warned", [])
    monkeypatch.setattr(tracer, "_lib", None)


def test_not_asked_for_nothing_starts(monkeypatch):
    monkeypatch.delenv("TENSORTRACE_PYTHON_TRACER", raising=False)
    assert tracer.start() is False
    assert not tracer.running()
    monkeypatch.setenv("TENSORTRACE_PYTHON_TRACER", "0")
    assert tracer.start() is False


def test_without_the_native_library_it_says_why(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("TENSORTRACE_PYTHON_TRACER", "1")
    monkeypatch.setattr(sampler, "_NATIVE_LIB", str(tmp_path / "libtt_pysample.so"))
    assert tracer.start() is False
    assert not tracer.running()
    assert capsys.readouterr().err == (
        "tensortrace: warning: --python-tracer: the exact tracer needs CPython 3.11 and the "
        "native library; the code view uses the sampled stacks\n")


def test_the_warning_about_the_programs_own_hook_is_said_once(capsys):
    tracer.warn_own_hook("first")
    tracer.warn_own_hook("second")
    assert capsys.readouterr().err == "tensortrace: warning: first\n"


def test_stop_without_start_is_harmless():
    tracer.stop()
    assert not tracer.running()
