#!/usr/bin/env python3
"""Every kind of what-if against the real change (issue 35, item 3): each program recorded
unchanged and replayed with the what-if, against the same program run with the change made for
real (an environment switch or other arguments), recorded. Target: within 10% of the real
median step.

  python3 bench/whatif_bench.py [--build build] [--runs 3] [--only NAME]... [--work DIR]

Two kinds of case. `alternate`: one recording whose even steps have the work and odd steps do
not (the same load on the machine for both); the what-if's median prediction for the even
steps against the odd steps' median, one error a recording. `separate`: `--runs` recordings of
the unchanged program and as many of the changed one; each recording's median prediction
against the median of the real runs' median steps (as `replay` measures them), and the median
of the predictions. Prints a Markdown table (bench/RESULTS.md keeps them). The gloo jobs run in
a network namespace of their own (`unshare -n`), skipped where none can be made.

Needs TensorFlow and PyTorch in the python3 on PATH; takes about 15 minutes on 2 cores."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Case:
    def __init__(self, name, program, args, what_if, *, real_env=None, real_args=None,
                 alternate=False, netns=False, replay_args=(), changed=None):
        self.name, self.program, self.args, self.what_if = name, program, args, what_if
        self.real_env, self.real_args = real_env or {}, real_args
        self.alternate, self.netns, self.replay_args = alternate, netns, list(replay_args)
        self.changed = changed  # the real change, as the table says it

    def path(self):
        for d in ("tests/programs", "tests/corpus"):
            p = os.path.join(ROOT, d, self.program)
            if os.path.exists(p):
                return p
        sys.exit("no program " + self.program)


def map_line(_):
    with open(os.path.join(ROOT, "tests/programs/tf_input_bound.py")) as f:
        n = next(i for i, line in enumerate(f, 1) if "tf.py_function(slow" in line)
    return "line:tf_input_bound.py:%d=0" % n


def summary_lines(out):
    m = re.search(r"summary_lines (\d+-\d+)", out)
    return "line:tf_summary_loop.py:%s=0" % m.group(1) if m else None


CASES = [
    Case("input", "tf_input_cached_loop.py", ["10", "20", "spin"], "input=0", alternate=True,
         changed="odd steps read the map's output cached"),
    Case("input-fit", "tf_input_bound.py", [], "input=0", real_env={"TT_CACHE_INPUT": "1"},
         changed="TT_CACHE_INPUT=1 (cached before fit)"),
    Case("input-fit-parallel", "tf_data_py_function.py", ["30"], "input=0",
         real_env={"TT_CACHE_INPUT": "1"}, changed="TT_CACHE_INPUT=1 (cached before fit)"),
    Case("line-input", "tf_input_bound.py", [], map_line, real_env={"TT_NO_PY_FUNCTION": "1"},
         changed="TT_NO_PY_FUNCTION=1 (the map without its py_function)"),
    Case("py-function", "tf_sleep_op_loop.py", ["20", "50", "alternate-spin"], "EagerPyFunc=0",
         alternate=True, replay_args=["--skip-warmup", "2"],
         changed="odd steps without the py_function"),
    Case("line", "tf_summary_loop.py", ["40"], summary_lines, real_env={"TT_NO_SUMMARY": "1"},
         changed="TT_NO_SUMMARY=1 (the two lines gone)"),
    Case("op", "torch_dropout_loop.py", ["30"], "aten::dropout=0",
         real_env={"TT_NO_DROPOUT": "1"}, changed="TT_NO_DROPOUT=1 (nn.Identity)"),
    Case("scope", "torch_dropout_loop.py", ["30"], "scope:Sequential_0/=0.5",
         real_env={"TT_HALF_BLOCK": "1"}, changed="TT_HALF_BLOCK=1 (first block half as wide)"),
    Case("bucket", "torch_ddp_buckets.py", ["20"], "tensor-fusion=1M", alternate=True,
         netns=True, replay_args=["--skip-warmup", "2"],
         changed="odd steps with bucket_cap_mb=1"),
    Case("straggler", "torch_ddp_straggler.py", ["40", "20", "4", "alternate"], "rank=3:like=0",
         alternate=True, netns=True, changed="odd steps without rank 3's sleep"),
    Case("batch", "torch_batch_loop.py", ["32", "30"], "batch=2", real_args=["64", "30"],
         changed="batch 64 for 32"),
    Case("gil", "tf_gil_maps.py", ["30", "4"], "augment=0", real_env={"TT_NO_AUGMENT": "1"},
         changed="TT_NO_AUGMENT=1 (the second Python map gone)"),
]


def record(cli, case, out_dir, env=None, args=None):
    cmd = [cli, "record", "-o", out_dir, "--", sys.executable, case.path()]
    cmd += case.args if args is None else args
    if case.netns:
        cmd = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"] + cmd
    r = subprocess.run(cmd, env=dict(os.environ, **(env or {})), capture_output=True,
                       text=True, timeout=600)
    if r.returncode != 0:
        sys.exit("record failed: %s\n%s" % (" ".join(cmd), r.stderr[-2000:]))
    return r.stdout


def replay(cli, case, trace, what_if=None):
    cmd = [cli, "replay", trace, "--json"] + case.replay_args
    if what_if:
        cmd += ["--what-if", what_if]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit("replay failed: %s\n%s" % (" ".join(cmd), r.stderr[-2000:]))
    return json.loads(r.stdout)


def spec_of(case, out):
    return case.what_if(out) if callable(case.what_if) else case.what_if


def run_alternate(cli, case, work, runs):
    """Each recording: (with, predicted, real) in ms, the even steps' and the odd steps'."""
    rows = []
    for i in range(runs):
        trace = os.path.join(work, "%s-%d" % (case.name, i))
        out = record(cli, case, trace)
        j = replay(cli, case, trace, spec_of(case, out))
        with_, pred, real = [], [], []
        for k, s in enumerate(j["steps"]):
            if s["numbers"][0] % 2 == 0:
                with_.append(s["measured_ns"])
                pred.append(j["what_ifs"][0]["steps"][k]["predicted_ns"])
            else:
                real.append(s["measured_ns"])
        rows.append(tuple(statistics.median(v) / 1e6 for v in (with_, pred, real)))
    return rows


def run_separate(cli, case, work, runs):
    """Each unchanged recording: (with, predicted, real), real the median over the real runs."""
    reals = []
    for i in range(runs):
        trace = os.path.join(work, "%s-real-%d" % (case.name, i))
        record(cli, case, trace, case.real_env, case.real_args)
        reals.append(replay(cli, case, trace)["measured_median_ns"] / 1e6)
    real = statistics.median(reals)
    rows = []
    for i in range(runs):
        trace = os.path.join(work, "%s-%d" % (case.name, i))
        out = record(cli, case, trace)
        j = replay(cli, case, trace, spec_of(case, out))
        rows.append((j["measured_median_ns"] / 1e6,
                     j["what_ifs"][0]["predicted_median_ns"] / 1e6, real))
    return rows


def can_unshare():
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", action="append", default=[],
                    help="a case by name: " + ", ".join(c.name for c in CASES))
    ap.add_argument("--work", default=None, help="where the recordings go (a temporary "
                    "directory, removed, by default)")
    a = ap.parse_args()
    cli = os.path.join(a.build, "tensortrace")
    if not os.access(cli, os.X_OK):
        sys.exit("no %s: build first" % cli)
    unknown = set(a.only) - {c.name for c in CASES}
    if unknown:
        sys.exit("unknown case(s): %s" % ", ".join(sorted(unknown)))
    tmp = None if a.work else tempfile.TemporaryDirectory(prefix="whatif_bench")
    work = a.work or tmp.name
    print("| what-if (program) | real change | runs | with the work | predicted | real | "
          "error (each) | median error |")
    print("|---|---|---:|---:|---:|---:|---|---:|")
    for case in CASES:
        if a.only and case.name not in a.only:
            continue
        if case.netns and not can_unshare():
            print("| %s | skipped: no network namespace (unshare -n) |||||||" % case.name)
            continue
        print("running %s..." % case.name, file=sys.stderr, flush=True)
        rows = (run_alternate if case.alternate else run_separate)(cli, case, work, a.runs)
        errors = [100 * (p - r) / r for _, p, r in rows]
        med = lambda k: statistics.median(row[k] for row in rows)  # noqa: E731
        spec = case.what_if if isinstance(case.what_if, str) else case.what_if("")
        if case.name == "line":
            spec = "line:...=0 (the summaries)"
        print("| `%s` (%s) | %s | %d | %.2f ms | %.2f ms | %.2f ms | %s | %+.1f%% |" % (
            spec, " ".join([case.program] + case.args), case.changed, len(rows), med(0), med(1),
            med(2), " / ".join("%+.1f%%" % e for e in errors), statistics.median(errors)),
            flush=True)


if __name__ == "__main__":
    main()
