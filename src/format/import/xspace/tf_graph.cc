// The saved graphs of a process's tf.functions (tf_graph.h).
#include "format/import/xspace/tf_graph.h"

#include <algorithm>

#include "core/error.h"
#include "format/import/untrusted.h"

namespace tt {

namespace {

std::vector<std::string_view> SplitTabs(std::string_view line) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (true) {
    size_t tab = line.find('\t', at);
    out.push_back(line.substr(at, tab == std::string_view::npos ? tab : tab - at));
    if (tab == std::string_view::npos) return out;
    at = tab + 1;
  }
}

// Whether `name` is one producer in the comma-separated `list`.
bool Listed(std::string_view list, std::string_view name) {
  size_t at = 0;
  while (at <= list.size()) {
    size_t comma = std::min(list.find(',', at), list.size());
    if (list.substr(at, comma - at) == name) return true;
    at = comma + 1;
  }
  return false;
}

}  // namespace

TfGraphInputs ParseTfGraph(std::string_view text, size_t* bad) {
  TfGraphInputs out;
  *bad = 0;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string_view> f = SplitTabs(line);
    if (f.size() < 2 || f[0].empty() || f[0].find(',') != std::string_view::npos) {
      ++*bad;
      continue;
    }
    std::string& list = out[std::string(f[0])];
    for (size_t i = 2; i < f.size(); ++i) {
      std::string_view p = f[i];
      if (p.empty() || p == f[0] || p.find(',') != std::string_view::npos || Listed(list, p))
        continue;
      if (!list.empty()) list += ',';
      list += p;
    }
  }
  return out;
}

std::vector<std::string> TfDirectProducers(const TfGraphInputs& g, std::string_view node) {
  std::vector<std::string> out;
  auto split = [&](std::string_view prefix, std::string_view list) {
    for (size_t at = 0; at < list.size();) {
      size_t comma = std::min(list.find(',', at), list.size());
      out.push_back(std::string(prefix).append(list.substr(at, comma - at)));
      at = comma + 1;
    }
  };
  if (auto it = g.find(std::string(node)); it != g.end()) {
    split("", it->second);
    return out;
  }
  for (size_t slash = node.find('/'); slash != std::string_view::npos;
       slash = node.find('/', slash + 1)) {
    auto it = g.find(std::string(node.substr(slash + 1)));
    if (it == g.end()) continue;
    split(node.substr(0, slash + 1), it->second);
    return out;
  }
  return out;
}

std::string TfProducersOf(const TfGraphInputs& g, std::string_view node,
                          const std::unordered_set<std::string>* ran) {
  std::vector<std::string> todo = TfDirectProducers(g, node), found;
  std::reverse(todo.begin(), todo.end());  // taken from the back: in the graph's order
  std::unordered_set<std::string> seen = {std::string(node)};
  size_t hops = 0;
  while (!todo.empty()) {
    std::string p = std::move(todo.back());
    todo.pop_back();
    if (!seen.insert(p).second) continue;
    if (!ran || ran->count(p)) {
      found.push_back(std::move(p));
      continue;
    }
    if (++hops > kMaxHops) break;
    // It did not run: its producers instead.
    std::vector<std::string> next = TfDirectProducers(g, p);
    todo.insert(todo.end(), next.rbegin(), next.rend());
  }
  std::string out;
  for (const std::string& p : found) out += (out.empty() ? "" : ",") + p;
  return out;
}

TfGraphInputs ReadTfGraph(const std::string& path, uint64_t max_bytes,
                          std::vector<std::string>* errors) {
  return ReadUntrustedTable<TfGraphInputs>(path, max_bytes, errors, ParseTfGraph,
                                           "; replay infers the order of its ops instead",
                                           "NODE<TAB>OP<TAB>INPUT...");
}

}  // namespace tt
