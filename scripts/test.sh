#!/usr/bin/env bash
# Builds and runs every test: the normal build, then AddressSanitizer+UndefinedBehaviorSanitizer
# (all tests), then ThreadSanitizer (the runtime, format and multi-threaded stats tests), then a
# short libFuzzer run of the reader (scripts/fuzz.sh; TT_FUZZ_SECONDS, default 60).
# TT_QUICK=1 runs the normal build only.
set -euo pipefail
cd "$(dirname "$0")/.."
# The Python packages of scripts/install-deps.sh live in .venv: its python3 first on PATH.
if [ -x .venv/bin/python3 ]; then export PATH="$PWD/.venv/bin:$PATH"; fi
jobs=$(nproc)

# A test that fails runs once more (ctest --repeat until-pass:2): the workloads are real
# TensorFlow, JAX and PyTorch jobs on a loaded 2-core machine, and a rare failure of one of
# them should not hide the rest. Every failed try stays in the log and is listed after the
# suite ("failed once"), to be fixed: a test that fails twice fails the suite.
retry="--repeat until-pass:2"
list_retried() {  # ctest log
  grep -E '\*\*\*(Failed|Timeout|Exception)' "$1" | sed 's/^/failed once (or twice): /' || true
}

run_suite() {  # build dir, cmake options, ctest options[, targets to build: default all]
  local dir=$1 opts=$2 filter=$3 targets=${4:-}
  echo "== $dir: configure and build ($(date -u +%T) UTC)"
  cmake -S . -B "$dir" $opts >/dev/null
  cmake --build "$dir" -j"$jobs" ${targets:+--target $targets} >/dev/null
  echo "== $dir: tests ($(date -u +%T) UTC)"
  (cd "$dir" && ctest --output-on-failure $retry -j"$jobs" $filter) 2>&1 | tee "$dir/ctest.log"
  list_retried "$dir/ctest.log"
}

