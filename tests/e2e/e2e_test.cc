// End to end: record the bundled example (threads, fork, exec), then read the trace with
// babeltrace2 as an outside reader and with ours; both see exactly the events written.
#include <gtest/gtest.h>

#include "test_util.h"
#include "trace_view.h"

namespace tt {
namespace {

using namespace layout;

TEST(EndToEnd, ExampleThreadsForkExecReadByBabeltrace) {
  test::TempDir d;
  const int iters = 2000;
  auto r = test::RunCmd({TT_CLI, "record", "--buffer-size", "64K", "-o", d / "t", "--",
                         TT_EXAMPLE, std::to_string(iters)});
  ASSERT_EQ(r.status, 0) << r.err;
  auto v = test::LoadTrace(d / "t");
  ASSERT_TRUE(v.problems.empty()) << v.problems[0].ToString();
  ASSERT_EQ(v.procs.size(), 3u);  // the program, its forked child, its exec'd child

  const test::ProcView* main = nullptr;
  const test::ProcView* forked = nullptr;
  const test::ProcView* execd = nullptr;
  for (const auto& p : v.procs) {
    if (p.meta.cmdline.find("--exec-child") != std::string::npos) execd = &p;
    else if (p.Count(kSliceBegin, "main")) main = &p;
    else forked = &p;
  }
  ASSERT_TRUE(main && forked && execd);
  EXPECT_EQ(forked->meta.ppid, main->meta.pid);
  EXPECT_EQ(execd->meta.ppid, main->meta.pid);
  // What the program wrote, counted exactly.
  EXPECT_EQ(main->Count(kSliceBegin, "step"), 3u * iters);
  EXPECT_EQ(main->Count(kSliceBegin, "compute"), 3u * iters);
  EXPECT_EQ(main->Count(kSliceEnd), 3u * iters * 2 + 1);
  EXPECT_EQ(main->Count(kCounter, "progress"), 3u * iters);
  EXPECT_EQ(main->Count(kInstant, "worker done"), 3u);
  EXPECT_EQ(forked->Count(kSliceBegin, "step"), iters / 10u);
  EXPECT_EQ(execd->Count(kInstant, "hello from exec"), 1u);
  std::set<std::string> names;
  for (const auto& [tid, n] : main->thread_names) names.insert(n);
  EXPECT_TRUE(names.count("worker-0") && names.count("worker-1") && names.count("worker-2"));

  if (!test::HaveBabeltrace()) GTEST_SKIP() << "babeltrace2 not installed";
  auto bt = test::RunCmd({"babeltrace2", d / "t"}, {}, 120);
  ASSERT_EQ(bt.status, 0) << bt.err.substr(0, 2000);
  EXPECT_EQ(bt.err, "");
  EXPECT_EQ(test::CountLines(bt.out), v.total_events);
  // The summary `record` printed counts the same events.
  EXPECT_NE(r.err.find(std::to_string(v.total_events) + " events"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tt
