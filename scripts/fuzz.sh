#!/usr/bin/env bash
# Fuzzes the trace reader (fuzz/trace_fuzzer.cc: streams, metadata, model, every stats view)
# and record's XSpace import (fuzz/xspace_fuzzer.cc: the bytes of an .xplane.pb) with libFuzzer
# under AddressSanitizer+UndefinedBehaviorSanitizer, for SECONDS in all (default 60, half each).
#   scripts/fuzz.sh [SECONDS]
# Builds build-fuzz/ with clang, makes seed corpora (traces recorded by the test programs; a
# small XSpace from fuzz/xspace_seed.textproto and the checked-in TensorFlow profile), replays
# fuzz/crashes/ (reproducers of fixed bugs), then fuzzes. Exits non-zero on any crash,
# timeout (10 s per input), leak, out-of-memory (2 GiB) or sanitizer report; the input that
# failed is left in build-fuzz/artifacts/. TT_FUZZ_REPLAY=0 skips the replay (to fuzz while a
# reproducer's bug is still open). Needs scripts/install-deps.sh (clang, libclang-rt, llvm).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
dir=build-fuzz
jobs=$(nproc)

# A build dir configured with another compiler cannot switch to clang: start it again.
if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' "$dir/CMakeCache.txt"; then
  rm -rf "$dir"
fi
echo "== $dir: configure and build (clang, libFuzzer, ASan+UBSan; $(date -u +%T) UTC)"
CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTT_FUZZ=ON \
  -DTT_SANITIZE=address,undefined -DTT_BUILD_BENCH=OFF >/dev/null
cmake --build "$dir" -j"$jobs" --target trace_fuzzer xspace_fuzzer tt_synthetic_job \
  tt_trace_program >/dev/null

symbolizer=$(command -v llvm-symbolizer || true)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0${symbolizer:+:external_symbolizer_path=$symbolizer}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

echo "== seed corpus from recorded traces"
traces=$(mktemp -d)
trap 'rm -rf "$traces"' EXIT
# The programs write their traces themselves (TENSORTRACE_DIR), as under `record`; `record`
# itself is not used here, as a clang-sanitized build preloads gcc's ASan runtime into them.
# Small packets (64 KiB, the minimum) keep the seeds small; make_corpus cuts their padding.
record() {  # name, program and arguments
  local name=$1
  shift
  mkdir -p "$traces/$name"
  TENSORTRACE_DIR="$traces/$name" TENSORTRACE_BUFFER_SIZE=65536 "$@" >/dev/null
}
record synthetic "$dir/tests/tt_synthetic_job" 3 0
record synthetic2 "$dir/tests/tt_synthetic_job" 2 0 2
record threads "$dir/tests/tt_trace_program" threads 2 50
record fork "$dir/tests/tt_trace_program" fork 5
rm -rf "$dir/seeds"
python3 fuzz/make_corpus.py "$dir/seeds" "$traces"
rm -rf "$dir/xspace-seeds"
mkdir -p "$dir/xspace-seeds"
protoc --encode=tensorflow.profiler.XSpace -I src/format/proto src/format/proto/xplane.proto \
  <fuzz/xspace_seed.textproto >"$dir/xspace-seeds/small.xplane.pb"
cp tests/data/tf_cpu_job.xplane.pb "$dir/xspace-seeds/"

mkdir -p "$dir/corpus" "$dir/xspace-corpus" "$dir/artifacts"
# The fuzzer's scratch trace directory: here, so that a run that crashed leaves nothing in /tmp.
rm -rf "$dir/tmp"
mkdir -p "$dir/tmp"
export TMPDIR="$PWD/$dir/tmp"
fuzzer=("$dir/fuzz/trace_fuzzer" -timeout=10 -rss_limit_mb=2048 -max_len=140000
        -dict=fuzz/trace.dict -artifact_prefix="$dir/artifacts/" -print_final_stats=1)
if [ "${TT_FUZZ_REPLAY:-1}" != 0 ] && compgen -G "fuzz/crashes/*" >/dev/null; then
  echo "== replaying fuzz/crashes/"
  "${fuzzer[@]}" fuzz/crashes/*
fi
half=$(( (secs + 1) / 2 ))
echo "== fuzzing the reader for $half s"
"${fuzzer[@]}" -max_total_time="$half" "$dir/corpus" "$dir/seeds"
echo "== fuzzing the XSpace import for $half s"
"$dir/fuzz/xspace_fuzzer" -timeout=10 -rss_limit_mb=2048 -max_len=200000 \
  -artifact_prefix="$dir/artifacts/xspace-" -print_final_stats=1 -max_total_time="$half" \
  "$dir/xspace-corpus" "$dir/xspace-seeds" fuzz/xspace-crashes
echo "fuzz: no crash, timeout, leak or sanitizer report in $secs s"
