#!/usr/bin/env python3
"""Speed and memory of `tensortrace stats` on large traces written by the real runtime, against
babeltrace2 reading the same trace (`-o dummy`), in one run.

  python3 bench/stats_bench.py [--build build] [--events 10000000 100000000] [--work /tmp]

For each size it writes a trace with tests/programs/synthetic_job.cc (steps of framework ops,
API launches, primitives, allocations, and the kernels and copies they launched), then times
`tensortrace stats --view op` and `--view kernel` and `babeltrace2 -o dummy`, with each
command's peak resident memory (from wait4). Targets: at least 10x babeltrace2's events per
second; under 1 GiB peak memory at 100 million events."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def run(cmd, env=None):
    """Runs cmd; returns (seconds, peak RSS in MiB). Exits on failure."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    secs = time.monotonic() - t0
    err = p.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"stats_bench: {' '.join(cmd)} failed: {err.strip()[:500]}")
    return secs, usage.ru_maxrss / 1024.0


def events_in(build, trace):
    out = subprocess.run([f"{build}/tensortrace", "info", trace, "--json"], check=True,
                         capture_output=True, text=True).stdout
    j = json.loads(out)
    if j["problems"]:
        sys.exit(f"stats_bench: the generated trace has problems: {j['problems'][:2]}")
    return j["totals"]["events"], j["totals"]["bytes"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--events", type=int, nargs="+", default=[10_000_000, 100_000_000])
    ap.add_argument("--work", default=tempfile.gettempdir())
    ap.add_argument("--skip-babeltrace-above", type=int, default=0,
                    help="skip babeltrace2 for traces with more events (0: never skip)")
    a = ap.parse_args()
    job = f"{a.build}/tests/tt_synthetic_job"
    for tool in (job, f"{a.build}/tensortrace"):
        if not os.access(tool, os.X_OK):
            sys.exit(f"stats_bench: {tool} not found; build first (cmake --build {a.build})")
    if not shutil.which("babeltrace2"):
        sys.exit("stats_bench: babeltrace2 not installed (apt-get install babeltrace2)")

    # Events per step of the synthetic job, measured on a small trace.
    probe = tempfile.mkdtemp(dir=a.work, prefix="tt-bench-probe-")
    run([job, "1000", "0"], env={**os.environ, "TENSORTRACE_DIR": probe})
    per_step = events_in(a.build, probe)[0] / 1000.0
    shutil.rmtree(probe)

    rows = []
    for target in a.events:
        trace = tempfile.mkdtemp(dir=a.work, prefix="tt-bench-trace-")
        steps = max(1, int(target / per_step))
        print(f"writing a trace of ~{target:,} events ({steps:,} steps) ...", flush=True)
        gen_s, _ = run([job, str(steps), "0"], env={**os.environ, "TENSORTRACE_DIR": trace})
        events, size = events_in(a.build, trace)
        row = {"target": target, "events": events, "bytes": size, "write_s": gen_s}
        for view in ("op", "kernel"):
            print(f"  stats --view {view} ...", flush=True)
            s, rss = run([f"{a.build}/tensortrace", "stats", trace, "--view", view])
            row[f"{view}_s"], row[f"{view}_rss_mib"] = s, rss
        if a.skip_babeltrace_above and events > a.skip_babeltrace_above:
            row["bt_s"] = None
        else:
            print("  babeltrace2 -o dummy ...", flush=True)
            row["bt_s"], row["bt_rss_mib"] = run(["babeltrace2", "-o", "dummy", trace])
        shutil.rmtree(trace)
        rows.append(row)

    print()
    print(f"{'events':>12} {'trace MiB':>10} {'view':>7} {'stats s':>8} {'Mev/s':>7} "
          f"{'peak MiB':>9} {'bt2 s':>8} {'bt2 Mev/s':>9} {'ratio':>6}  targets")
    ok = True
    for r in rows:
        for view in ("op", "kernel"):
            ev_s = r["events"] / r[f"{view}_s"]
            line = (f"{r['events']:>12,} {r['bytes'] / 2**20:>10.0f} {view:>7} "
                    f"{r[f'{view}_s']:>8.2f} {ev_s / 1e6:>7.1f} {r[f'{view}_rss_mib']:>9.0f} ")
            verdict = []
            if r["bt_s"]:
                bt = r["events"] / r["bt_s"]
                ratio = ev_s / bt
                line += f"{r['bt_s']:>8.2f} {bt / 1e6:>9.2f} {ratio:>6.1f}"
                verdict.append(("PASS" if ratio >= 10 else "FAIL") + " >=10x babeltrace2")
                ok &= ratio >= 10
            else:
                line += f"{'-':>8} {'-':>9} {'-':>6}"
            if r["target"] >= 100_000_000:
                good = r[f"{view}_rss_mib"] < 1024
                verdict.append(("PASS" if good else "FAIL") + " <1 GiB")
                ok &= good
            print(line + "  " + ", ".join(verdict))
    print(f"\n(writing the traces: " +
          ", ".join(f"{r['events']:,} events in {r['write_s']:.1f} s" for r in rows) + ")")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
