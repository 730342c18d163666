"""rebind.py: a function replaced wherever the frameworks' modules hold it, and nowhere else."""
import sys
import types

from _tensortrace.rebind import rebind


def functions():
    """A profiler function and its wrapper, held by no module (only by the test's locals)."""
    def start():
        return "old"

    def wrapper():
        return "new"

    return start, wrapper


def _module(monkeypatch, name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    monkeypatch.setitem(sys.modules, name, mod)
    return mod


def test_replaced_under_every_frameworks_prefix_under_every_name(monkeypatch):
    old, new = functions()
    mods = [_module(monkeypatch, name, start=old, alias=old, other=len)
            for name in ("tensorflow.tt_probe", "keras.tt_probe", "tf_keras.tt_probe",
                         "jax.tt_probe", "jaxlib.tt_probe", "flax.tt_probe", "torch.tt_probe")]
    rebind({old: new})
    for mod in mods:
        assert mod.start is new, mod.__name__
        assert mod.alias is new, mod.__name__
        assert mod.other is len  # not a function asked for: untouched


def test_modules_of_the_program_keep_theirs(monkeypatch):
    old, new = functions()
    program = _module(monkeypatch, "tt_program_probe", start=old)
    rebind({old: new})
    assert program.start is old


def test_by_identity_not_equality(monkeypatch):
    class Equal:
        def __eq__(self, other):
            return True

        __hash__ = object.__hash__

    lookalike = Equal()
    old, new = functions()
    mod = _module(monkeypatch, "torch.tt_probe_eq", value=lookalike, start=old)
    rebind({old: new})
    assert mod.value is lookalike
    assert mod.start is new


def test_entries_without_a_dict_are_passed_over(monkeypatch):
    # sys.modules may hold None (a blocked import) and objects that are not modules.
    monkeypatch.setitem(sys.modules, "jax.tt_probe_none", None)
    monkeypatch.setitem(sys.modules, "jax.tt_probe_int", 3)
    old, new = functions()
    mod = _module(monkeypatch, "jax.tt_probe_after", start=old)
    rebind({old: new})
    assert mod.start is new
