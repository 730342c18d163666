#include "cli/record_sources.h"

#include <set>

#include "core/error.h"
#include "sources/registry.h"

namespace tt::cli {

namespace {

// Null: --sources not given, every source on but the opt-in ones.
std::set<std::string>* g_sources = nullptr;

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
      for (const sources::Source& k : sources::All()) s.insert(k.name);
    } else if (n == "none") {
    } else if (sources::Find(n)) {
      s.insert(n);
    } else {
      throw Error("record: --sources: unknown source '" + n + "' (known: " + sources::NameList() +
                  ", all, none)");
    }
  }
  delete g_sources;
  g_sources = new std::set<std::string>(std::move(s));
}

bool SourceOn(const std::string& name) {
  if (g_sources) return g_sources->count(name) != 0;
  const sources::Source* s = sources::Find(name);
  return s && !s->opt_in;
}

}  // namespace tt::cli
