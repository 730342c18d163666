#include "sources/cupti/libcupti.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace tt::cupti {

namespace {

struct Loaded {
  std::vector<std::string> paths;
};

int CollectLoaded(dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_name && *info->dlpi_name)
    static_cast<Loaded*>(data)->paths.emplace_back(info->dlpi_name);
  return 0;
}

// libcupti.so* files in `dir`, newest soname first (libcupti.so.13 before .12).
std::vector<std::string> CuptiIn(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind("libcupti.so", 0) == 0) out.push_back(e.path());
  std::sort(out.rbegin(), out.rend());
  return out;
}

template <typename F>
bool Sym(void* h, const char* name, F* f) {
  *f = reinterpret_cast<F>(dlsym(h, name));
  return *f != nullptr;
}

}  // namespace

bool OpenLib(Lib* lib, std::string* why) {
  Loaded loaded;
  dl_iterate_phdr(CollectLoaded, &loaded);
  std::vector<std::string> candidates;
  for (const auto& p : loaded.paths)
    if (p.find("libcupti.so") != std::string::npos) candidates.push_back(p);
  if (const char* e = std::getenv("TENSORTRACE_CUPTI_LIB"); e && *e) candidates.push_back(e);
  std::vector<std::string> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* e = std::getenv(var); e && *e)
      for (const char* sub : {"/extras/CUPTI/lib64", "/lib64", "/lib"})
        dirs.push_back(std::string(e) + sub);
  dirs.push_back("/usr/local/cuda/extras/CUPTI/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  // pip wheels: site-packages/nvidia/<package>/lib beside a CUDA library the process loaded.
  for (const auto& p : loaded.paths) {
    size_t at = p.find("/site-packages/nvidia/");
    if (at == std::string::npos) continue;
    std::string root = p.substr(0, at) + "/site-packages/nvidia/";
    for (const char* sub : {"cuda_cupti/lib", "cu13/lib", "cu12/lib"}) dirs.push_back(root + sub);
  }
  for (const auto& d : dirs)
    for (auto& f : CuptiIn(d)) candidates.push_back(f);
  for (const char* n : {"libcupti.so", "libcupti.so.13", "libcupti.so.12"}) candidates.push_back(n);

  for (const auto& c : candidates) {
    void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) continue;
    lib->handle = h;
    lib->path = c;
    bool ok = Sym(h, "cuptiSubscribe", &lib->Subscribe) &&
              Sym(h, "cuptiUnsubscribe", &lib->Unsubscribe) &&
              Sym(h, "cuptiEnableDomain", &lib->EnableDomain) &&
              Sym(h, "cuptiEnableCallback", &lib->EnableCallback) &&
              Sym(h, "cuptiGetCallbackName", &lib->GetCallbackName) &&
              Sym(h, "cuptiGetResultString", &lib->GetResultString) &&
              Sym(h, "cuptiGetTimestamp", &lib->GetTimestamp) &&
              Sym(h, "cuptiActivityEnable", &lib->ActivityEnable) &&
              Sym(h, "cuptiActivityRegisterCallbacks", &lib->RegisterCallbacks) &&
              Sym(h, "cuptiActivityGetNextRecord", &lib->GetNextRecord) &&
              Sym(h, "cuptiActivityGetNumDroppedRecords", &lib->GetNumDroppedRecords) &&
              Sym(h, "cuptiActivityFlushAll", &lib->FlushAll);
    if (!ok) {
      *why = c + " lacks the CUPTI functions we need (too old?)";
      dlclose(h);
      lib->handle = nullptr;
      return false;
    }
    Sym(h, "cuptiActivityFlushPeriod", &lib->FlushPeriod);
    Sym(h, "cuptiActivityRegisterTimestampCallback", &lib->RegisterTimestampCallback);
    return true;
  }
  *why =
      "libcupti not found (not loaded, not under CUDA_HOME, the CUDA toolkit or the pip nvidia "
      "wheels; TENSORTRACE_CUPTI_LIB names it)";
  return false;
}

}  // namespace tt::cupti
