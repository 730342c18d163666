# tensortrace's sitecustomize: runs in every Python process that `tensortrace record` starts.
# It must never change what the program does nor make it fail: every error becomes one line on
# stderr, and the sitecustomize the program would have run without us still runs.
import os
import sys


def _tensortrace_boot():
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    pkg = os.path.dirname(here)
    try:
        if os.environ.get("TENSORTRACE_DIR"):
            # A private name, and no change to sys.path: the program cannot import us by accident.
            spec = importlib.util.spec_from_file_location(
                "_tensortrace", os.path.join(pkg, "__init__.py"), submodule_search_locations=[pkg]
            )
            mod = importlib.util.module_from_spec(spec)
            sys.modules["_tensortrace"] = mod
            spec.loader.exec_module(mod)
            from _tensortrace import import_hook

            import_hook.install()
            from _tensortrace import sampler

            sampler.install()
    except Exception as e:  # never let the bootstrap break the program
        sys.stderr.write("tensortrace: warning: Python bootstrap disabled: %r\n" % (e,))

    # Chain to the next sitecustomize on sys.path, as if ours did not exist.
    try:
        # The path finder that site.py itself relies on (importing importlib.machinery for it
        # would add a module the program did not ask for).
        PathFinder = next(f for f in sys.meta_path if getattr(f, "__name__", "") == "PathFinder")
        rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
        spec = PathFinder.find_spec("sitecustomize", rest)
        if spec is not None and spec.loader is not None:
            mod = importlib.util.module_from_spec(spec)
            sys.modules["sitecustomize"] = mod
            spec.loader.exec_module(mod)
    except Exception as e:
        # site.py would print this too, and go on.
        sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n%s: %s\n"
                         % (type(e).__name__, e))


_tensortrace_boot()
del _tensortrace_boot
