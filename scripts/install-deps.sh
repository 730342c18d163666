#!/usr/bin/env bash
# Installs what tensortrace needs to build, test and benchmark (Debian 12). Run as root.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# build: compiler, cmake, JSON, zlib (gzipped exports); tests: GoogleTest, babeltrace2 (outside reader of our CTF),
# python3 (traced child processes; python3-dev: CPython's headers for the native Python
# sampler); bench: Google Benchmark, LTTng-UST and lttng-tools;
# fuzz (scripts/fuzz.sh): clang with libFuzzer's runtime, llvm-symbolizer for its reports;
# protobuf (XSpace and Perfetto schemas, protoc --decode in tests); libdnnl-dev (real oneDNN
# reporting primitives through ITT); chromium (headless check of the HTML report); Java 17
# (Spark's runtime, for the PySpark example over the job's tables).
$SUDO apt-get install -y -qq --no-install-recommends \
  g++ cmake make git ca-certificates \
  nlohmann-json3-dev zlib1g-dev libre2-dev pkg-config libgtest-dev libgmock-dev \
  babeltrace2 python3 python3-venv python3-dev \
  libbenchmark-dev liblttng-ust-dev lttng-tools \
  clang libclang-rt-14-dev llvm \
  libprotobuf-dev protobuf-compiler libdnnl-dev chromium fonts-dejavu-core \
  openjdk-17-jre-headless >/dev/null
# The Python packages go into a virtual environment at the repository root (.venv), never into
# the system's Python, which Debian marks externally managed (PEP 668: its pip refuses).
# --system-site-packages: the venv also sees the base interpreter's packages, so those already
# installed there are not downloaded again. scripts/test.sh and scripts/setup.sh put .venv/bin
# first on PATH, so the tests' `python3` is the venv's.
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv"
[ -x "$venv/bin/python3" ] || python3 -m venv --system-site-packages "$venv"
pip=("$venv/bin/python3" -m pip install -q --disable-pip-version-check)
# Python workloads the tests record and the readers they compare with: TensorFlow (CPU), JAX,
# and TensorBoard's profile plugin (xprof), which reads our XSpace exports; ittapi (Intel's real
# ITT client, its ittnotify static part bundled) drives the ITT collector's test. Pinned: the
# tests and bench/RESULTS.md were run with these versions.
"${pip[@]}" tensorflow-cpu==2.21.0 jax==0.10.2 \
  jaxlib==0.10.2 tensorboard-plugin-profile==2.24.2 xprof==2.24.2 ittapi==1.2.2
# PyTorch (its Linux wheel brings the CUDA libraries it links, even for CPU use): the tests
# record PyTorch programs and compare with torch.profiler's own answers.
"${pip[@]}" torch==2.15.0
# The ecosystem corpus (tests/corpus/): Flax NNX with optax, written as Flax's own tutorial
# trains (Keras 3 comes with TensorFlow).
"${pip[@]}" flax==0.12.8 optax==0.2.8
# The corpus's libraries above the frameworks: Hugging Face transformers' Trainer (accelerate is
# its dependency for Trainer), torchvision (its wheel for torch 2.15 is built on torch's stable
# ABI), PyTorch Lightning, and TensorBoard (tf.summary writes through it). No model weights or
# data sets are downloaded: the programs build their models from configs on synthetic data.
"${pip[@]}" transformers==5.24.0 accelerate==1.15.0 torchvision==0.29.2 lightning==2.6.6 \
  tensorboard==2.21.0
# perfetto: Perfetto's own compiled trace schema (perfetto.protos), the second reader of our
# Perfetto exports in tests/export/perfetto_test.cc (its trace processor, which downloads, is not used).
"${pip[@]}" perfetto==0.59.1
# pytest: the unit tests of the Python bootstrap (python/tests), which scripts/test.sh runs.
"${pip[@]}" pytest==9.2.0
# The job's tables (docs/tables.md): pyarrow's wheel ships Apache Arrow's C++ libraries and
# headers, which `export --format parquet` is built against (CMake finds them through this
# venv's python, so it is installed before the build); DuckDB runs `tensortrace sql`; pandas
# holds tensortrace.open's DataFrames.
"${pip[@]}" pyarrow==26.0.1 duckdb==2.0.1 pandas==3.1.1
# PySpark (with Debian's Java 17 above): examples/spark_tables.py reads the same tables in
# Spark's local mode, checked against stats and comm by TablesSpark.
"${pip[@]}" pyspark==4.3.0
echo "install-deps: done"
