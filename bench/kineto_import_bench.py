#!/usr/bin/env python3
"""record's import of a large PyTorch profile (Kineto's JSON; issue 34, item 5: 115 MB in under
2 s), against two references in the same run: record of the same program leaving the file where
nothing imports it (the program's and record's own cost, subtracted), and Python's json.load of
the file (what tools that read these profiles do first).

  python3 bench/kineto_import_bench.py [--build build] [--work /tmp] [--mb 115] [--runs 3]

The profile is generated like a CPU training loop's: ops with shapes and external ids,
python_function and user_annotation ranges, on two threads; the traced program copies it into
its trace directory with its own pid. Prints one Markdown row: size, events, the import's time
(median of --runs, record with the file minus record without), json.load's time, their ratio,
and record's peak memory."""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_bench import run  # noqa: E402

PID = 999999999  # the placeholder the program replaces with its own pid
# Copies argv[1] into the trace directory (argv[2] == "import") or beside it, with its own pid,
# a line at a time (the program stays small: record's peak is record's), and waits for the copy
# to be on disk: else the kernel may write it back while record imports it (in the run "with"
# only, since the run "without" ends first).
LEAVE = """
import os, sys
old, new = b'"pid": %d,', b'"pid": %%d,' %% os.getpid()
where = os.path.join(os.environ["TENSORTRACE_DIR"], "xspace", str(os.getpid()), "torch")
if sys.argv[2] != "import":
    where = os.path.join(os.path.dirname(sys.argv[1]), "not-imported")
os.makedirs(where, exist_ok=True)
with open(sys.argv[1], "rb") as src, open(os.path.join(where, "1.pt.trace.json"), "wb") as dst:
    for line in src:
        dst.write(line.replace(old, new))
    dst.flush()
    os.fsync(dst.fileno())
""" % PID


def event(i, tid, ts):
    kinds = (
        ('"cpu_op"', 'aten::addmm', ', "args": {"External id": %d, "Sequence number": %d, '
         '"Fwd thread id": 0, "Input Dims": [[512], [64, 256], [256, 512]], '
         '"Input type": ["float", "float", "float"], "Record function id": 0}' % (i, i // 3)),
        ('"python_function"', 'torch/nn/modules/module.py(1740): _call_impl',
         ', "args": {"Python parent id": %d, "Python id": %d, "Python thread": 0}' % (i, i + 1)),
        ('"user_annotation"', 'ProfilerStep#%d' % (i // 1000), ''),
        ('"cpu_op"', 'aten::relu', ', "args": {"External id": %d, "Input Dims": [[64, 512]], '
         '"Input type": ["float"]}' % i),
    )
    cat, name, args = kinds[i % len(kinds)]
    return ('  {"ph": "X", "cat": %s, "name": "%s", "pid": %d, "tid": %d, "ts": %.3f, '
            '"dur": %.3f%s}' % (cat, name, PID, tid, ts, 3.5, args))


def generate(path, mb):
    """Writes about `mb` MB of profile; returns its event count."""
    n, size = 0, 0
    with open(path, "w") as f:
        f.write('{"schemaVersion": 1, "deviceProperties": [], "traceEvents": [\n')
        while size < mb * 1e6:
            line = event(n, 100 + n % 2, 1000.0 + n * 4.0) + ",\n"
            f.write(line)
            size += len(line)
            n += 1
        f.write('  {"ph": "i", "cat": "cpu_instant_event", "name": "end", "pid": %d, "tid": 100, '
                '"ts": %.3f, "s": "t"}\n' % (PID, 1000.0 + n * 4.0))
        f.write('], "traceName": "bench", "baseTimeNanoseconds": %d}\n' % (time.time_ns() - 10**10))
    return n + 1


def record(build, work, name, profile, how):
    trace = os.path.join(work, name)
    cmd = [f"{build}/tensortrace", "record", "--quiet", "-o", trace, "--", sys.executable, "-c",
           LEAVE, profile, how]
    secs, peak, cpu = run(cmd)
    imported = {"events": 0}
    for f in glob.glob(os.path.join(trace, "xspace", "*", "import.json")):
        imported = json.load(open(f))
    subprocess.run(["rm", "-rf", trace], check=True)
    return secs, peak, imported, cpu


def json_load(path):
    code = "import json, sys, time; t = time.monotonic(); json.load(open(sys.argv[1])); " \
           "print(time.monotonic() - t)"
    out = subprocess.run([sys.executable, "-c", code, path], check=True, capture_output=True,
                         text=True)
    return float(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--work", default=tempfile.gettempdir())
    ap.add_argument("--mb", type=int, default=115)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.work) as work:
        path = os.path.join(work, "profile.json")
        events = generate(path, a.mb)
        with_, without, loads, peaks, cpus, imported = [], [], [], [], [], {}
        for _ in range(a.runs):  # interleaved: the machine's load falls on both alike
            secs, peak, imported, cpu = record(a.build, work, "with", path, "import")
            with_.append(secs)
            peaks.append(peak)
            plain = record(a.build, work, "without", path, "beside")
            without.append(plain[0])
            cpus.append(cpu - plain[3])
            loads.append(json_load(path))
        imp = statistics.median(with_) - statistics.median(without)
        load = statistics.median(loads)
        print("| profile | events | imported | import (record with - without) | json.load | "
              "import / json.load | record's peak |")
        print("|---|---|---|---|---|---|---|")
        print(f"| {os.path.getsize(path) / 1e6:.0f} MB | {events:,} | "
              f"{imported.get('events', 0):,} | {imp:.2f} s | {load:.2f} s | {imp / load:.2f} | "
              f"{statistics.median(peaks):.0f} MiB |")
        print(f"\nrecord with the profile {', '.join(f'{s:.2f}' for s in with_)} s; without "
              f"{', '.join(f'{s:.2f}' for s in without)} s; json.load "
              f"{', '.join(f'{s:.2f}' for s in loads)} s; the import's CPU time (user + system, "
              f"with - without) {', '.join(f'{s:.2f}' for s in cpus)} s; load average "
              f"{os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
