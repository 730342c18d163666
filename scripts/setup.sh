#!/usr/bin/env bash
# Installs the dependencies, builds tensortrace, records the bundled example and shows the trace.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# The Python packages of scripts/install-deps.sh live in .venv: its python3 first on PATH.
export PATH="$PWD/.venv/bin:$PATH"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
rm -rf example-trace
./build/tensortrace record -o example-trace -- ./build/tt_example 1000
./build/tensortrace info example-trace
# The main job on a deep-learning program: a small Keras CNN (synthetic data), recorded unchanged.
if python3 -c "import tensorflow" 2>/dev/null; then
  rm -rf keras-trace
  ./build/tensortrace record -o keras-trace --quiet -- python3 examples/keras_train.py
  echo "== the ops that took the time (tensortrace stats keras-trace --view op --top 10)"
  ./build/tensortrace stats keras-trace --view op --top 10
  echo "== each step's breakdown (tensortrace stats keras-trace --view step)"
  ./build/tensortrace stats keras-trace --view step
  ./build/tensortrace report keras-trace -o keras-report.html
  echo "== the report: $PWD/keras-report.html"
fi
