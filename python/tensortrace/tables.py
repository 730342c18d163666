"""The job's tables (docs/tables.md) as Arrow tables, pandas DataFrames and SQL over DuckDB.

    import tensortrace
    t = tensortrace.open("trace_dir")        # or several, or a Parquet dataset
    t.ops.groupby("op_type").dur_ns.sum()     # pandas
    t.sql("SELECT op_type, sum(self_ns) FROM ops GROUP BY 1")

A trace directory is exported first (`tensortrace export DIR... --format parquet`, into a
temporary directory kept while the object lives), which takes each recording's per-process
tables from DIR/tables where `record --tables` wrote them and they are current for the trace
(.notes says so, or why not); a dataset that export wrote is read as it is, after checking its
schema version. pyarrow, pandas and duckdb are imported only when used,
so that the record bootstrap, which shares this package, never loads them.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SCHEMA_VERSION = 1
VERSION_KEY = b"tensortrace.schema_version"
TABLES = ("slices", "steps", "kernels", "collectives", "allocations", "processes", "threads",
          "clocks")


class TablesError(Exception):
    """Bad input: one line, for the user."""


def _tensortrace_binary():
    here = Path(__file__).resolve().parent
    for c in (os.environ.get("TENSORTRACE"), here.parent.parent / "tensortrace",
              here.parent.parent / "build" / "tensortrace", shutil.which("tensortrace")):
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return str(c)
    raise TablesError("tensortrace: the executable was not found (set TENSORTRACE to its path)")


def is_dataset(path):
    return (Path(path) / "slices").is_dir()


def _parts(dataset, table):
    return sorted(Path(dataset, table).rglob("*.parquet"))


def check_version(dataset):
    """Refuses, in one line, a dataset written with another schema version."""
    import pyarrow.parquet as pq

    for table in TABLES:
        for part in _parts(dataset, table)[:1]:
            meta = pq.read_schema(part).metadata or {}
            got = meta.get(VERSION_KEY, b"none").decode()
            if got != str(SCHEMA_VERSION):
                raise TablesError(
                    f"{dataset}: Parquet tables of schema version {got}; this tensortrace "
                    f"reads version {SCHEMA_VERSION} (export the trace again)")


class Trace:
    """One job's tables. Attributes: .slices, .ops, .steps, ... (pandas DataFrames);
    .arrow(name) (a pyarrow Table); .sql(query) (a DataFrame); .dataset (the folder)."""

    def __init__(self, dataset, scratch=None):
        self.dataset = str(dataset)
        self._scratch = scratch  # a TemporaryDirectory holding an export, removed with us
        self.notes = []  # what the export said (the recorded tables it took, or why not)
        check_version(self.dataset)
        self._db = None

    def arrow(self, name):
        import pyarrow as pa
        import pyarrow.dataset as ds

        if name == "ops":
            t = self.arrow("slices")
            return t.filter(t["is_op"])
        if name not in TABLES:
            raise TablesError(f"no table {name!r} (tables: ops, {', '.join(TABLES)})")
        parts = [str(p) for p in _parts(self.dataset, name)]
        if not parts:
            return pa.table({})
        hive = "hive" if name != "clocks" else None  # clocks: one file, no rank
        return ds.dataset(parts, format="parquet", partitioning=hive,
                          partition_base_dir=str(Path(self.dataset, name))).to_table()

    def __getattr__(self, name):
        if name in TABLES or name == "ops":
            return self.arrow(name).to_pandas()
        raise AttributeError(name)

    def connection(self):
        """A DuckDB connection with a view per table (and `ops`)."""
        if self._db is None:
            import duckdb

            self._db = duckdb.connect()
            for name in TABLES:
                if not _parts(self.dataset, name):
                    continue
                glob = str(Path(self.dataset, name, "**", "*.parquet")).replace("'", "''")
                hive = "true" if name != "clocks" else "false"  # clocks: one file, no rank
                self._db.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{glob}', "
                                 f"hive_partitioning = {hive}, union_by_name = true)")
            self._db.execute("CREATE VIEW ops AS SELECT * FROM slices WHERE is_op")
        return self._db

    def sql(self, query):
        return self.connection().execute(query).df()


def open(*paths):  # noqa: A001 (the package's entry: tensortrace.open)
    """A Trace of one Parquet dataset, or of trace directories (one job), exported first."""
    if len(paths) == 1 and isinstance(paths[0], (list, tuple)):
        paths = tuple(paths[0])
    paths = [str(p) for p in paths]
    if not paths:
        raise TablesError("no trace directory or dataset given")
    if len(paths) == 1 and is_dataset(paths[0]):
        return Trace(paths[0])
    scratch = tempfile.TemporaryDirectory(prefix="tensortrace-tables.")
    out = Path(scratch.name, "tables")
    r = subprocess.run([_tensortrace_binary(), "export", *paths, "--format", "parquet", "-o",
                        str(out), "--allow-damaged"], capture_output=True, text=True)
    if r.returncode != 0:
        raise TablesError(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else
                          f"tensortrace export failed ({r.returncode})")
    t = Trace(out, scratch)
    t.notes = [line.removeprefix("tensortrace export: ") for line in r.stderr.splitlines()]
    return t


def _print(cursor, fmt, out):
    cols = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    if fmt == "json":
        out.write(json.dumps({"columns": cols, "rows": [dict(zip(cols, r)) for r in rows]},
                             indent=2, default=str) + "\n")
        return
    text = [["" if v is None else str(v) for v in r] for r in rows]
    if fmt == "csv":
        import csv

        w = csv.writer(out, lineterminator="\n")
        w.writerow(cols)
        w.writerows(text)
        return
    widths = [max([len(c)] + [len(r[i]) for r in text]) for i, c in enumerate(cols)]
    for r in [cols] + text:
        out.write("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() + "\n")


def main(argv=None):
    p = argparse.ArgumentParser(prog="tensortrace sql")
    p.add_argument("command", choices=["sql"])
    p.add_argument("dataset")
    p.add_argument("query")
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")
    a = p.parse_args(argv)
    try:
        import duckdb
    except ImportError:
        print(f"tensortrace sql: DuckDB is not installed in {sys.executable} "
              "(pip install duckdb pyarrow, or set TT_PYTHON)", file=sys.stderr)
        return 2
    try:
        t = Trace(a.dataset)
        _print(t.connection().execute(a.query), a.format, sys.stdout)
    except TablesError as e:
        print(f"tensortrace sql: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"tensortrace sql: {e} (pip install duckdb pyarrow)", file=sys.stderr)
        return 2
    except duckdb.Error as e:
        print(f"tensortrace sql: {str(e).splitlines()[0]}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
