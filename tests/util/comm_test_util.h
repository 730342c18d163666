// Helpers of the `tensortrace comm` tests (comm_*_test.cc): collectives built by hand for the
// matching, the comm view and report of recorded traces, and recordings of real multi-rank jobs
// inside a network namespace (one recording of the job, or one per rank).
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/comm/comm.h"
#include "test_util.h"

namespace tt::test {

inline constexpr uint64_t kMs = 1000000;

// A collective of the gloo backend from start_ms to end_ms (its name normalised as the
// importers do), with its bytes and instance key (-1: none).
analysis::CommEvent Ev(const char* coll, const char* group, uint64_t start_ms, uint64_t end_ms,
                       int64_t bytes, int64_t key = -1);
// Rank `rank` (pid 100 + rank) with these events, from the backend.
analysis::CommRank Rank(int64_t rank, std::vector<analysis::CommEvent> events);
// The instance of `coll` numbered `seq` (of instance key `key`); a test failure where none is.
const analysis::CommInstance* Find(const analysis::CommView& v, const std::string& coll,
                                   uint64_t seq, int64_t key = -1);

// `tensortrace comm DIR... --json`, parsed (an empty object, and a test failure, where it fails).
nlohmann::json CommJson(const std::vector<std::string>& dirs);
// The instance of `coll` numbered `seq` with instance key `key` (null: none) in a comm --json.
const nlohmann::json* Instance(const nlohmann::json& j, const std::string& coll, int64_t seq,
                               const nlohmann::json& key);
// `tensortrace report` of `trace` into `out`: the page.
std::string ReportOf(const std::string& trace, const std::string& out);
// The text of the finding with this id ("" when the page has none).
std::string FindingText(const std::string& html, const std::string& id);

// No rank of an all-reduce, all-gather or barrier leaves before the last rank entered, and no
// broadcast's receiver leaves before its root (rank index 0 here) entered, give or take
// `broadcast_slack` ns: broadcasts do not bound the clocks' offset (their events do not name
// the root), so they hold only to within the offset's uncertainty.
void ExpectCausal(const nlohmann::json& j, uint64_t broadcast_slack = 0);

// Records `program` inside a network namespace of its own (gloo listens on 127.0.0.1 there).
bool RecordInNetworkNamespace(const std::string& trace, const std::string& program,
                              const std::map<std::string, std::string>& env, RunResult* r);

// `s` quoted for sh.
std::string ShellQuote(const std::string& s);
// Records `program` once per rank, each its own `tensortrace record -o traces[r]` with env[r]
// added, all at once inside one network namespace. Their outputs, concatenated, go to r.
bool RecordEachRank(const std::vector<std::string>& traces, const std::string& program,
                    const std::vector<std::map<std::string, std::string>>& env,
                    const std::string& dir, RunResult* r);

}  // namespace tt::test

#define RECORD_OR_SKIP(trace, program, env, r)                          \
  do {                                                                  \
    if (!::tt::test::RecordInNetworkNamespace(trace, program, env, &r)) \
      GTEST_SKIP() << "cannot make a network namespace (unshare -n)";   \
    ASSERT_EQ(r.status, 0) << r.err;                                    \
  } while (0)

#define RECORD_EACH_OR_SKIP(traces, program, env, dir, r)             \
  do {                                                                \
    if (!::tt::test::RecordEachRank(traces, program, env, dir, &r))   \
      GTEST_SKIP() << "cannot make a network namespace (unshare -n)"; \
    ASSERT_EQ(r.status, 0) << r.err;                                  \
  } while (0)
