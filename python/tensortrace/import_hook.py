"""A sys.meta_path finder that notices when TensorFlow or JAX finishes importing, and when a
module an adapter waits for (when_imported) does.

It answers only for those names, and then only by wrapping the loader that the other finders
chose; every other import costs one dict lookup.
"""
import sys

from _tensortrace.frameworks import FRAMEWORKS

# Top-level module -> framework name, for the frameworks not captured yet in this process.
_FRAMEWORKS = {f.module: f.name for f in FRAMEWORKS}
# Frameworks being imported now: TensorFlow imports JAX on its way, and then only the outer
# import (the one the program asked for) starts a profiler.
_importing = []
# Module name -> callbacks to run (with the module) once it has finished importing.
_waiting = {}


def when_imported(name, callback):
    """Runs callback(module) once module `name` has imported (now, if it already has).
    A callback's error becomes one warning line: it never fails the program's import."""
    mod = sys.modules.get(name)
    if mod is not None and getattr(getattr(mod, "__spec__", None), "_initializing", False) is False:
        _call(callback, mod)
    else:
        _waiting.setdefault(name, []).append(callback)


def _call(callback, module):
    try:
        callback(module)
    except Exception as e:
        sys.stderr.write("tensortrace: warning: %s after importing %s: %r\n"
                         % (getattr(callback, "__name__", "hook"), module.__name__, e))


class _Loader:
    """Runs the real loader, then tells capture.py that the framework is loaded."""

    def __init__(self, loader, framework, callbacks=None):
        self._loader = loader
        self._framework = framework
        self._callbacks = callbacks or []

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        # The framework sees its own loader, as without us.
        module.__loader__ = self._loader
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self._loader
        if self._framework is None:  # a module an adapter waits for
            self._loader.exec_module(module)
            for callback in self._callbacks:
                _call(callback, module)
            return
        _importing.append(self._framework)
        try:
            self._loader.exec_module(module)
        finally:
            _importing.pop()
        if _importing:
            return
        # Only a complete import reaches this line; a failed one raised above, untouched.
        try:
            from _tensortrace import capture

            capture.on_framework_imported(self._framework, module)
        except Exception as e:
            capture_error(self._framework, e)

    def __getattr__(self, name):  # get_resource_reader, is_package, ... of the real loader
        return getattr(self._loader, name)


def capture_error(framework, e):
    try:
        from _tensortrace import capture

        capture.report_error(framework, e)
    except Exception:
        sys.stderr.write("tensortrace: warning: %s profiler not started: %r\n" % (framework, e))


class _Finder:
    def __init__(self):
        self._busy = False

    def find_spec(self, fullname, path=None, target=None):
        framework = _FRAMEWORKS.get(fullname)
        if (framework is None and fullname not in _waiting) or self._busy:
            return None
        self._busy = True  # the other finders are asked below; do not answer them ourselves
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
        except Exception:
            return None
        finally:
            self._busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        if framework is None:
            spec.loader = _Loader(spec.loader, None, _waiting.pop(fullname))
            return spec
        del _FRAMEWORKS[fullname]  # one capture per framework and process
        spec.loader = _Loader(spec.loader, framework)
        return spec

    def invalidate_caches(self):
        pass


def install():
    sys.meta_path.insert(0, _Finder())
