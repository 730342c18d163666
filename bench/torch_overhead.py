#!/usr/bin/env python3
"""The cost of tracing a PyTorch training loop (issue #19): bench/torch_cnn.py, several rounds,
interleaving in every round
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
Per run: the mean step time after --warmup steps (wall and process CPU). Per round: each traced
variant's mean over the untraced one; summarised as the median (min..max) over rounds. The
targets: record at most 2 percentage points above torchprof (issue 19), and the sampler's cost
(record over nosample) at most 2 points (issue 24).

usage: torch_overhead.py [--build DIR] [--rounds N] [--steps N] [--warmup N] [--json FILE]
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
VARIANTS = ["untraced", "record", "nosample", "pysample", "exact", "torchprof"]


def run(variant, args, tmp):
    env = dict(os.environ, TT_BENCH_STEPS=str(args.steps))
    cmd = [sys.executable, PROGRAM]
    if variant in ("record", "nosample", "pysample", "exact"):
        trace = os.path.join(tmp, "trace")
        off = {"record": [], "nosample": ["--python-sample-ms", "0"],
               "pysample": ["--python-sample-ms", "5"], "exact": ["--python-tracer"]}[variant]
        if variant == "pysample":
            env["TENSORTRACE_TEST_NO_NATIVE_SAMPLER"] = "1"
        cmd = [os.path.join(args.build, "tensortrace"), "record", "--quiet", "--force", "-o",
               trace] + off + ["--"] + cmd
    if variant == "torchprof":
        env.update(TT_BENCH_TORCHPROF="1", TT_BENCH_OUT=os.path.join(tmp, "prof.json"))
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("torch_overhead.py: %s failed (%d): %s" % (variant, out.returncode,
                                                           out.stderr[-2000:]))
    line = [l for l in out.stdout.splitlines() if l.startswith("{")][-1]
    d = json.loads(line)
    return {k: statistics.mean(d[k][args.warmup:]) for k in ("steps_ms", "cpu_ms")}


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.steps <= args.warmup:
        sys.exit("torch_overhead.py: --steps must exceed --warmup")
    ratios = {v: {"steps_ms": [], "cpu_ms": []} for v in VARIANTS[1:]}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            res = {v: run(v, args, tmp) for v in VARIANTS}
            for v in VARIANTS[1:]:
                for k in ("steps_ms", "cpu_ms"):
                    ratios[v][k].append(res[v][k] / res["untraced"][k])
            print("round %d: %s" % (r + 1, ", ".join(
                "%s %.2f ms" % (v, res[v]["steps_ms"]) for v in VARIANTS)), flush=True)
    out = {v: {k: summary(x) for k, x in m.items()} for v, m in ratios.items()}
    for k, label in (("steps_ms", "wall"), ("cpu_ms", "cpu")):
        rec, prof = out["record"][k]["median"], out["torchprof"][k]["median"]
        print("%s: record x%.3f, torch.profiler alone x%.3f of untraced: record %+.1f points "
              "over torch.profiler (target <= +2.0)" % (label, rec, prof, (rec - prof) * 100))
        off = out["nosample"][k]["median"]
        print("%s: record x%.3f, record without the Python sampler x%.3f of untraced: sampling "
              "%+.1f points (target <= +2.0)" % (label, rec, off, (rec - off) * 100))
        print("%s: sampling in Python x%.3f of untraced (%+.1f points over no sampling)"
              % (label, out["pysample"][k]["median"], (out["pysample"][k]["median"] - off) * 100))
        print("%s: record --python-tracer (exact stacks) x%.3f of untraced"
              % (label, out["exact"][k]["median"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
