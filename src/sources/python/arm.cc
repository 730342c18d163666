// Arming the Python bootstrap for `record` (see sources/registry.h): it starts the frameworks'
// own profilers (TensorFlow, JAX) in every traced Python process (python/tensortrace/).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <vector>

#include "sources/registry.h"

namespace tt::sources {

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

// Puts the bootstrap's directory first on PYTHONPATH (keeping the user's) and sets the
// TENSORTRACE_* variables it reads. Without a bootstrap, warns once and changes nothing.
void ArmPython(const ArmOptions& ao) {
  const PythonOptions& o = ao.python;
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
  if (o.sample_ms < 0)  // the bootstrap's default (python/tensortrace/sampler.py)
    unsetenv("TENSORTRACE_PYTHON_SAMPLE_MS");
  else
    setenv("TENSORTRACE_PYTHON_SAMPLE_MS", std::to_string(o.sample_ms).c_str(), 1);
  // TensorFlow reads TF_CPU_ALLOCATOR_USE_BFC when it makes its CPU allocator. With "auto" the
  // bootstrap sets it once TensorFlow is imported, if oneDNN is off and the program did not set
  // it (python/tensortrace/tf_adapter.py says why); "default" takes back a setting the
  // environment made.
  const std::string alloc = o.tf_cpu_allocator.empty() ? "auto" : o.tf_cpu_allocator;
  setenv("TENSORTRACE_TF_CPU_ALLOCATOR", alloc.c_str(), 1);
  if (alloc == "bfc") setenv("TF_CPU_ALLOCATOR_USE_BFC", "true", 1);
  if (alloc == "default") unsetenv("TF_CPU_ALLOCATOR_USE_BFC");
}

}  // namespace tt::sources
