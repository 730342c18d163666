#include "analysis/report/rank_gaps.h"

#include <algorithm>
#include <map>

#include "core/human.h"

namespace tt::analysis {

std::vector<RankGaps> GapsByRank(const std::vector<StepBreakdown>& steps) {
  struct Sums {
    uint64_t idle = 0, steps = 0;
    std::map<std::string, uint64_t> lines;
  };
  std::map<int64_t, Sums> per;
  for (const auto& s : steps) {
    if (s.rank < 0) continue;
    Sums& r = per[s.rank];
    r.idle += s.host_idle;
    r.steps++;
    for (const auto& [line, ns] : s.gap_lines) r.lines[line] += ns;
  }
  std::vector<RankGaps> out;
  for (const auto& [rank, r] : per) {
    RankGaps g{rank, r.steps, r.idle / r.steps, "", 0, 0};
    for (const auto& [line, ns] : r.lines) {
      g.sampled_ns += ns;
      if (ns > g.line_ns) g.line = line, g.line_ns = ns;
    }
    out.push_back(std::move(g));
  }
  return out;
}

uint64_t OthersMedianGaps(const std::vector<RankGaps>& gaps, int64_t rank) {
  std::vector<uint64_t> others;
  for (const auto& g : gaps)
    if (g.rank != rank) others.push_back(g.per_step);
  if (others.empty()) return 0;
  std::sort(others.begin(), others.end());
  return others[(others.size() - 1) / 2];
}

std::string GapSentence(const std::vector<RankGaps>& gaps, int64_t rank) {
  auto it =
      std::find_if(gaps.begin(), gaps.end(), [&](const RankGaps& g) { return g.rank == rank; });
  if (it == gaps.end() || gaps.size() < 2) return "";
  uint64_t median = OthersMedianGaps(gaps, rank);
  if (it->per_step < median + 1000000) return "";
  std::string text = HumanDuration(static_cast<double>(it->per_step)) +
                     " a step in gaps (no op on its host threads; the other ranks " +
                     HumanDuration(static_cast<double>(median)) + ")";
  if (!it->sampled_ns) return text + ", with no Python stack sampled in them";
  return text + ", where the Python sampler saw " + it->line + " (" +
         Percent(static_cast<double>(it->line_ns) / static_cast<double>(it->sampled_ns)) +
         " of the gaps)";
}

}  // namespace tt::analysis
