#!/usr/bin/env python3
"""Speed of `tensortrace replay` on a trace of about a million events written by the real
runtime, against `tensortrace stats --view op` reading the same trace, in one run.

  python3 bench/replay_bench.py [--build build] [--events 1000000] [--work /tmp]
                                [--optimize DIR]...

It writes a trace with tests/programs/synthetic_job.cc (steps of at least 100 us: framework ops,
API launches,
primitives, allocations, and the kernels and copies they launched), then times `replay` of
every step (the graphs built once and replayed once), `replay` with three what-ifs (four more
replays of every step: each what-if, and all together), and `stats --view op` on the same
trace. One replay costs the difference of the two replay runs over four. Target: under one
second per replay. Then `optimize --search mcmc` (greedy, then the Metropolis search with its
default budget) on the same trace and on each recording given with --optimize (a DDP
recording, ...). Target: under a minute each."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def run(cmd, env=None, cpu=None):
    """Runs cmd; returns (wall seconds, stdout); `cpu` (a list) gets its user + system seconds,
    which other processes on a shared machine do not inflate. Exits on failure."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        secs = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"replay_bench: {' '.join(cmd)} failed: {err.read().decode()[:500]}")
        if cpu is not None:
            cpu.append(usage.ru_utime + usage.ru_stime)
        return secs, out.read().decode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--work", default=tempfile.gettempdir())
    ap.add_argument("--optimize", action="append", default=[], metavar="DIR",
                    help="a recording to time `optimize --search mcmc` on (repeatable)")
    a = ap.parse_args()
    job, tt = f"{a.build}/tests/tt_synthetic_job", f"{a.build}/tensortrace"
    for tool in (job, tt):
        if not os.access(tool, os.X_OK):
            sys.exit(f"replay_bench: {tool} not found; build first (cmake --build {a.build})")
    probe = tempfile.mkdtemp(dir=a.work, prefix="tt-bench-probe-")
    run([job, "1000", "100"], env={**os.environ, "TENSORTRACE_DIR": probe})
    info = json.loads(run([tt, "info", probe, "--json"])[1])
    per_step = info["totals"]["events"] / 1000.0
    shutil.rmtree(probe)

    trace = tempfile.mkdtemp(dir=a.work, prefix="tt-bench-trace-")
    steps = max(2, int(a.events / per_step))
    run([job, str(steps), "100"], env={**os.environ, "TENSORTRACE_DIR": trace})
    events = json.loads(run([tt, "info", trace, "--json"])[1])["totals"]["events"]
    args = [tt, "replay", trace, "--json", "--skip-warmup", "0"]
    cpu = []
    base_s, out = run(args, cpu=cpu)
    j = json.loads(out)
    whatif_s, _ = run(args + ["--what-if", "MatMul=0.5", "--what-if", "Relu=0",
                              "--what-if", "BiasAdd=2"], cpu=cpu)
    stats_s, _ = run([tt, "stats", trace, "--view", "op"], cpu=cpu)
    optimized = [(trace, "the synthetic trace")] + [(d, d) for d in a.optimize]
    timings = []
    for d, name in optimized:
        t, out = run([tt, "optimize", d, "--search", "mcmc", "--json"], cpu=cpu)
        timings.append((name, t, cpu[-1], len(json.loads(out)["tried"])))
    shutil.rmtree(trace)
    per_replay = max(0.0, whatif_s - base_s) / 4
    per_replay_cpu = max(0.0, cpu[1] - cpu[0]) / 4
    print(f"events in the trace      {events:,}")
    print(f"steps replayed           {j['steps_replayed']} (error {j['error'] * 100:+.2f}%)")
    print(f"                         wall s   cpu s")
    print(f"replay (load, build, 1x) {base_s:6.2f}  {cpu[0]:6.2f}  "
          f"({cpu[0] / cpu[2]:.2f}x stats --view op in CPU time)")
    print(f"replay + 3 what-ifs      {whatif_s:6.2f}  {cpu[1]:6.2f}")
    print(f"stats --view op          {stats_s:6.2f}  {cpu[2]:6.2f}")
    ok = per_replay_cpu < 1
    print(f"one replay of the steps  {per_replay:6.3f}  {per_replay_cpu:6.3f}  "
          f"{'PASS' if ok else 'FAIL'} < 1 s per replay (CPU time)")
    for name, t, c, tried in timings:
        fast = t < 60
        ok = ok and fast
        print(f"optimize --search mcmc   {t:6.2f}  {c:6.2f}  {'PASS' if fast else 'FAIL'} < 60 s "
              f"(wall), {tried} plans replayed: {name}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
