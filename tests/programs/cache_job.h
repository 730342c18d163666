// What tests/programs/cache_job.cc writes, shared with the test that reads it back
// (tests/cache_test.cc).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace cache_job {

// The lengths of the names written through one reused buffer (the in-place comparison covers
// texts under 32 bytes).
inline constexpr size_t kLens[] = {0, 1, 15, 16, 17, 30, 31, 32, 33, 40};
// The values of "alt" {v} in round 0, one per integer width (round r writes them times r + 1).
inline constexpr int64_t kWidths[] = {-5, 1000, -70000, int64_t{1} << 40};

// The name of length `len`: "L<len>:" then letters, cut to `len`.
inline std::string Named(size_t len) {
  std::string s = "L" + std::to_string(len) + ":";
  while (s.size() < len) s += static_cast<char>('a' + s.size() % 26);
  return s.substr(0, len);
}

}  // namespace cache_job
