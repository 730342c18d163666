#include "analysis/pass/op_names.h"

#include "model/meaning.h"

namespace tt::analysis {

std::string OpType(const std::string& name) { return model::OpTypeOf(name); }

// Scope trees deeper than this are cut (the rest of the path stays in the last component), so
// that no recursion over the tree runs out of stack.
constexpr size_t kMaxScopeDepth = 64;

std::vector<std::string> ScopePath(const std::string& name) {
  // An eager op has no scope: it sits under "(eager)".
  if (name.starts_with("EagerLocalExecute: ")) return {"(eager)", OpType(name)};
  std::string n = name.substr(0, name.find('#'));
  size_t c = n.rfind(':');
  // A C++-qualified leaf (PyTorch's "Sequential/Linear_4/aten::addmm") is the op, no type.
  bool qualified =
      c != std::string::npos && c > 0 && n[c - 1] == ':' && n.find('/', c) == std::string::npos;
  if (c != std::string::npos && c > 0 && !qualified) n = n.substr(0, c);
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= n.size()) {
    size_t slash = n.find('/', start);
    if (slash == std::string::npos) slash = n.size();
    if (slash > start) parts.push_back(n.substr(start, slash - start));
    start = slash + 1;
  }
  if (parts.empty()) parts.push_back(name);
  if (parts.size() > kMaxScopeDepth) {
    for (size_t i = kMaxScopeDepth; i < parts.size(); ++i)
      parts[kMaxScopeDepth - 1] += "/" + parts[i];
    parts.resize(kMaxScopeDepth);
  }
  return parts;
}

}  // namespace tt::analysis
