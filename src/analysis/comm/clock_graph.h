// The clocks of several recordings solved together (comm_clock.cc): every pair of recordings
// that shares a collective or a send/receive bounds the difference of their offsets, and those
// bounds together, as a system of difference constraints (shortest paths over the graph of
// recordings), bound each recording's offset against the reference; recordings that share no
// collective with the reference are bounded through the others. Where the window leaves room,
// the collectives' exits pick the offset: every rank leaves a symmetric collective at nearly one
// true moment (its result reaches all at once), so the median difference of their exits is each
// pair's offset, chained from the reference over the pairs with the most collectives.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/comm/comm.h"

namespace tt::analysis {

// The offsets (added to a recording's times) that causality allows one recording.
struct OffsetWindow {
  int64_t low = INT64_MIN, high = INT64_MAX;  // MIN / MAX: open on that side
  uint64_t instances = 0;                     // instances it shares with another recording
};

// What the instances say of each pair of clocks (`units` of them, unit_of[rank]).
struct ClockEvidence {
  size_t units = 0;
  std::vector<int64_t> low;  // [u * units + v]: d_v - d_u >= low
  // [u * units + v]: exit_u - exit_v per symmetric instance whose first unit is u
  std::vector<std::vector<int64_t>> exit_diffs;
  std::vector<uint64_t> instances;  // per unit
};

ClockEvidence CollectEvidence(const std::vector<CommInstance>& instances,
                              const std::vector<size_t>& unit_of, size_t units);

// Each unit's window against unit 0, from every pair's bounds together; nullopt when they
// contradict each other (no offsets satisfy them all).
std::optional<std::vector<OffsetWindow>> JointWindows(const ClockEvidence& e);

// One unit's offset from the exits of the symmetric collectives it shares, chained from unit 0,
// and how far the exits spread about it (the median absolute deviation, summed along the chain).
struct ExitEstimate {
  int64_t offset = 0;
  int64_t spread = 0;
};
// Per unit; nullopt for a unit no such chain reaches.
std::vector<std::optional<ExitEstimate>> ExitEstimates(const ClockEvidence& e);

}  // namespace tt::analysis
