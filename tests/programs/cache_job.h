// What tests/programs/cache_job.cc writes, shared with the test that reads it back
// (tests/runtime/cache_test.cc).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "format/layout.h"

namespace cache_job {

// The lengths of the names written through one reused buffer (the in-place comparison takes
// the first 32 bytes from the cache entry, the rest 16 at a time from the interned text).
inline constexpr size_t kLens[] = {0,  1,  15, 16, 17, 30, 31,  32,  33,  40,
                                   47, 48, 63, 64, 79, 80, 100, 255, 256, 300};
inline constexpr size_t kMaxLen = 300;

// Texts the reused buffer then holds in turn, each written twice (the second time its cache
// entry matches): pairs that differ only in their last byte, at 32, 40, 63, 64, 70, 80 and 300
// bytes, and 200-byte ones that differ only in byte 100.
inline std::vector<std::string> Twins() {
  std::vector<std::string> out;
  for (size_t len : {32, 40, 63, 64, 70, 80, 300}) {
    std::string a(len - 1, 'x');
    for (const char* last : {"a", "b", "a"}) out.push_back(a + last);
  }
  for (char middle : {'a', 'b', 'a'}) {
    std::string a(200, 'x');
    a[100] = middle;
    out.push_back(a);
  }
  return out;
}

// Names whose NUL is the last byte of a page followed by an inaccessible page.
inline const std::string kEdgeNames[] = {
    "page-edge", "page-edge, a name longer than thirty-two bytes",
    "page-edge, a name longer than sixty-four bytes, which the comparison takes in five blocks"};
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

// Values whose encodings' edges the fast path's range checks must get right. "fit-i" {v}, "fit-f"
// {v} and "fit-u" {v} write every pair (a, b) of their list as a then b, so each value meets what
// each other one left in the name's cache entry (tests/runtime/cache_test.cc, FitValues).
inline constexpr int64_t kFitInts[] = {0,
                                       127,
                                       128,
                                       -128,
                                       -129,
                                       32767,
                                       32768,
                                       -32768,
                                       -32769,
                                       INT32_MAX,
                                       int64_t{INT32_MAX} + 1,
                                       INT32_MIN,
                                       int64_t{INT32_MIN} - 1,
                                       INT64_MAX,
                                       INT64_MIN};
inline constexpr uint64_t kFitUints[] = {0, 1u << 31, UINT32_MAX, uint64_t{UINT32_MAX} + 1,
                                         UINT64_MAX};
// Doubles by their bits: a float's (0.5, -0.0, the smallest and largest float, a quiet NaN),
// and not (0.1, past float's range, a NaN whose payload a float cannot hold).
inline constexpr uint64_t kFitDoubleBits[] = {
    0x3fe0000000000000, 0x8000000000000000, 0x36a0000000000000, 0x47efffffe0000000,
    0x7ff8000000000000, 0x3fb999999999999a, 0x47f0000000000000, 0x7ff8000000000001};
inline double FitDouble(size_t i) {
  double d;
  std::memcpy(&d, &kFitDoubleBits[i], 8);
  return d;
}
// "fit-t" {v}: one key whose type changes from one event to the next (int, uint, float,
// string, twice around), each value 5 (the string: the interned "five"), its padding bytes
// 0xab from the second time around (the fast path ignores them; values must not change).
inline constexpr tt::layout::ArgType kFitTypes[] = {
    tt::layout::ArgType::kInt, tt::layout::ArgType::kUint, tt::layout::ArgType::kFloat,
    tt::layout::ArgType::kString};

// The name of length `len`: "L<len>:" then letters, cut to `len`.
inline std::string Named(size_t len) {
  std::string s = "L" + std::to_string(len) + ":";
  while (s.size() < len) s += static_cast<char>('a' + s.size() % 26);
  return s.substr(0, len);
}

}  // namespace cache_job
