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
