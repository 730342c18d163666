// What tests/programs/cache_job.cc writes, shared with the test that reads it back
// (tests/cache_test.cc).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "format/layout.h"

namespace cache_job {

// The lengths of the names written through one reused buffer (the in-place comparison covers
// texts under 32 bytes).
inline constexpr size_t kLens[] = {0, 1, 15, 16, 17, 30, 31, 32, 33, 40};
// The values of "alt" {v} in round 0, one per integer width (round r writes them times r + 1).
inline constexpr int64_t kWidths[] = {-5, 1000, -70000, int64_t{1} << 40};

// The events one name pointer, "memo", writes in turn each round, so that what its cache entry
// remembers of the last one never stands for the next: (kind, category, argument count, first
// key). Argument i has key "k<i>" (the first of the second event: "other") and value 10 * i + r.
struct MemoEvent {
  uint8_t kind;    // kInstant or kSliceBeginArgs (then followed by an end)
  bool framework;  // category kFrameworkOp, else kUser
  uint32_t nargs;
  bool other_key;
};
inline constexpr uint8_t kI = tt::layout::kInstant, kB = tt::layout::kSliceBeginArgs;
inline constexpr MemoEvent kMemo[] = {
    {kI, false, 1, false}, {kI, false, 1, true},  {kI, true, 1, false},
    {kB, false, 1, false}, {kI, false, 4, false}, {kI, false, 5, false},
    {kI, false, 7, false}, {kI, false, 0, false}, {kI, false, 1, false},
};

// The name of length `len`: "L<len>:" then letters, cut to `len`.
inline std::string Named(size_t len) {
  std::string s = "L" + std::to_string(len) + ":";
  while (s.size() < len) s += static_cast<char>('a' + s.size() % 26);
  return s.substr(0, len);
}

}  // namespace cache_job
