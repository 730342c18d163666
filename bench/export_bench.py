#!/usr/bin/env python3
"""Speed and memory of `tensortrace export` on a large trace written by the real runtime, against
reading the same trace in the same run (`tensortrace stats --view op`, and babeltrace2 `-o dummy`
unless skipped).

  python3 bench/export_bench.py [--build build] [--events 10000000] [--work /tmp]
                                [--skip-babeltrace]

It writes the trace with tests/programs/synthetic_job.cc, then times `tensortrace export` to
every format that `tensortrace export --help` lists (chrome, csv, perfetto, and xspace where
present), each as its own process with its peak resident memory (from wait4), and prints each
time as a ratio to the references: how many times the reading cost an export costs."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def run(cmd, env=None):
    """Runs cmd; returns (seconds, peak RSS in MiB, CPU seconds). Exits on failure."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    secs = time.monotonic() - t0
    err = p.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"export_bench: {' '.join(cmd)} failed: {err.strip()[:500]}")
    return secs, usage.ru_maxrss / 1024.0, usage.ru_utime + usage.ru_stime


def events_in(build, trace):
    out = subprocess.run([f"{build}/tensortrace", "info", trace, "--json"], check=True,
                         capture_output=True, text=True).stdout
    j = json.loads(out)
    if j["problems"]:
        sys.exit(f"export_bench: the generated trace has problems: {j['problems'][:2]}")
    return j["totals"]["events"], j["totals"]["bytes"]


def formats(build):
    """The formats `tensortrace export --help` lists in its usage line."""
    text = subprocess.run([f"{build}/tensortrace", "export", "--help"], check=True,
                          capture_output=True, text=True).stdout
    m = re.search(r"--format ([a-z|]+)", text)
    if not m:
        sys.exit("export_bench: cannot find the format list in `tensortrace export --help`")
    return m.group(1).split("|")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--work", default=tempfile.gettempdir())
    ap.add_argument("--skip-babeltrace", action="store_true")
    a = ap.parse_args()
    job = f"{a.build}/tests/tt_synthetic_job"
    for tool in (job, f"{a.build}/tensortrace"):
        if not os.access(tool, os.X_OK):
            sys.exit(f"export_bench: {tool} not found; build first (cmake --build {a.build})")
    use_bt = not a.skip_babeltrace
    if use_bt and not shutil.which("babeltrace2"):
        sys.exit("export_bench: babeltrace2 not installed (or pass --skip-babeltrace)")
    fmts = formats(a.build)

    probe = tempfile.mkdtemp(dir=a.work, prefix="tt-bench-probe-")
    run([job, "1000", "0"], env={**os.environ, "TENSORTRACE_DIR": probe})
    per_step = events_in(a.build, probe)[0] / 1000.0
    shutil.rmtree(probe)

    trace = tempfile.mkdtemp(dir=a.work, prefix="tt-bench-trace-")
    out = tempfile.mkdtemp(dir=a.work, prefix="tt-bench-out-")
    try:
        steps = max(1, int(a.events / per_step))
        print(f"writing a trace of ~{a.events:,} events ({steps:,} steps) ...", flush=True)
        run([job, str(steps), "0"], env={**os.environ, "TENSORTRACE_DIR": trace})
        events, size = events_in(a.build, trace)
        refs = {}
        print("  stats --view op (reference) ...", flush=True)
        refs["stats"] = run([f"{a.build}/tensortrace", "stats", trace, "--view", "op"])
        if use_bt:
            print("  babeltrace2 -o dummy (reference) ...", flush=True)
            refs["bt2"] = run(["babeltrace2", "-o", "dummy", trace])
        rows = []
        for f in fmts:
            path = os.path.join(out, f"t.{f}")
            print(f"  export --format {f} ...", flush=True)
            s, rss, cpu = run([f"{a.build}/tensortrace", "export", trace, "--format", f, "-o", path])
            if os.path.isdir(path):  # xspace: a log directory with one .xplane.pb per host
                size_out = sum(os.path.getsize(os.path.join(d, n))
                               for d, _, names in os.walk(path) for n in names)
                shutil.rmtree(path)
            else:
                size_out = os.path.getsize(path)
                os.remove(path)
            rows.append((f, s, rss, cpu, size_out))
    finally:
        shutil.rmtree(trace)
        shutil.rmtree(out)

    print(f"\ntrace: {events:,} events, {size / 2**20:.0f} MiB")
    # Wall time is the measure; CPU time (user + system) is steadier on a shared machine.
    print(f"{'command':>22} {'s':>8} {'cpu s':>7} {'Mev/s':>7} {'peak MiB':>9} "
          f"{'output MiB':>11} {'x stats':>8}" + (f" {'x bt2':>7}" if use_bt else ""))
    for name, (s, rss, cpu) in refs.items():
        print(f"{name:>22} {s:>8.2f} {cpu:>7.2f} {events / s / 1e6:>7.2f} {rss:>9.0f} "
              f"{'-':>11} {'':>8}")
    for f, s, rss, cpu, osize in rows:
        line = (f"{'export ' + f:>22} {s:>8.2f} {cpu:>7.2f} {events / s / 1e6:>7.2f} {rss:>9.0f} "
                f"{osize / 2**20:>11.0f} {s / refs['stats'][0]:>8.1f}")
        if use_bt:
            line += f" {s / refs['bt2'][0]:>7.2f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
