// Event classes (layout 3): events written as a class id and their values read back exactly,
// by our reader and by babeltrace2, and the fallbacks to self-described events.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "core/files.h"
#include "test_util.h"
#include "trace_view.h"

namespace tt {
namespace {

using namespace layout;
using test::RunCmd;
using test::TempDir;

constexpr long kN = 3000;  // step = i * 37 passes every width from i8 to i32
// The job's repeated "name-0" (with a class) and "name-299" (without): k = -1 - r, r < 5, of
// the width of their first k (a class takes the width into account).
constexpr long kAgainN = 5;

// The argument named `key`; a missing one reads as an unlikely value (and fails the checks).
const Arg* ArgNamed(const test::ProcView& p, const test::Ev& e, const std::string& key) {
  for (const Arg& a : e.args) {
    auto it = p.names.find(a.key);
    if (it != p.names.end() && it->second == key) return &a;
  }
  ADD_FAILURE() << "no argument " << key << " in " << e.name;
  static Arg missing = [] {
    Arg a;
    a.type = ArgType::kString;
    a.v.u = UINT64_MAX;
    return a;
  }();
  return &missing;
}

struct Recorded {
  TempDir dir;
  test::TraceView view;
  const test::ProcView* parent = nullptr;
  const test::ProcView* child = nullptr;
};

Recorded* RecordWith(bool tsc) {
  auto* rec = new Recorded;
  // Run directly: the job links the runtime, and `record` would preload a second one.
  std::map<std::string, std::string> env = {{"TENSORTRACE_DIR", rec->dir.path()}};
  if (!tsc) env["TENSORTRACE_TSC"] = "0";  // clock_gettime for every event
  auto run = RunCmd({TT_CLASS_JOB, std::to_string(kN)}, env);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("classes done"), std::string::npos) << run.out;
  rec->view = test::LoadTrace(rec->dir.path());
  for (const auto& p : rec->view.procs)
    for (const auto& q : rec->view.procs)
      if (q.meta.ppid == p.meta.pid) {
        rec->parent = &p;
        rec->child = &q;
      }
  return rec;
}

// The job's trace with the TSC clock (where the machine has one), or with clock_gettime.
const Recorded& Record(bool tsc = true) {
  static Recorded* with_tsc = RecordWith(true);
  static Recorded* without = RecordWith(false);
  return tsc ? *with_tsc : *without;
}

void ExpectEveryValue(const Recorded& r) {
  ASSERT_TRUE(r.view.problems.empty()) << r.view.problems[0].ToString();
  ASSERT_EQ(r.view.procs.size(), 2u);
  ASSERT_TRUE(r.parent && r.child);
  const test::ProcView& p = *r.parent;
  long tick = 0, work = 0, queue = 0, phase = 0, plain = 0, wide = 0, named = 0;
  long again[2] = {0, 0};
  uint64_t last_ts = 0;
  for (const test::Ev& e : p.events) {
    if (e.file == p.events.front().file) {  // the main thread's stream: in time order
      EXPECT_GE(e.ts, last_ts);
      last_ts = e.ts;
    }
    if (e.id == kInstant && e.name == "tick") {
      ASSERT_EQ(e.args.size(), 3u);
      EXPECT_EQ(ArgNamed(p, e, "step")->v.i, tick * 37);
      EXPECT_EQ(ArgNamed(p, e, "loss")->type, ArgType::kFloat);
      EXPECT_EQ(ArgNamed(p, e, "loss")->v.f, static_cast<double>(tick) / 2);
      EXPECT_EQ(p.names.at(ArgNamed(p, e, "unit")->v.str), "ms");
      EXPECT_EQ(e.category, Category::kUser);
      EXPECT_TRUE(e.classed);
      ++tick;
    } else if (e.id == kCounter && e.name == "queue") {
      EXPECT_EQ(e.value, static_cast<double>(queue) + 0.25);
      EXPECT_EQ(e.category, Category::kAllocation);
      EXPECT_TRUE(e.classed);
      ++queue;
    } else if (e.id == kComplete && e.name == "work") {
      EXPECT_EQ(e.duration, static_cast<uint64_t>(work));
      EXPECT_EQ(ArgNamed(p, e, "bytes")->v.i, work * 1000);
      EXPECT_EQ(e.category, Category::kFrameworkOp);
      EXPECT_TRUE(e.classed);
      ++work;
    } else if (e.id == kSliceBeginArgs && e.name == "phase") {
      EXPECT_EQ(ArgNamed(p, e, "n")->v.i, -phase);
      EXPECT_EQ(e.category, Category::kStep);
      EXPECT_TRUE(e.classed);
      ++phase;
    } else if (e.id == kSliceBegin && e.name == "plain") {
      EXPECT_TRUE(e.classed);
      ++plain;
    } else if (e.id == kInstant && e.name == "wide") {
      ASSERT_EQ(e.args.size(), 8u);  // more arguments than a class holds: self-described
      for (int k = 0; k < 8; ++k) EXPECT_EQ(e.args[k].v.i, wide + k);
      EXPECT_FALSE(e.classed);
      ++wide;
    } else if (e.id == kInstant && e.name.rfind("name-", 0) == 0 && e.args.size() == 1 &&
               e.args[0].v.i < 0) {
      // Repeated after the table filled: written as the name's first event was.
      bool first = e.name == "name-0";
      EXPECT_TRUE(first || e.name == "name-299") << e.name;
      EXPECT_EQ(e.args[0].v.i, -1 - again[first ? 0 : 1]);
      EXPECT_EQ(e.classed, first);
      ++again[first ? 0 : 1];
    } else if (e.id == kInstant && e.name.rfind("name-", 0) == 0) {
      EXPECT_EQ(e.name, "name-" + std::to_string(named));
      ASSERT_EQ(e.args.size(), 1u);
      EXPECT_EQ(e.args[0].v.i, named);
      EXPECT_EQ(e.category, Category::kPython);
      ++named;
    }
  }
  EXPECT_EQ(tick, kN);
  EXPECT_EQ(queue, kN);
  EXPECT_EQ(work, kN);
  EXPECT_EQ(phase, kN);
  EXPECT_EQ(plain, kN);
  EXPECT_EQ(wide, kN);
  EXPECT_EQ(named, 300);
  EXPECT_EQ(again[0], kAgainN);
  EXPECT_EQ(again[1], kAgainN);
  EXPECT_EQ(p.Count(kSliceEnd), 2u * kN);
}

TEST(EventClass, EveryValueReadsBackExactly) { ExpectEveryValue(Record()); }

TEST(EventClass, EveryValueReadsBackExactlyWithoutTheTsc) { ExpectEveryValue(Record(false)); }

TEST(EventClass, AFullTableFallsBackToSelfDescribedEvents) {
  const Recorded& r = Record();
  ASSERT_TRUE(r.parent);
  const test::ProcView& p = *r.parent;
  size_t classes = p.Count(kEventClassDef);
  EXPECT_EQ(classes, kLastClassId - kFirstClassId + 1u);
  size_t classed = 0, plain = 0;
  for (const test::Ev& e : p.events)
    if (e.name.rfind("name-", 0) == 0) (e.classed ? classed : plain)++;
  // Each width of "step" is a class of its own (i8, i16, i32), and so on: what is left of the
  // table goes to the first names, the rest are written whole, and none is lost.
  EXPECT_GT(classed, 0u);
  EXPECT_GT(plain, 0u);
  EXPECT_EQ(classed + plain, 300u + 2 * kAgainN);  // with the repeats of two of them
}

TEST(EventClass, AForkedChildDefinesItsOwnClasses) {
  const Recorded& r = Record();
  ASSERT_TRUE(r.child);
  const test::ProcView& c = *r.child;
  long tick = 0;
  for (const test::Ev& e : c.events) {
    if (e.id != kInstant || e.name != "tick") continue;
    EXPECT_TRUE(e.classed);
    EXPECT_EQ(ArgNamed(c, e, "step")->v.i, tick * 37);
    ++tick;
  }
  EXPECT_EQ(tick, kN);
  // step as i8, i16 and i32 (loss = i / 2 is always a float's, unit a string id)
  EXPECT_EQ(c.Count(kEventClassDef), 3u);
}

TEST(EventClass, BabeltraceReadsClassesWithTheirFields) {
  if (!test::HaveBabeltrace()) GTEST_SKIP() << "babeltrace2 not installed";
  const Recorded& r = Record();
  auto bt = RunCmd({"babeltrace2", r.dir.path()}, {}, 300);
  ASSERT_EQ(bt.status, 0) << bt.err.substr(0, 2000);
  EXPECT_EQ(bt.err, "");
  EXPECT_EQ(test::CountLines(bt.out), r.view.total_events);
  // Each line: "KIND:NAME: { packet context }, { fields }"; tick 100 has step = 3700, loss = 50.
  auto line_has = [&](const std::string& event, const std::string& fields) {
    for (size_t at = bt.out.find(event + ": {"); at != std::string::npos;
         at = bt.out.find(event + ": {", at + 1)) {
      size_t eol = bt.out.find('\n', at);
      if (bt.out.substr(at, eol - at).find(fields) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(line_has("instant:tick", "}, { step = 3700, loss = 50, unit = "));
  EXPECT_TRUE(line_has("complete:work", "}, { duration = 7, bytes = 7000 }"));
  EXPECT_TRUE(line_has("counter:queue", "}, { value = 2.25 }"));
  EXPECT_TRUE(line_has("slice_begin_args:phase", "}, { n = -9 }"));
  EXPECT_NE(bt.out.find("slice_begin:plain"), std::string::npos);
}

TEST(EventClass, ClassEventsAreSmall) {
  const Recorded& r = Record();
  ASSERT_TRUE(r.parent);
  // The child's thread stream: its N ticks, a thread name, and nothing else of size.
  std::string file;
  for (const test::Ev& e : r.child->events)
    if (e.id == kInstant) file = e.file;
  ASSERT_FALSE(file.empty());
  uint64_t used = 0;
  test::PacketChain chain = test::ReadPacketChain(file);
  used = chain.size - (chain.last_size - chain.last_content);
  // header 5 + step <= 4 + loss 4 + unit 4, and one packet header.
  EXPECT_LE(used, static_cast<uint64_t>(kN) * 17 + 200 + layout::kPacketHeaderSize * chain.packets);
}

}  // namespace
}  // namespace tt
