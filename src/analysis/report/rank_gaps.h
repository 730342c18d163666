// A rank's gaps: the host idle time of its steps (no op, range or Python slice on any of its
// host threads: the program sleeping, waiting outside any op, or running Python between ops),
// per step on average, and the Python line the sampler saw most in them (the step view's
// gap_lines). The straggler finding and `comm` say where a slow rank's extra time went.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/views/stats.h"

namespace tt::analysis {

struct RankGaps {
  int64_t rank = -1;
  uint64_t steps = 0;
  uint64_t per_step = 0;    // ns of host idle per step, on average
  std::string line;         // the line the sampler saw most in them ("": none sampled)
  uint64_t line_ns = 0;     // ns of the gaps at that line, over all its steps
  uint64_t sampled_ns = 0;  // ns of the gaps attributed to any stack, over all its steps
};

// Per rank of the steps (those with a rank), in rank order.
std::vector<RankGaps> GapsByRank(const std::vector<StepBreakdown>& steps);

// The median of the other ranks' gaps per step (0 with no other rank).
uint64_t OthersMedianGaps(const std::vector<RankGaps>& gaps, int64_t rank);

// "19.90 ms a step in gaps (the other ranks 895.3 us), where the Python sampler saw
// train.py:41 (main) (96% of the gaps)" for a rank whose gaps exceed the other ranks' median
// by 1 ms; "" otherwise.
std::string GapSentence(const std::vector<RankGaps>& gaps, int64_t rank);

}  // namespace tt::analysis
