#!/usr/bin/env python3
"""The cost of tracing a PyTorch training loop (issue #19): bench/torch_cnn.py, several rounds,
running in every round each of these variants once
  untraced   the program alone
  record     under `tensortrace record` with its defaults: runtime preloaded, the ITT collector
             (oneDNN primitives), the bootstrap running Kineto (CPU, shapes, memory) and the
             Python sampler every 5 ms (native in CPython 3.11), imported at the end
  nosample   the same with the Python sampler off (--python-sample-ms 0)
  pysample   the same sampling done in Python (--python-sample-ms 5 without the native
             sampler), what other CPython versions get when they ask for it
  exact      record --python-tracer: Kineto's Python tracer gives every op its exact stack
  torchprof  torch.profiler alone with the same activities, started by the program around its
             loop and saved (as the bootstrap does), not traced by us
and, to find where record's cost comes from (named in --variants):
  noitt      nosample without the ITT collector (--sources cuda,nvtx,python)
  own        nosample, but the program runs torch.profiler itself (torchprof's), so the
             bootstrap steps aside: our runtime and ITT on top of torchprof, without the
             bootstrap's module and optimizer hooks
Per run: the mean and the median step time after --warmup steps, in wall time and in the CPU
time of the process (all its threads). Per round: each traced variant's figure over the
untraced run's of the same round; summarised as the median (min..max) over rounds. The
targets: record at most 2 percentage points above torchprof (issue 19), and the sampler's cost
(record over nosample) at most 2 points (issue 24).

Every variant runs with glibc's malloc thresholds fixed (GLIBC_TUNABLES, --malloc fixed, the
default): with glibc's dynamic ones, the untraced program gives a few MB of freed buffers back
to the kernel every step and takes them again as fresh pages (about 330,000 minor faults in 200
steps against 150,000 under torch.profiler, whose own small allocations keep the heap from
shrinking), which made every traced variant look faster than the program alone. --malloc
default leaves glibc as it is.

As tf_overhead.py: --pin binds every run to those CPUs (taskset) so that the job shares less
with the machine's other programs, and --rotate starts round i at variant i, so that no variant
always runs first (the first run of a round came out slowest in the earlier runs).

usage: torch_overhead.py [--build DIR] [--rounds N] [--steps N] [--warmup N] [--variants LIST]
                         [--rotate] [--pin CPUS] [--stat mean|median]
                         [--malloc fixed|default] [--json FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "torch_cnn.py")
VARIANTS = ["untraced", "record", "nosample", "pysample", "exact", "torchprof", "noitt", "own"]
RECORD_FLAGS = {"record": [], "nosample": ["--python-sample-ms", "0"],
                "pysample": ["--python-sample-ms", "5"], "exact": ["--python-tracer"],
                "noitt": ["--python-sample-ms", "0", "--sources", "cuda,nvtx,python"],
                "own": ["--python-sample-ms", "0"]}
KEYS = ("steps_ms", "cpu_ms")
# No mmap for blocks under 32 MiB (glibc's largest threshold) and no trimming of the heap.
FIXED_MALLOC = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296"


def die(msg):
    sys.exit("torch_overhead.py: " + msg)


def run(variant, args, tmp):
    env = dict(os.environ, TT_BENCH_STEPS=str(args.steps))
    if args.malloc == "fixed":
        env["GLIBC_TUNABLES"] = FIXED_MALLOC
    cmd = [sys.executable, PROGRAM]
    if variant in RECORD_FLAGS:
        if variant == "pysample":
            env["TENSORTRACE_TEST_NO_NATIVE_SAMPLER"] = "1"
        cmd = [os.path.join(args.build, "tensortrace"), "record", "--quiet", "--force", "-o",
               os.path.join(tmp, "trace")] + RECORD_FLAGS[variant] + ["--"] + cmd
    if variant in ("torchprof", "own"):
        env.update(TT_BENCH_TORCHPROF="1", TT_BENCH_OUT=os.path.join(tmp, "prof.json"))
    if args.pin:
        cmd = ["taskset", "-c", args.pin] + cmd
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        die("%s failed (%d): %s" % (variant, out.returncode, out.stderr[-2000:]))
    line = [l for l in out.stdout.splitlines() if l.startswith("{")][-1]
    d = json.loads(line)
    stat = statistics.median if args.stat == "median" else statistics.mean
    return {k: stat(d[k][args.warmup:]) for k in KEYS}


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--variants", default="untraced,record,nosample,torchprof",
                    help="comma-separated, untraced first (known: %s)" % ",".join(VARIANTS))
    ap.add_argument("--rotate", action="store_true",
                    help="start round i at variant i (mod their count)")
    ap.add_argument("--pin", help="bind every run to these CPUs (taskset -c list, e.g. 1)")
    ap.add_argument("--stat", choices=("mean", "median"), default="median",
                    help="each run's figure over its steps (default median: a step that "
                    "another program on the machine delayed moves it least)")
    ap.add_argument("--malloc", choices=("fixed", "default"), default="fixed",
                    help="glibc's malloc thresholds: fixed for every variant (default) or "
                    "glibc's dynamic ones")
    ap.add_argument("--json")
    args = ap.parse_args()
    args.variants = [v for v in args.variants.split(",") if v]
    if not args.variants or args.variants[0] != "untraced":
        die("--variants must start with untraced (the reference of every ratio)")
    for v in args.variants:
        if v not in VARIANTS:
            die("unknown variant '%s' (known: %s)" % (v, ", ".join(VARIANTS)))
    if args.rounds < 1 or args.warmup < 0 or args.steps < args.warmup + 2:
        die("--rounds must be at least 1 and --steps exceed --warmup by at least 2")
    if args.pin and subprocess.call(["taskset", "-c", args.pin, "true"]) != 0:
        die("--pin %s: taskset cannot bind to these CPUs" % args.pin)
    if any(v in RECORD_FLAGS for v in args.variants) and not os.access(
            os.path.join(args.build, "tensortrace"), os.X_OK):
        die("no tensortrace executable in %s (build it, or give --build)" % args.build)
    return args


def report(out, names):
    for k, label in (("steps_ms", "wall"), ("cpu_ms", "cpu")):
        med = {v: out[v][k]["median"] for v in names}
        if "record" in med and "torchprof" in med:
            print("%s: record x%.3f, torch.profiler alone x%.3f of untraced: record %+.1f "
                  "points over torch.profiler (target <= +2.0)"
                  % (label, med["record"], med["torchprof"],
                     (med["record"] - med["torchprof"]) * 100))
        if "record" in med and "nosample" in med:
            print("%s: record x%.3f, without the Python sampler x%.3f of untraced: sampling "
                  "%+.1f points (target <= +2.0)" % (label, med["record"], med["nosample"],
                                                     (med["record"] - med["nosample"]) * 100))
        print("%s: %s of untraced" % (label, ", ".join(
            "%s x%.3f [%.3f..%.3f]" % (v, med[v], out[v][k]["min"], out[v][k]["max"])
            for v in names)))


def main():
    args = parse_args()
    names = args.variants[1:]
    ratios = {v: {k: [] for k in KEYS} for v in names}
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            shift = r % len(args.variants) if args.rotate else 0
            order = args.variants[shift:] + args.variants[:shift]
            res = {v: run(v, args, tmp) for v in order}
            rounds.append({"order": order, "runs": res})
            for v in names:
                for k in KEYS:
                    ratios[v][k].append(res[v][k] / res["untraced"][k])
            print("round %d: %s" % (r + 1, ", ".join(
                "%s %.2f ms (cpu %.2f)" % (v, res[v]["steps_ms"], res[v]["cpu_ms"])
                for v in order)), flush=True)
    out = {v: {k: summary(x) for k, x in m.items()} for v, m in ratios.items()}
    report(out, names)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"settings": {k: getattr(args, k) for k in (
                "rounds", "steps", "warmup", "rotate", "pin", "stat", "malloc")},
                "ratios": out, "rounds": rounds}, f, indent=2)


if __name__ == "__main__":
    main()
