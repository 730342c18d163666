#!/usr/bin/env python3
"""The job's tables at scale (issue 37): `export --format parquet` on a large trace written by
the real runtime, its time as a ratio to `stats --view op` on the same trace and its peak
memory; then one question (time and count per op name) answered by DuckDB over the Parquet
export and by pandas over the CSV export, in the same run, with the answers compared.

  python3 bench/tables_bench.py [--build build] [--events 10000000] [--work /tmp] [--skip-csv]

The trace comes from tests/programs/synthetic_job.cc (as bench/export_bench.py's). --skip-csv
leaves out the CSV export and pandas (the CSV of 10^8 events is tens of GB)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_bench import events_in, run  # noqa: E402


def duckdb_answer(dataset):
    import duckdb

    t0 = time.monotonic()
    glob = os.path.join(dataset, "slices", "**", "*.parquet")
    rows = duckdb.sql(f"SELECT name, count(*), sum(dur_ns) FROM read_parquet('{glob}', "
                      "hive_partitioning = true) GROUP BY name").fetchall()
    return time.monotonic() - t0, {n: (c, int(d)) for n, c, d in rows}


def pandas_answer(csv):
    import pandas as pd

    t0 = time.monotonic()
    df = pd.read_csv(csv, usecols=["kind", "name", "duration_ns"])
    g = df[df.kind == "slice"].groupby("name").duration_ns.agg(["count", "sum"])
    secs = time.monotonic() - t0
    return secs, {n: (int(r["count"]), int(r["sum"])) for n, r in g.iterrows()}


def trace_of(a, work):
    job = f"{a.build}/tests/tt_synthetic_job"
    probe = tempfile.mkdtemp(dir=work, prefix="tt-bench-probe-")
    run([job, "1000", "0"], env={**os.environ, "TENSORTRACE_DIR": probe})
    per_step = events_in(a.build, probe)[0] / 1000.0
    shutil.rmtree(probe)
    trace = tempfile.mkdtemp(dir=work, prefix="tt-bench-trace-")
    steps = max(1, int(a.events / per_step))
    print(f"writing a trace of ~{a.events:,} events ({steps:,} steps) ...", flush=True)
    run([job, str(steps), "0"], env={**os.environ, "TENSORTRACE_DIR": trace})
    return trace


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--work", default=tempfile.gettempdir())
    ap.add_argument("--skip-csv", action="store_true")
    a = ap.parse_args()
    tt = f"{a.build}/tensortrace"
    work = tempfile.mkdtemp(dir=a.work, prefix="tt-tables-bench-")
    try:
        trace = trace_of(a, work)
        events, size = events_in(a.build, trace)
        print("  stats --view op (reference) ...", flush=True)
        ref = run([tt, "stats", trace, "--view", "op"])
        print("  export --format parquet ...", flush=True)
        pq = os.path.join(work, "tables")
        exp = run([tt, "export", trace, "--format", "parquet", "-o", pq])
        pq_mib = sum(os.path.getsize(os.path.join(d, n))
                     for d, _, ns in os.walk(pq) for n in ns) / 2**20
        duck_s, duck = duckdb_answer(pq)
        print(f"\ntrace: {events:,} events, {size / 2**20:.0f} MiB")
        print(f"{'':>24} {'s':>8} {'cpu s':>7} {'peak MiB':>9} {'x stats':>8}")
        print(f"{'stats --view op':>24} {ref[0]:>8.2f} {ref[2]:>7.2f} {ref[1]:>9.0f}")
        print(f"{'export parquet':>24} {exp[0]:>8.2f} {exp[2]:>7.2f} {exp[1]:>9.0f} "
              f"{exp[0] / ref[0]:>8.2f}   ({pq_mib:.0f} MiB of Parquet)")
        print(f"{'duckdb over parquet':>24} {duck_s:>8.2f}   ({len(duck)} names)")
        if not a.skip_csv:
            csv = os.path.join(work, "t.csv")
            cexp = run([tt, "export", trace, "--format", "csv", "-o", csv])
            pd_s, pdans = pandas_answer(csv)
            print(f"{'export csv':>24} {cexp[0]:>8.2f} {cexp[2]:>7.2f} {cexp[1]:>9.0f} "
                  f"{cexp[0] / ref[0]:>8.2f}   ({os.path.getsize(csv) / 2**20:.0f} MiB of CSV)")
            print(f"{'pandas over csv':>24} {pd_s:>8.2f}   duckdb is {pd_s / duck_s:.1f}x faster;"
                  f" same answer: {pdans == duck}")
    finally:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
