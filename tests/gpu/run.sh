#!/usr/bin/env bash
# GPU validation of the CUDA (CUPTI) source, one command on a machine with an NVIDIA GPU:
#   bash tests/gpu/run.sh [BUILD_DIR]     (default: build)
# Compiles tests/gpu/vector_add.cu with nvcc, records it, and checks the trace: kernels with
# their launch args on two stream tracks, copies both ways, the memset, launch -> kernel flows,
# and that no CUPTI record was dropped. Skips (exit 0, one line) without nvidia-smi or nvcc.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "tests/gpu: skipped: no NVIDIA GPU (nvidia-smi)"; exit 0
fi
nvcc=${NVCC:-$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")}
if [ ! -x "$nvcc" ]; then echo "tests/gpu: skipped: no nvcc (set NVCC or CUDA_HOME)"; exit 0; fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$nvcc" -O2 -o "$work/vector_add" "$here/vector_add.cu"
tt="$build/tensortrace"
"$tt" record -o "$work/trace" --quiet -- "$work/vector_add" | grep -qx ok
"$tt" export "$work/trace" --format chrome -o "$work/t.json"
"$tt" info "$work/trace" --json > "$work/info.json"
python3 - "$work/t.json" "$work/info.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
info = json.load(open(sys.argv[2]))
x = [e for e in ev if e.get("ph") == "X"]
def fail(m): sys.exit("tests/gpu: FAIL: " + m)
kernels = [e for e in x if e["name"].startswith("vector_add(")]
if len(kernels) != 10: fail("%d vector_add kernels, want 10" % len(kernels))
if {e["args"]["block"] for e in kernels} != {"256x1x1"}: fail("block dims")
if len({e["tid"] for e in kernels}) != 2: fail("kernels not on two stream tracks")
copies = [e["args"]["kind"] for e in x if e["name"] == "memcpy"]
if sorted(copies) != ["DtoH", "HtoD", "HtoD"]: fail("copies %s" % copies)
if not any(e["name"] == "memset" for e in x): fail("no memset")
launches = [e for e in x if e.get("cat") == "runtime_api" and "cudaLaunchKernel" in e["name"]]
if len(launches) < 10: fail("%d cudaLaunchKernel calls" % len(launches))
flows = sum(1 for e in ev if e.get("ph") == "f")
if flows < 14: fail("%d flows, want a flow per kernel, copy and memset" % flows)
drops = sum(n for p in info["processes"] for w, n in p["drop_reasons"].items() if "CUPTI" in w)
if drops: fail("%d CUPTI records dropped" % drops)
print("tests/gpu: ok: %d kernels, %d copies, %d flows" % (len(kernels), len(copies), flows))
PY
