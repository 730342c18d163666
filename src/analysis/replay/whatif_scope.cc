// What-if scope:REGEX=FACTOR: the ops whose name scope (TensorFlow's "a/b" of "a/b/c:Type") or
// nn.Module path (PyTorch's, "GPT2Model/h.0/attn") matches, at any depth, as REGEX=FACTOR
// changes them (whatif_match.h): what a user named in the model's code, not the ops it became.
#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"
#include "analysis/replay/whatif_match.h"
#include "core/error.h"

namespace tt::analysis::replay {

namespace {

// "a/b" of "a/b/c:Type" (its node name less the last part); "" for a name without a scope.
std::string_view NameScope(std::string_view label) {
  std::string_view node = label.substr(0, label.find(':'));
  size_t slash = node.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : node.substr(0, slash);
}

size_t ApplyScope(const WhatIf& w, Graph* g) {
  const LabelTable& t = *g->names;
  // By label: as an nn.Module path (a node's scope), and by the name scope in it.
  std::vector<char> as_path(t.labels.size(), 0), by_name(t.labels.size(), 0);
  for (size_t i = 0; i < t.labels.size(); ++i) {
    as_path[i] = w.Matches(t.labels[i], "");
    std::string_view scope = NameScope(t.labels[i]);
    by_name[i] = !scope.empty() && w.Matches(std::string(scope), "");
  }
  return ScaleMatched(
      MatchBy(*g, [&](uint32_t label, uint32_t scope,
                      uint32_t) { return scope != kNoIndex ? as_path[scope] : by_name[label]; }),
      w.factor, g, Backward::kWithForward);
}

bool ParseScope(const std::string& spec, const WhatIfNumbers& numbers, WhatIf* w) {
  if (spec.rfind("scope:", 0) != 0) return false;
  size_t eq = spec.rfind('=');
  w->pattern = spec.substr(6, eq - 6);
  if (w->pattern.empty())
    throw Error("--what-if '" + spec +
                "': expected scope:REGEX=FACTOR (a name scope or an "
                "nn.Module path, e.g. scope:dense_1=0.5)");
  w->factor = numbers.factor(spec, spec.substr(eq + 1));
  w->Matches("", "");  // a bad regular expression is a bad spec
  return true;
}

std::string NoScope(const WhatIf& w) {
  return "no op in a name scope or nn.Module path matching '" + w.pattern +
         "' (stats --view scope shows them)";
}

}  // namespace

const WhatIfKind& ScopeWhatIf() {
  static const WhatIfKind k{
      .name = "scope",
      .syntax = "scope:REGEX=FACTOR",
      .help =
          "ops whose name scope (TensorFlow's a/b of a/b/c) or\nnn.Module path (PyTorch) "
          "matches REGEX, at any depth,\nas REGEX=FACTOR changes them",
      .parse = ParseScope,
      .apply = ApplyScope,
      .nothing = NoScope,
  };
  return k;
}

}  // namespace tt::analysis::replay
