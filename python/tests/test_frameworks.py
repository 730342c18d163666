"""frameworks.py: the one table of frameworks, and each entry's adapter."""
import importlib

import pytest

from _tensortrace import frameworks
from conftest import child_json


def test_each_entry_names_an_adapter_module_whose_adapter_has_its_name():
    for f in frameworks.FRAMEWORKS:
        adapter = importlib.import_module("_tensortrace." + f.adapter).Adapter
        assert adapter.name == f.name
        # rebind.py looks for the profiler's functions under the framework's own module too.
        assert f.module in f.modules


def test_names_and_modules_are_each_one_entry():
    names = [f.name for f in frameworks.FRAMEWORKS]
    modules = [f.module for f in frameworks.FRAMEWORKS]
    assert sorted(names) == ["jax", "tensorflow", "torch"]
    assert len(set(modules)) == len(modules)


def test_by_name():
    assert frameworks.by_name("jax").adapter == "jax_adapter"
    assert frameworks.by_name("tensorflow").modules == ("tensorflow", "keras", "tf_keras")
    assert frameworks.by_name("torch").module == "torch"
    with pytest.raises(StopIteration):
        frameworks.by_name("mxnet")


def test_loading_the_table_imports_no_other_module():
    # Loaded at every traced process's start: it must not import anything the program did not.
    added = child_json("""
import json, sys
before = set(sys.modules)
import _tensortrace.frameworks
print(json.dumps(sorted(set(sys.modules) - before)))
""")
    assert added == ["_tensortrace.frameworks"]
