// One rank of a synthetic job's collectives at known times
// (tests/analysis/comm/comm_trace_test.cc): communication slices with a collective, process group,
// bytes, group size and rank, written with exact timestamps T0 + offsets. Rank 0 and rank 1 are
// started (RANK=0|1 WORLD_SIZE=2) with the same TT_COMM_T0 (CLOCK_MONOTONIC ns, a moment after both
// have started); each waits past its last event before it exits, so the events are in its stream's
// order.
//   TENSORTRACE_DIR=DIR RANK=R WORLD_SIZE=2 TT_COMM_T0=NS comm_job
// Exits 3 when it started after T0 (the test then retries later).
#include <time.h>

#include <cstdlib>
#include <string>

#include "job_args.h"
#include "runtime/emit.h"

using tt::Arg;
using tt::layout::Category;
using tt::test_job::Int;
using tt::test_job::Str;
namespace rt = tt::rt;

namespace {

constexpr uint64_t kMs = 1000000;

uint64_t MonotonicNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000 + static_cast<uint64_t>(t.tv_nsec);
}

struct Coll {
  const char* collective;
  const char* group;
  uint64_t enter_ms, exit_ms;
  int64_t bytes, key;  // key -1: none
};

// Rank 0 and rank 1: an all-reduce that rank 1 enters 3 ms late, a broadcast both enter at
// once, an all-reduce that rank 1 enters 15 ms late, two all-gathers with instance keys run in
// opposite orders (matched by key, not by order), and an all-reduce of group 1 on rank 0 only.
// clang-format off
const Coll kRank0[] = {
    {"all_reduce", "0", 0, 10, 4000, -1},   {"broadcast", "0", 12, 14, 1000, -1},
    {"all_reduce", "0", 20, 40, 4000, -1},  {"all_gather", "0", 45, 50, 512, 8},
    {"all_gather", "0", 52, 60, 256, 7},    {"all_reduce", "1", 70, 75, 64, -1},
};
const Coll kRank1[] = {
    {"all_reduce", "0", 3, 10, 4000, -1},   {"broadcast", "0", 12, 14, 1000, -1},
    {"all_reduce", "0", 35, 40, 4000, -1},  {"all_gather", "0", 41, 60, 256, 7},
    {"all_gather", "0", 61, 62, 512, 8},
};
// clang-format on

}  // namespace

int main() {
  const char* t0_text = std::getenv("TT_COMM_T0");
  const char* rank_text = std::getenv("RANK");
  if (!t0_text || !rank_text) return 2;
  uint64_t t0 = std::strtoull(t0_text, nullptr, 10);
  int rank = std::atoi(rank_text);
  rt::EmitThreadName("main");
  if (MonotonicNs() + kMs >= t0) return 3;
  const Coll* list = rank == 0 ? kRank0 : kRank1;
  size_t n = rank == 0 ? std::size(kRank0) : std::size(kRank1);
  for (size_t i = 0; i < n; ++i) {
    const Coll& c = list[i];
    Arg args[6] = {Str("collective", c.collective),
                   Str("process_group", c.group),
                   Int("bytes", c.bytes),
                   Int("nranks", 2),
                   Int("rank", rank),
                   Int("instance_key", c.key)};
    std::string name = std::string("gloo:") + c.collective;
    rt::EmitComplete(name.c_str(), Category::kCommunication, (c.exit_ms - c.enter_ms) * kMs, args,
                     c.key >= 0 ? 6 : 5, t0 + c.exit_ms * kMs);
  }
  while (MonotonicNs() < t0 + 100 * kMs) {
    timespec d{0, 5 * 1000000};
    nanosleep(&d, nullptr);
  }
  return 0;
}