# The Python bootstrap's unit tests (python/tests: pytest, in the venv's python3 first on PATH);
# run before the normal suite, whose count closes the log. A failure stops the script, as a
# failed suite does.
echo "== python: unit tests ($(date -u +%T) UTC)"
python3 -m pytest -q -p no:cacheprovider python/tests
run_suite build "-DCMAKE_BUILD_TYPE=RelWithDebInfo" ""
if [ "${TT_QUICK:-0}" != 1 ]; then
  # No separate Debug stage: the code has no assert() (errors are thrown and reported), so a
  # -O0 build would check nothing the ASan+UBSan build below does not, at about 8 of the CI's
  # minutes.
  # Tests that record Python programs (TensorFlow, JAX, ittapi) run with leak checking off:
  # the interpreter and the frameworks do not free everything at exit, and LeakSanitizer,
  # preloaded into them with our library, would report their leaks as failures. ASan and UBSan
  # still check every access in those processes.
  py_tests='^(Corpus|TfBootstrap|TfWorkloads|TfMemory|Steps|TorchWorkloads|CodeView|CommTorch|CommGapsTorch|CommTf|CommClockTorch|CommOverlapTorch|TfP2p\.|JaxRank|JaxCollectives|DiffTorch|ReplayFidelity|ReplayPipeline|ReplayTfGraph|ReplayCpuThreads|ReplayGil|CaptureFrameworks|Top\.Keras|IttApi|IttTensorFlow|XSpaceImport\.Record|ReportOptions\.IncludeWarmup|StatsOptions\.IncludeWarmup|KinetoStream\.Record|ImportMemory\.Record|JobIdentity\.Gloo|WhatIfLine|WhatIfInput\.|WhatIfNestedOps|WhatIfStraggler|WhatIfSuggest|WhatIfBatch\.BatchTwice|TablesTorch|TablesSpark|TablesTf|TorchFlops|JaxFlops|TfFlops|WhatIfRoofline)'
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
    run_suite build-asan "-DTT_SANITIZE=address,undefined -DTT_BUILD_BENCH=OFF" "-E $py_tests"
  # Of those, the suites whose own code (replay, its TensorFlow graph edges, the clocks of several
  # recordings, diff) the ASan stage above already checks on synthetic traces are not run
  # again: each records several real jobs, which under ASan would take a good part of the CI's time for no new code. Of
  # TfP2p, the one-recording test runs (it reads real _Send/_Recv events), and the one whose
  # worker's clock is shifted (the job's clock from tensor pairs); the plain recording per worker
  # adds no code of ours.
  # The ecosystem corpus (Corpus*) is recorded in the normal stage only: its programs run the
  # same code of ours (bootstrap, imports, steps) as the suites kept here.
  # Nor are the longest framework runs whose code of ours (the runtime preloaded into
  # TensorFlow and PyTorch, the XSpace and Kineto imports, the Python tracer) the ASan tests
  # kept here already run: TfMemory (TensorFlow twice, oneDNN on and off: 78 s without ASan),
  # the Keras CNN with its primitives and report (76 s), the tf.data pipeline (68 s), torch's
  # Python-tracer stacks (43 s) and torch.compile (25 s): the stage went from 8.0 to 5.8 minutes.
  # The torchrun job is the DDP job's code of ours again, under a launcher process. The what-ifs
  # against real runs (WhatIfLine, WhatIfNestedOps) run replay's code, which whatif_match_test
  # checks on hand-built graphs; the gloo jobs of JobIdentity the loader's checks, which its
  # other tests run on recordings of `true`; the FLOPs of a torch loop and a JAX step
  # (TorchFlops, JaxFlops) and a Keras fit (TfFlops) the imports' op costs, which KinetoOpCost,
  # HloCost and TfOpCost check on made events. Of replay,
  # the pipeline's send/receive links (ReplayPipeline) run: no synthetic trace has them.
  # Torch's own Python tracer (its events are imported as any Kineto event; our C profile hook
  # runs under ASan in CodeView.TfPythonTracerIsOursAndExact: 124 s under ASan), a large Kineto
  # profile (KinetoStream's other tests stream one under ASan) and the DDP job's bytes (the
  # other CommTorch jobs run the same matching) are left to the normal stage.
  asan_py_skip='^(Corpus|ReplayGil\.PyFunctions|CommTorch\.SubgroupsMatchedAcrossTheProfilersWindows|ReplayCpuThreads\.TensorFlow|CommTorch\.AKilledRankKeepsItsOps|CommGapsTorch|ReplayFidelity|WhatIfLine|WhatIfInput\.|WhatIfNestedOps|WhatIfStraggler|WhatIfSuggest|WhatIfBatch\.BatchTwice|JobIdentity\.Gloo|ReplayTfGraph|CommTf|CommClockTorch|CommOverlapTorch|DiffTorch|TfP2p\.SendRecvPairedAndReplayedAcrossOneRecordingPerWorker|TfMemory|TfWorkloads\.KerasCnnFitWithPrimitivesInItsOpsAndAReport|TfWorkloads\.TfDataPipelineFeedingFit|CodeView\.TorchPythonTracerGivesExactStacks|TorchWorkloads\.TorchCompileStepIsWarmUp|TorchWorkloads\.TorchrunWorkers|TablesTorch|TablesSpark|TablesTf|TorchFlops|JaxFlops|TfFlops|WhatIfRoofline|TorchWorkloads\.PythonTracerAddsPythonFunctions|KinetoStream\.Record|CommTorch\.DdpAllReducesCarryTheGradientBytes)'
  (cd build-asan && ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 \
    ctest --output-on-failure $retry -j"$jobs" -R "$py_tests" -E "$asan_py_skip") 2>&1 |
    tee build-asan/ctest-python.log
  list_retried build-asan/ctest-python.log
  # ThreadSanitizer builds only the tests it runs (and what they run: the CLI, the library, the
  # test programs); not those that record python3 (its runtime cannot be preloaded into it).
  run_suite build-tsan "-DTT_SANITIZE=thread -DTT_BUILD_BENCH=OFF" \
    "-R ^(Runtime|Format|Stats) -E ^StatsOptions\.IncludeWarmup" \
    "runtime_test format_test stats_test options_test"
  bash scripts/fuzz.sh "${TT_FUZZ_SECONDS:-60}"
  # The last word is the normal suite's, so that its count closes the log.
  echo "== build: tests (its summary, from above)"
  tail -n 3 build/ctest.log
fi
