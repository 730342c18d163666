// Replay's what-ifs (whatif.h, whatif_kind.h): parsing through the table, applying, the help,
// and the helpers the what-ifs share.
#include "analysis/replay/whatif.h"

#include <cmath>
#include <stdexcept>

#include "analysis/replay/whatif_kind.h"
#include "core/error.h"

namespace tt::analysis::replay {

bool WhatIf::Is(std::string_view name) const { return kind != nullptr && name == kind->name; }

const WhatIfKind& WhatIfNamed(std::string_view name) {
  for (const WhatIfKind* k : WhatIfKinds())
    if (name == k->name) return *k;
  throw std::logic_error("no what-if called " + std::string(name));
}

WhatIf MakeWhatIf(std::string_view name, const std::string& spec, const std::string& pattern,
                  double factor) {
  WhatIf w;
  w.kind = &WhatIfNamed(name);
  w.spec = spec;
  w.pattern = pattern;
  w.factor = factor;
  return w;
}

WhatIf ParseWhatIf(const std::string& spec, const WhatIfNumbers& numbers) {
  size_t eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw Error("--what-if '" + spec +
                "': expected REGEX=FACTOR, scope:REGEX=FACTOR, line:FILE:LINE=FACTOR, "
                "input=FACTOR, comm=FACTOR or overlap=comm (replay --help lists them all)");
  const WhatIfKind* fallback = nullptr;
  for (const WhatIfKind* k : WhatIfKinds()) {
    if (*k->name == '\0') {
      fallback = k;
      continue;
    }
    WhatIf w;
    w.spec = spec;
    w.kind = k;
    if (k->parse(spec, numbers, &w)) return w;
  }
  WhatIf w;
  w.spec = spec;
  w.kind = fallback;
  fallback->parse(spec, numbers, &w);
  return w;
}

WhatIf ParseWhatIf(const std::string& spec,
                   double (*factor)(const std::string& spec, const std::string& text),
                   uint64_t (*bytes)(const std::string& spec, const std::string& text)) {
  return ParseWhatIf(spec, WhatIfNumbers{factor, bytes});
}

bool ParseNamedFactor(const char* name, const std::string& spec, const WhatIfNumbers& numbers,
                      WhatIf* w) {
  size_t eq = spec.rfind('=');
  if (spec.compare(0, eq, name) != 0) return false;
  w->pattern = name;
  w->factor = numbers.factor(spec, spec.substr(eq + 1));
  return true;
}

size_t Apply(const WhatIf& w, Graph* g) { return w.kind->apply(w, g); }

std::string WhatIfHelp(size_t indent) {
  constexpr size_t kText = 15;  // the text's column after the indent
  std::string out, pad(indent, ' ');
  for (const WhatIfKind* k : WhatIfKinds()) {
    std::string head = pad + k->syntax;
    size_t col = indent + kText;
    head += head.size() + 3 <= col ? std::string(col - head.size(), ' ') : "   ";
    out += head;
    for (const char* p = k->help; *p; ++p) {
      out += *p;
      if (*p == '\n') out += std::string(col, ' ');
    }
    out += '\n';
  }
  return out;
}

void ScaleNode(Graph* g, uint32_t v, double factor) {
  Node& n = g->nodes[v];
  n.duration = static_cast<uint64_t>(std::llround(static_cast<double>(n.duration) * factor));
}

void ZeroGapsInto(Graph* g, const std::vector<char>& removed) {
  for (Edge& e : g->edges)
    if (removed[e.to]) e.gap = 0;
}

}  // namespace tt::analysis::replay
