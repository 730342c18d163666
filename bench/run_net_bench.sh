#!/usr/bin/env bash
# The socket source's cost per call against the bare call, in one run: tt_bench_net (a 64-byte
# loopback send+recv pair, and a 64-byte write to /dev/null) untraced, under `record --sources
# none` (the runtime preloaded, no interposer) and under `record --sources net` (every send and
# recv recorded; the write passes through the interposer). Times are the calling thread's CPU
# time. Rounds are interleaved; the median of the rounds is reported with the ratios against
# untraced and, for net, against the runtime alone (none): the source's own cost.
#
#   bench/run_net_bench.sh [BUILD_DIR]      (default: build; builds nothing)
#
# Knobs: TTB_ROUNDS (5), TTB_ITERS (100000 calls per repetition), TTB_REPS (7 repetitions).
set -euo pipefail

BUILD=${1:-build}
ROUNDS=${TTB_ROUNDS:-5}
ITERS=${TTB_ITERS:-100000}
REPS=${TTB_REPS:-7}
BENCH=$BUILD/bench/tt_bench_net
CLI=$BUILD/tensortrace
for f in "$BENCH" "$CLI"; do
  [ -x "$f" ] || { echo "run_net_bench: $f is missing: build first" >&2; exit 1; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

run() {  # MODE LOOP: prints "MODE KEY VALUE"
  local mode=$1 loop=$2
  case $mode in
    bare) "$BENCH" "$loop" "$ITERS" "$REPS" ;;
    none | net)
      "$CLI" record --quiet --sources "$mode" -o "$TMP/$mode" -- "$BENCH" "$loop" "$ITERS" \
        "$REPS" 2>>"$TMP/log" ;;
  esac | sed "s/^/$mode /"
  rm -rf "${TMP:?}/$mode"
}

for ((r = 0; r < ROUNDS; ++r)); do
  for loop in send write; do
    for m in bare none net; do run $m $loop; done
  done
done >"$TMP/raw"

python3 - "$TMP/raw" <<'PY'
import statistics, sys
vals = {}
for line in open(sys.argv[1]):
    mode, key, v = line.split()
    vals.setdefault((mode, key), []).append(float(v))
med = {k: statistics.median(v) for k, v in vals.items()}
for key, what in (("send_recv_ns", "send+recv pair (a socket)"),
                  ("write_devnull_ns", "write to /dev/null (not a socket)")):
    bare = med[("bare", key)]
    print(f"{what}:")
    for mode in ("bare", "none", "net"):
        v = med[(mode, key)]
        print(f"  {mode:5s} {v:9.1f} ns   x{v / bare:.3f} of bare   {v - bare:+.1f} ns")
    none, net = med[("none", key)], med[("net", key)]
    print(f"  net against none: x{net / none:.3f}   {net - none:+.1f} ns")
PY
