#!/usr/bin/env python3
"""The cost of tracing a real TensorFlow training job (issue #3).

Runs bench/keras_cnn.py (a small Keras CNN, per-step wall times from a callback) several rounds,
interleaving in every round:
  untraced   the program alone
  record     under `tensortrace record` with its defaults: runtime preloaded, the ITT collector
             (oneDNN primitives, ONEDNN_ITT_TASK_LEVEL=2), and the Python bootstrap that runs
             TensorFlow's profiler (host level 2) and imports its XSpace at the end
  tfprof     TensorFlow's profiler alone at the same host level (the program starts and stops
             tf.profiler.experimental itself), not traced by us
and, with --variants, these to find where our cost comes from:
  record-noitt   record with INTEL_LIBITTNOTIFY64 naming a missing library: ITT off
  record-itt1    record with ONEDNN_ITT_TASK_LEVEL=1 (oneDNN's primary primitives only)
  record-own     record, but the program starts TF's profiler itself after the import (the
                 bootstrap steps aside): our runtime + ITT on top of tfprof, no import hook cost
                 during the steps
  record-own-noitt  the same with ITT off: the preloaded runtime alone on top of tfprof
  record-ondemand  `record --on-demand` with no capture asked for: every source armed, nothing
                 written (the cost of leaving a recording armed)
  record-pytracer  `record --python-tracer`: with TensorFlow, our exact tracer (a C profile
                 hook writing every Python call as a slice; src/sources/python/native_tracer.cc)
  record-tfalloc `record --tf-cpu-allocator default`: TensorFlow's own CPU allocator even with
                 oneDNN off (record's default, auto, makes it a BFC allocator then)
  tfprof-bfc     tfprof with TF_CPU_ALLOCATOR_USE_BFC=true
  untraced-bfc   untraced with TF_CPU_ALLOCATOR_USE_BFC=true (what the allocator alone changes)
  record-every   `record --every S --for C` (--every, --for; default 10 and 1): a C-second
                 capture window every S seconds, the frameworks' profiler included

Per run: mean and median step time after --warmup steps, in wall time and in the CPU time
the process spent in the step (all its threads: what tracing adds is CPU work, and on a shared
machine the wall time also holds the time other programs had the CPUs). Per variant: the
median over rounds of the run means, and their min..max. Ratios are taken within each round
(the runs of a round are close in time, so they share the machine's load) and summarised the
same way.
Also: the trace size, and the seconds `record` spends after the program has exited (finding
crashed streams, the XSpace import, the summary): record's wall time minus the program's time
that it writes to tensortrace.json (duration_ns).

With --pin CPUS every run is bound to those CPUs (taskset) and with --threads N TensorFlow
runs N intra-op and N inter-op threads: on a shared machine a job pinned to one CPU with one
thread of each shares less with the other programs, so its step times spread less.

usage: tf_overhead.py [--build DIR] [--rounds N] [--steps N] [--warmup N] [--batch N]
                      [--variants LIST] [--rotate] [--pin CPUS] [--threads N] [--every S --for C]
                      [--json FILE]
                      [--keep DIR]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "keras_cnn.py")
BASE = ["untraced", "record", "tfprof"]
# per-run numbers summarised, and their short names in the output
METRICS = {"mean_ms": "mean", "median_ms": "median", "cpu_mean_ms": "cpu mean",
           "cpu_median_ms": "cpu median"}
EXTRA = ["record-noitt", "record-itt1", "record-own", "record-own-noitt", "record-ondemand",
         "record-every", "record-pytracer", "record-tfalloc", "tfprof-bfc", "untraced-bfc"]


def die(msg):
    sys.stderr.write("tf_overhead.py: %s\n" % msg)
    sys.exit(2)


def clean_env():
    """The caller's environment without anything of a tensortrace recording in it."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TENSORTRACE_") and k not in (
               "LD_PRELOAD", "INTEL_LIBITTNOTIFY64", "INTEL_ITTNOTIFY_GROUPS",
               "ONEDNN_ITT_TASK_LEVEL", "TT_BENCH_TF_PROFILE", "TT_BENCH_STEPS_JSON",
               "TF_CPU_ALLOCATOR_USE_BFC")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "1"  # the same for every variant: less noise on stderr
    return env


def dir_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def xspace_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files
                     if f.endswith(".xplane.pb"))
    return total


