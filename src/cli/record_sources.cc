#include "cli/record_sources.h"

#include <cstdlib>
#include <iostream>
#include <set>

#include "core/error.h"

namespace tt::cli {

const char kSourcesHelp[] =
    R"(  --sources LIST           comma list of the sources to switch on (default: all):
                           cuda (CUPTI: CUDA API calls, kernels, copies; nothing happens
                           in a process that never loads CUDA), nvtx, itt (oneDNN...),
                           python (the TensorFlow/JAX profiler bootstrap); or none
)";

namespace {

// Null: --sources not given, every source on.
std::set<std::string>* g_sources = nullptr;

bool Known(const std::string& n) {
  for (const char* k : kSourceNames)
    if (n == k) return true;
  return false;
}

}  // namespace

void SetSources(const std::string& list) {
  std::set<std::string> s;
  if (list.empty()) throw Error("record: --sources needs a list, e.g. --sources cuda,itt");
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string n = list.substr(start, end - start);
    start = end + 1;
    if (n == "all") {
      for (const char* k : kSourceNames) s.insert(k);
    } else if (n == "none") {
    } else if (Known(n)) {
      s.insert(n);
    } else {
      throw Error("record: --sources: unknown source '" + n +
                  "' (known: cuda, nvtx, itt, python, all, none)");
    }
  }
  delete g_sources;
  g_sources = new std::set<std::string>(std::move(s));
}

bool SourceOn(const std::string& name) { return !g_sources || g_sources->count(name) != 0; }

void SetCudaEnvironment(const std::string& lib, bool quiet) {
#ifdef TT_HAVE_CUPTI
  if (!SourceOn("cuda")) return;
  if (const char* old = std::getenv("CUDA_INJECTION64_PATH"); old && *old) {
    if (!quiet)
      std::cerr << "tensortrace: CUDA_INJECTION64_PATH is set, our CUDA (CUPTI) source stays off\n";
    return;
  }
  // The CUDA driver loads this library and calls its InitializeInjection at cuInit; a process
  // that never initialises CUDA never runs any of it.
  setenv("CUDA_INJECTION64_PATH", lib.c_str(), 1);
#else
  (void)lib;
  (void)quiet;
#endif
}

}  // namespace tt::cli
