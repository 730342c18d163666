"""tensortrace's Python bootstrap.

`tensortrace record` puts boot/ (which holds only sitecustomize.py) first on PYTHONPATH. That
sitecustomize loads this package under the private name `_tensortrace` (so nothing here can
shadow a module of the traced program), installs the import hook in import_hook.py, and chains
to the sitecustomize the program would otherwise have run. When TensorFlow or JAX finishes
importing, capture.py starts that framework's own profiler through the adapter frameworks.py
names for it (tf_adapter.py, jax_adapter.py) and writes $TENSORTRACE_DIR/xspace/<pid>/capture.json;
record converts the XSpace files at the end.
"""


def open(*paths):  # noqa: A001 (tensortrace.open: the job's tables, python/tensortrace/tables.py)
    """The job's tables (slices, ops, steps, collectives, ...) of trace directories or a
    Parquet dataset: see tables.py. Imported on first use only."""
    from .tables import open as _open

    return _open(*paths)