def run_one(variant, args, work, tt, rnd):
    tag = "%s-%d" % (variant, rnd)
    out_json = os.path.join(work, tag + ".json")
    trace = os.path.join(work, tag + ".trace")
    prog = [sys.executable, PROGRAM, "--out", out_json, "--steps", str(args.steps),
            "--batch", str(args.batch)]
    env = clean_env()
    if variant.startswith("tfprof") or variant.startswith("record-own"):
        env["TT_BENCH_TF_PROFILE"] = os.path.join(work, tag + ".tfprof")
    if variant.endswith("noitt"):
        env["INTEL_LIBITTNOTIFY64"] = os.path.join(work, "no-such-itt-collector.so")
    if variant.endswith("-bfc"):
        env["TF_CPU_ALLOCATOR_USE_BFC"] = "true"
    if variant == "record-itt1":
        env["ONEDNN_ITT_TASK_LEVEL"] = "1"
    if args.threads:
        for k in ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS", "OMP_NUM_THREADS"):
            env[k] = str(args.threads)
    cmd = prog
    if variant.startswith("record"):
        windows = {"record-ondemand": ["--on-demand"], "record-pytracer": ["--python-tracer"],
                   "record-tfalloc": ["--tf-cpu-allocator", "default"],
                   "record-every": ["--every", str(args.every), "--for", str(args.for_s)]}
        cmd = [tt, "record", "-o", trace, "--force", "--quiet"] + windows.get(variant, []) + [
            "--"] + prog
    if args.pin:
        cmd = ["taskset", "-c", args.pin] + cmd
    log = os.path.join(work, tag + ".log")
    t0 = time.perf_counter()
    with open(log, "w") as f:
        rc = subprocess.call(cmd, env=env, stdout=f, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - t0
    if rc != 0:
        with open(log) as f:
            tail = f.read()[-2000:]
        die("%s exited with %d; its output ends:\n%s" % (" ".join(cmd), rc, tail))
    with open(out_json) as f:
        doc = json.load(f)
    steps = doc["step_s"][args.warmup:]
    period = doc["period_s"][args.warmup:]
    cpu = doc["step_cpu_s"][args.warmup:]
    if len(steps) < 2:
        die("only %d steps after the warm-up; raise --steps" % len(steps))
    r = {"variant": variant, "round": rnd, "wall_s": wall, "tf_version": doc["tf_version"],
         "mean_ms": statistics.fmean(steps) * 1e3, "median_ms": statistics.median(steps) * 1e3,
         "cpu_mean_ms": statistics.fmean(cpu) * 1e3, "cpu_median_ms": statistics.median(cpu) * 1e3,
         "period_mean_ms": statistics.fmean(period) * 1e3 if period else None,
         "loadavg": os.getloadavg()[0]}
    if variant.startswith("record"):
        with open(os.path.join(trace, "tensortrace.json")) as f:
            session = json.load(f)
        r["program_s"] = session["duration_ns"] / 1e9
        r["after_exit_s"] = wall - r["program_s"]
        r["trace_bytes"] = dir_bytes(trace)
        r["xplane_bytes"] = xspace_bytes(os.path.join(trace, "xspace"))
        r["ctf_bytes"] = sum(dir_bytes(os.path.join(trace, d)) for d in os.listdir(trace)
                             if d.startswith("p") and os.path.isdir(os.path.join(trace, d)))
        if not args.keep_all:
            shutil.rmtree(trace)
    if variant == "tfprof":
        r["xplane_bytes"] = xspace_bytes(env["TT_BENCH_TF_PROFILE"])
    if "TT_BENCH_TF_PROFILE" in env and not args.keep_all:
        shutil.rmtree(env["TT_BENCH_TF_PROFILE"], ignore_errors=True)
    return r


def spread(values):
    return "%.2f [%.2f..%.2f]" % (statistics.median(values), min(values), max(values))


def main():
    ap = argparse.ArgumentParser(
        description="Step-time cost of tensortrace record on a Keras CNN, against the program "
        "untraced and under TensorFlow's own profiler alone.")
    ap.add_argument("--build", default=os.path.join(os.path.dirname(HERE), "build"),
                    help="build directory holding the tensortrace executable (default: build)")
    ap.add_argument("--rounds", type=int, default=6, help="rounds of all variants (default 6)")
    ap.add_argument("--steps", type=int, default=200, help="training steps per run (default 200)")
    ap.add_argument("--warmup", type=int, default=20,
                    help="first steps of each run left out (default 20)")
    ap.add_argument("--batch", type=int, default=64, help="images per step (default 64)")
    ap.add_argument("--variants", default=",".join(BASE),
                    help="comma-separated, in the order run each round (default %s; also: %s)"
                    % (",".join(BASE), ",".join(EXTRA)))
    ap.add_argument("--rotate", action="store_true",
                    help="start round i at variant i (mod their count), so that no variant "
                    "always runs at the same place in a round")
    ap.add_argument("--pin", help="bind every run to these CPUs (taskset -c list, e.g. 1)")
    ap.add_argument("--threads", type=int,
                    help="TensorFlow intra-op and inter-op threads (and OMP_NUM_THREADS)")
    ap.add_argument("--every", type=float, default=10,
                    help="record-every: seconds from one capture window to the next (default 10)")
    ap.add_argument("--for", dest="for_s", type=float, default=1,
                    help="record-every: each capture window's seconds (default 1)")
    ap.add_argument("--json", help="write every run's numbers here")
    ap.add_argument("--keep", help="keep the runs' files (step JSON, logs, traces) in this "
                    "directory (default: a temporary one, removed)")
    args = ap.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    for v in variants:
        if v not in BASE + EXTRA:
            die("unknown variant '%s' (known: %s)" % (v, ", ".join(BASE + EXTRA)))
    if args.rounds < 1 or args.steps < 1 or args.warmup < 0:
        die("--rounds and --steps must be at least 1, --warmup at least 0")
    if args.warmup + 2 > args.steps:
        die("--steps must exceed --warmup by at least 2")
    if args.threads is not None and args.threads < 1:
        die("--threads must be at least 1")
    if args.pin and subprocess.call(["taskset", "-c", args.pin, "true"]) != 0:
        die("--pin %s: taskset cannot bind to these CPUs" % args.pin)
    tt = os.path.join(args.build, "tensortrace")
    if any(v.startswith("record") for v in variants) and not os.access(tt, os.X_OK):
        die("no tensortrace executable in %s (build it, or give --build)" % args.build)
    args.keep_all = bool(args.keep)
    work = args.keep or tempfile.mkdtemp(prefix="tf_overhead-")
    os.makedirs(work, exist_ok=True)

    runs = []
    print("%d rounds of %s; %d steps of batch %d, first %d left out; %d CPUs, load %.2f"
          % (args.rounds, ",".join(variants), args.steps, args.batch, args.warmup,
             os.cpu_count(), os.getloadavg()[0]), flush=True)
    try:
        for rnd in range(args.rounds):
            k = rnd % len(variants) if args.rotate else 0
            for v in variants[k:] + variants[:k]:
                r = run_one(v, args, work, tt, rnd)
                runs.append(r)
                extra = ""
                if "after_exit_s" in r:
                    extra = "  after exit %.2f s, trace %.1f MB" % (r["after_exit_s"],
                                                                   r["trace_bytes"] / 1e6)
                print("round %d %-17s mean %7.2f ms  median %7.2f ms  load %.2f%s"
                      % (rnd, v, r["mean_ms"], r["median_ms"], r["loadavg"], extra), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    by = {v: [r for r in runs if r["variant"] == v] for v in variants}
    print("\nper variant, median over rounds [min..max] of each run's step time (ms); wall time,"
          " and the process's CPU time (all threads) in the step:")
    for v in variants:
        rs = by[v]
        print("  %-17s " % v + "  ".join("%s %s" % (METRICS[k], spread([r[k] for r in rs]))
                                         for k in METRICS))

    summary = {v: {} for v in variants}
    if "untraced" in by:
        print("\nslowdown over untraced, per round, median [min..max] (%):")
        for v in variants:
            if v == "untraced":
                continue
            cells = []
            for k in METRICS:
                pct = [(b[k] / a[k] - 1) * 100 for a, b in zip(by["untraced"], by[v])]
                summary[v]["over_untraced_pct_" + k] = pct
                cells.append("%s %s" % (METRICS[k], spread(pct)))
            print("  %-17s " % v + "  ".join(cells))
        if "tfprof" in by:
            print("\nabove TensorFlow's profiler alone, per round (percentage points of the "
                  "untraced step):")
            for v in variants:
                if v in ("untraced", "tfprof"):
                    continue
                cells = []
                for k in METRICS:
                    pp = [(b[k] - c[k]) / a[k] * 100
                          for a, b, c in zip(by["untraced"], by[v], by["tfprof"])]
                    summary[v]["over_tfprof_pp_" + k] = pp
                    cells.append("%s %s" % (METRICS[k], spread(pp)))
                print("  %-17s " % v + "  ".join(cells))
    rec = [r for r in runs if "after_exit_s" in r]
    if rec:
        print("\nrecord, per run, median [min..max]:")
        for v in variants:
            rs = [r for r in by[v] if "after_exit_s" in r]
            if not rs:
                continue
            print("  %-17s after exit %s s, trace %s MB (XSpace %s MB, our streams %s MB)"
                  % (v, spread([r["after_exit_s"] for r in rs]),
                     spread([r["trace_bytes"] / 1e6 for r in rs]),
                     spread([r["xplane_bytes"] / 1e6 for r in rs]),
                     spread([r["ctf_bytes"] / 1e6 for r in rs])))
    if "tfprof" in by:
        print("  %-17s XSpace %s MB" % ("tfprof", spread([r["xplane_bytes"] / 1e6
                                                          for r in by["tfprof"]])))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runs": runs, "summary": summary, "rounds": args.rounds,
                       "steps": args.steps, "warmup": args.warmup, "batch": args.batch}, f,
                      indent=1)


if __name__ == "__main__":
    main()
