// `record`'s options for the frameworks' own profilers, passed to the Python bootstrap.
#include "cli/record_python.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace tt::cli {

const char kPythonCaptureHelp[] =
    R"(TensorFlow and JAX: in every Python process, once `tensorflow` is imported (`jax`: once it
first sets up its backends), the framework's own profiler runs until the process ends or the
program starts that profiler itself; record then converts what it wrote (DIR/xspace/PID/) into
the trace.
  --tf-host-level 1|2|3    the profiler's host tracer level: 1 critical, 2 info, 3 verbose
                           (default 2)
  --python-tracer          the profiler's Python function tracer too (slow). TensorFlow 2.21
                           ignores both options (it says "expects an i value" on stderr and
                           keeps level 2, no Python tracer); JAX applies them
  --steps A:B              keep only training steps A to B (inclusive; A: or :B open): the
                           profiler captures the whole run and record's import drops the rest
  --window-s N             capture in windows of N seconds (at least 1): the profiler's data
                           is written and its memory freed every N seconds (default: one
                           window); events in the short gaps between windows are lost
)";

bool ParsePythonCaptureOption(ArgReader& a, PythonCaptureOptions* o) {
  std::string v;
  if (a.Option("--tf-host-level", &v)) {
    if (v != "1" && v != "2" && v != "3")
      throw Error("record: --tf-host-level must be 1, 2 or 3, got '" + v + "'");
    o->host_level = v[0] - '0';
  } else if (a.Flag("--python-tracer")) {
    o->python_tracer = true;
  } else if (a.Option("--steps", &v)) {
    analysis::StepRange r = ParseStepRange(v);
    o->steps = std::to_string(r.first) + ":" +
               (r.last == INT64_MAX ? std::string() : std::to_string(r.last));
  } else if (a.Option("--window-s", &v)) {
    o->window_s = ParseSeconds("--window-s", v);
    // The profiler names each window's directory by the second it was written in.
    if (o->window_s < 1) throw Error("record: --window-s must be at least 1 second, got " + v);
  } else {
    return false;
  }
  return true;
}

namespace {

// The directory holding the bootstrap's sitecustomize.py: beside this executable (the build
// tree copies python/ there), in ../share/tensortrace (installed), else the source tree.
std::string FindBootstrap() {
  namespace fs = std::filesystem;
  const fs::path rel = fs::path("python") / "tensortrace" / "boot";
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("TENSORTRACE_PYTHON")) dirs.push_back(fs::path(env) / rel);
  std::error_code ec;
  fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (!ec) {
    dirs.push_back(exe.parent_path() / rel);
    dirs.push_back(exe.parent_path().parent_path() / "share" / "tensortrace" / rel);
  }
#ifdef TT_PYTHON_SOURCE_DIR
  dirs.push_back(fs::path(TT_PYTHON_SOURCE_DIR) / rel);
#endif
  for (const auto& d : dirs)
    if (fs::exists(d / "sitecustomize.py", ec)) return d.string();
  return "";
}

}  // namespace

void SetPythonCaptureEnvironment(const PythonCaptureOptions& o) {
  std::string boot = FindBootstrap();
  if (boot.empty()) {
    std::cerr << "tensortrace record: warning: the Python bootstrap (python/tensortrace/boot) "
                 "is not beside this executable; TensorFlow and JAX profiles are not captured "
                 "(set TENSORTRACE_PYTHON to the directory that holds python/)\n";
    return;
  }
  std::string path = boot;
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
  setenv("PYTHONPATH", path.c_str(), 1);
  setenv("TENSORTRACE_TF_HOST_LEVEL", std::to_string(o.host_level).c_str(), 1);
  setenv("TENSORTRACE_PYTHON_TRACER", o.python_tracer ? "1" : "0", 1);
  if (o.steps.empty())
    unsetenv("TENSORTRACE_STEPS");
  else
    setenv("TENSORTRACE_STEPS", o.steps.c_str(), 1);
  if (o.window_s > 0)
    setenv("TENSORTRACE_WINDOW_S", std::to_string(o.window_s).c_str(), 1);
  else
    unsetenv("TENSORTRACE_WINDOW_S");
}

}  // namespace tt::cli
