"""Replaces functions by wrappers wherever the frameworks' modules hold them."""
import sys

from _tensortrace.frameworks import FRAMEWORKS

# Modules loaded while a framework imports can hold its profiler functions (tf.profiler.
# experimental and its compat aliases, keras's callbacks); the program's modules cannot yet,
# since the hook runs as soon as the framework's own import ends.
_PREFIXES = tuple(p for f in FRAMEWORKS for p in f.modules)


def rebind(replacements):
    """replacements: {old function: new function}. One pass over the frameworks' modules;
    reads their __dict__s directly so that lazily loaded modules are not loaded by it."""
    by_id = {id(old): new for old, new in replacements.items()}
    for name, mod in list(sys.modules.items()):
        if not name.startswith(_PREFIXES):
            continue
        d = getattr(mod, "__dict__", None)
        if not isinstance(d, dict):
            continue
        for key, value in list(d.items()):
            new = by_id.get(id(value))
            if new is not None:
                d[key] = new
