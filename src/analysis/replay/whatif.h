// Replay's what-ifs: each changes a step's graph before it is replayed; one file each
// (whatif_*.cc), listed in Apply (whatif.cc).
#pragma once
#include <cstddef>
#include <memory>
#include <regex>
#include <string>
#include <unordered_map>

#include "analysis/replay/graph.h"

namespace tt::analysis::replay {

struct WhatIf {
  enum class Kind : uint8_t {
    kScale,    // REGEX=FACTOR: ops whose name or type matches the pattern, durations x factor
    kInput,    // input=FACTOR: input waits and the input pipeline's work x factor
    kComm,     // comm=FACTOR: collectives' transfers x factor (0.5: twice the bandwidth)
    kOverlap,  // overlap=comm: no rank waits for a transfer; only its step's end does
  };
  Kind kind = Kind::kScale;
  std::string spec;     // as given
  std::string pattern;  // kScale: an ECMAScript regular expression, searched in name and type
  double factor = 1;    // >= 0; 0 removes the work (and the dispatch gaps before it)
  // kScale: whether a label matches, decided once per label text for every step's graph.
  bool Matches(const std::string& label, const std::string& type) const;
  struct Matcher {
    std::regex re;
    std::unordered_map<std::string, bool> seen;
  };
  mutable std::shared_ptr<Matcher> matcher;  // compiled at the first Matches
};

// Parses "REGEX=FACTOR", "input=FACTOR", "comm=FACTOR" (the factor after the last '='),
// "overlap=comm".
// `factor` parses and checks the number (the command line's parser). Throws tt::Error.
WhatIf ParseWhatIf(const std::string& spec,
                   double (*factor)(const std::string& spec, const std::string& text));

// Changes g; returns how many nodes changed (0: the what-if matched nothing in g).
size_t Apply(const WhatIf& w, Graph* g);
size_t ApplyScale(const WhatIf& w, Graph* g);  // whatif_scale.cc
size_t ApplyInput(const WhatIf& w, Graph* g);  // whatif_input.cc
size_t ApplyComm(const WhatIf& w, Graph* g);   // whatif_comm.cc
size_t ApplyOverlap(Graph* g);                 // whatif_overlap.cc

// Sets node v's duration to its duration x factor; factor 0 also zeroes the gaps of the edges
// into v (its dispatch is gone with it, ZeroGapsInto: for each node marked in `removed`).
void ScaleNode(Graph* g, uint32_t v, double factor);
void ZeroGapsInto(Graph* g, const std::vector<char>& removed);

}  // namespace tt::analysis::replay
