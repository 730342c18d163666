// What-if REGEX=FACTOR: the ops whose name or type matches, at any depth, durations x factor (0
// removes), with the device work they launched, and the time from their start to each launch;
// a nested op changes the node it ran in by what it held of it.
#include <cmath>
#include <regex>

#include "analysis/replay/suggest.h"
#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"
#include "analysis/replay/whatif_match.h"
#include "core/error.h"

namespace tt::analysis::replay {

bool WhatIf::Matches(const std::string& label, const std::string& type) const {
  if (!matcher) {
    matcher = std::make_shared<Matcher>();
    try {
      matcher->re = std::regex(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
      matcher.reset();
      throw Error("--what-if '" + spec + "': '" + pattern + "' is not a regular expression");
    }
  }
  auto [it, fresh] = matcher->seen.emplace(label, false);
  if (fresh)
    it->second = std::regex_search(label, matcher->re) || std::regex_search(type, matcher->re);
  return it->second;
}

namespace {

// The ops whose name or type matches, at any depth: an outermost one (a node) whole, a nested
// one by what it held of the node around it (whatif_match.h).
size_t ApplyScale(const WhatIf& w, Graph* g) {
  const LabelTable& t = *g->names;
  std::vector<char> match(t.labels.size(), 0);
  for (size_t i = 0; i < t.labels.size(); ++i) match[i] = w.Matches(t.labels[i], t.types[i]);
  return ScaleMatched(MatchBy(*g, [&](uint32_t label, uint32_t, uint32_t) { return match[label]; }),
                      w.factor, g);
}

}  // namespace

namespace {

bool ParseScale(const std::string& spec, const WhatIfNumbers& numbers, WhatIf* w) {
  size_t eq = spec.rfind('=');
  w->pattern = spec.substr(0, eq);
  w->factor = numbers.factor(spec, spec.substr(eq + 1));
  return true;
}

std::string NoScaled(const WhatIf& w) {
  return "no op's name or type matching '" + w.pattern + "', at any depth";
}

// The `top` heaviest op, device or communication labels of the critical path, twice as fast.
std::vector<WhatIf> SuggestScale(const SuggestInput& in) {
  std::vector<WhatIf> out;
  for (const PathItem& it : in.base.path) {
    if (out.size() >= in.top) break;
    if (it.kind != NodeKind::kOp && it.kind != NodeKind::kDevice && it.kind != NodeKind::kComm)
      continue;
    std::string re = "^" + RegexQuote(it.label) + "$";
    out.push_back(MakeWhatIf("", re + "=0.5", re, 0.5));
  }
  return out;
}

std::string HowScale(const WhatIf& w, const SuggestInput&) {
  return "make the ops " + w.pattern +
         " twice as fast: fewer calls, smaller shapes or a faster implementation (stats --view "
         "op shows their calls and shapes)";
}

}  // namespace

const WhatIfKind& ScaleWhatIf() {
  static const WhatIfKind k{
      .name = "",
      .syntax = "REGEX=FACTOR",
      .help =
          "ops whose name or type matches REGEX (ECMAScript), at\nany depth, duration x FACTOR, "
          "with the device work they\nlaunched (0 removes them and their dispatch gap); a nested\n"
          "op changes the op around it by the time it held of it",
      .parse = ParseScale,
      .apply = ApplyScale,
      .nothing = NoScaled,
      .suggest = SuggestScale,
      .change = "op",
      .how = HowScale,
  };
  return k;
}

}  // namespace tt::analysis::replay
