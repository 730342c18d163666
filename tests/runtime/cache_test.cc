// The runtime's per-thread caches (runtime/intern.h, runtime/event_classes.h): a reused name
// buffer, a name at the end of a page, one name's shapes taking turns, and one name pointer's
// events of changing kinds, categories, keys and counts all read back exactly
// (tests/programs/cache_job.cc writes them).
#include <gtest/gtest.h>

#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "programs/cache_job.h"
#include "test_util.h"
#include "trace_view.h"

namespace tt {
namespace {

using namespace layout;
using test::RunCmd;
using test::TempDir;

constexpr int kRounds = 3;

TEST(Caches, EveryNameAndValueReadsBackInOrder) {
  TempDir dir;
  auto run = RunCmd({TT_CACHE_JOB, std::to_string(kRounds)}, {{"TENSORTRACE_DIR", dir.path()}});
  ASSERT_EQ(run.status, 0) << run.err;  // a load past the page's end would have killed it
  ASSERT_NE(run.out.find("cache done"), std::string::npos);
  test::TraceView view = test::LoadTrace(dir.path());
  ASSERT_TRUE(view.problems.empty()) << view.problems[0].ToString();
  ASSERT_EQ(view.procs.size(), 1u);
  const test::ProcView& p = view.procs[0];

  std::vector<std::string> want_names;
  std::vector<std::string> want_alt;  // each "alt" instant's value, as text
  for (int r = 0; r < kRounds; ++r) {
    for (size_t len : cache_job::kLens) want_names.push_back(cache_job::Named(len));
    std::string a31(31, 'x');
    for (const std::string& s : {a31, a31 + "y", a31}) want_names.push_back(s);
    for (const std::string& s : cache_job::Twins()) want_names.insert(want_names.end(), 2, s);
    for (const std::string& s : cache_job::kEdgeNames) want_names.insert(want_names.end(), 2, s);
    want_names.insert(want_names.end(), 2, "");  // null names
    for (int k = 0; k < 5; ++k)
      want_alt.push_back(k < 4 ? std::to_string(cache_job::kWidths[k] * (r + 1))
                               : std::string("word"));
  }
  std::vector<std::string> names, alt;
  std::vector<double> counters;
  std::vector<const test::Ev*> memo;
  for (const test::Ev& e : p.events) {
    if (e.name == "memo") {
      memo.push_back(&e);
    } else if (e.id == kInstant && e.name == "alt") {
      ASSERT_EQ(e.args.size(), 1u);
      const Arg& a = e.args[0];
      alt.push_back(a.type == ArgType::kString ? p.names.at(a.v.str) : std::to_string(a.v.i));
    } else if (e.id == kCounter && e.name == "alt") {
      counters.push_back(e.value);
    } else if (e.id == kInstant && e.name.rfind("fit-", 0) != 0) {  // fit-*: the next test's
      names.push_back(e.name);
    }
  }
  EXPECT_EQ(names, want_names);
  EXPECT_EQ(alt, want_alt);
  ASSERT_EQ(counters.size(), 5u * kRounds);
  for (int r = 0; r < kRounds; ++r)
    for (int k = 0; k < 5; ++k) EXPECT_EQ(counters[r * 5 + k], k + r);

  // Each "memo" event as it was written, though the one before it had another shape.
  ASSERT_EQ(memo.size(), std::size(cache_job::kMemo) * kRounds);
  size_t at = 0;
  for (int r = 0; r < kRounds; ++r) {
    for (const cache_job::MemoEvent& m : cache_job::kMemo) {
      const test::Ev& e = *memo[at++];
      SCOPED_TRACE("round " + std::to_string(r) + ", event " + std::to_string(at));
      EXPECT_EQ(e.id, m.kind);
      EXPECT_EQ(e.category, m.framework ? Category::kFrameworkOp : Category::kUser);
      ASSERT_EQ(e.args.size(), m.nargs);
      for (uint32_t i = 0; i < m.nargs; ++i) {
        std::string key = i == 0 && m.other_key ? "other" : "k" + std::to_string(i);
        EXPECT_EQ(p.names.at(e.args[i].key), key);
        EXPECT_EQ(e.args[i].v.i, 10 * i + r);
      }
    }
  }
}

// The fast path keeps a name's last class while a value fits its encodings: every value at
// an encoding's edge, after every other one, reads back with its type and exact bits.
TEST(Caches, ValuesAtTheEncodingsEdgesReadBackExactly) {
  TempDir dir;
  auto run = RunCmd({TT_CACHE_JOB, "1"}, {{"TENSORTRACE_DIR", dir.path()}});
  ASSERT_EQ(run.status, 0) << run.err;
  test::TraceView view = test::LoadTrace(dir.path());
  ASSERT_TRUE(view.problems.empty()) << view.problems[0].ToString();
  ASSERT_EQ(view.procs.size(), 1u);
  const test::ProcView& p = view.procs[0];
  // What each "fit-*" instant should hold: its type and its value's 8 bytes.
  std::vector<std::pair<ArgType, uint64_t>> want_i, want_u, want_f, want_t;
  for (int64_t x : cache_job::kFitInts)
    for (int64_t y : cache_job::kFitInts)
      for (int64_t v : {x, y}) want_i.emplace_back(ArgType::kInt, static_cast<uint64_t>(v));
  for (uint64_t x : cache_job::kFitUints)
    for (uint64_t y : cache_job::kFitUints)
      for (uint64_t v : {x, y}) want_u.emplace_back(ArgType::kUint, v);
  for (uint64_t x : cache_job::kFitDoubleBits)
    for (uint64_t y : cache_job::kFitDoubleBits)
      for (uint64_t v : {x, y}) want_f.emplace_back(ArgType::kFloat, v);
  uint64_t five_bits;
  double five = 5;
  std::memcpy(&five_bits, &five, 8);
  for (int round = 0; round < 2; ++round)
    for (ArgType t : cache_job::kFitTypes)
      want_t.insert(want_t.end(), 2, {t, t == ArgType::kFloat ? five_bits : 5});
  std::vector<std::pair<ArgType, uint64_t>> got_i, got_u, got_f, got_t;
  for (const test::Ev& e : p.events) {
    if (e.id != kInstant || e.name.rfind("fit-", 0) != 0) continue;
    ASSERT_EQ(e.args.size(), 1u) << e.name;
    EXPECT_EQ(p.names.at(e.args[0].key), "v");
    std::pair<ArgType, uint64_t> got{e.args[0].type, e.args[0].v.u};
    if (got.first == ArgType::kString) got.second = p.names.at(e.args[0].v.str) == "five" ? 5 : 0;
    if (e.name == "fit-i") got_i.push_back(got);
    if (e.name == "fit-u") got_u.push_back(got);
    if (e.name == "fit-f") got_f.push_back(got);
    if (e.name == "fit-t") got_t.push_back(got);
  }
  EXPECT_EQ(got_i, want_i);
  EXPECT_EQ(got_u, want_u);
  EXPECT_EQ(got_f, want_f);
  EXPECT_EQ(got_t, want_t);
}

}  // namespace
}  // namespace tt
