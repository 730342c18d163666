// Replay's CPU demand of work on threads that Python never ran on (gloo's, oneDNN's, OpenMP's,
// TensorFlow's pools): the native Python sampler reads every thread's CPU clock
// (src/sources/python/native_sampler.cc, python.cpu), so a node on such a thread asks for the
// share of a core it used (cpu_share.h). Records tests/programs/cpu_threads.py, whose two native
// threads spin and sleep in ranges of their own, and a TensorFlow loop whose ops run on its
// inter-op pool thread, and builds replay's graphs from them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "analysis/replay/build.h"
#include "format/reader.h"
#include "model/model.h"
#include "test_util.h"

namespace tt {
namespace {

namespace rp = analysis::replay;

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? -1 : v[v.size() / 2];
}

// Each work node's demand and recorded CPU time over its measured time (-1/took: none), by
// label, over the job's steps; and how many steps share their host's cores.
struct Demands {
  std::map<std::string, std::vector<double>> demand, cpu_share;
  size_t steps = 0, shared = 0;
  Demands(const std::string& dir, const rp::BuildOptions& o) {
    model::TraceModel m = model::LoadModel(OpenTrace(dir));
    std::vector<Problem> problems;
    rp::Job job = rp::BuildJob({&m}, o, &problems);
    steps = job.steps.size();
    for (const rp::StepGraph& s : job.steps) {
      shared += !s.graph.hosts.empty();
      for (const rp::Node& n : s.graph.nodes) {
        const std::string& label = s.graph.names->labels[n.label];
        demand[label].push_back(n.demand);
        cpu_share[label].push_back(n.took ? n.cpu / static_cast<double>(n.took) : -1);
      }
    }
  }
};

TEST(ReplayCpuThreads, ANativeThreadThatSleepsAsksForNoCoreAndOneThatSpinsForOne) {
  if (test::Python().empty()) GTEST_SKIP() << "no python3";
  test::TempDir d;
  std::string dir = d / "t";
  auto r = test::RunCmd({TT_CLI, "record", "-o", dir, "--", test::Python(),
                         test::Program("cpu_threads.py"), TT_CPU_THREADS_LIB, "12", "30"},
                        {}, 120);
  ASSERT_EQ(r.status, 0) << r.err;
  rp::BuildOptions o;
  o.step_names = {"train_step"};
  Demands dm(dir, o);
  auto& demand = dm.demand;
  auto& cpu_share = dm.cpu_share;
  ASSERT_EQ(dm.shared, dm.steps) << "a CPU-only job's steps share their host's cores";
  ASSERT_GE(demand["spin_work"].size(), 8u);
  ASSERT_EQ(demand["sleep_work"].size(), demand["spin_work"].size());
  // The sleeper's CPU time was read (before, a thread without Python had none: a full core).
  // (but in the last step, which may end after the thread's last read: the sampler's last look
  // comes after the threads have ended, and an ended thread has no clock).
  for (auto* kind : {&cpu_share["sleep_work"], &cpu_share["spin_work"]}) {
    for (size_t i = 0; i + 1 < kind->size(); ++i) EXPECT_GE((*kind)[i], 0) << "no CPU time read";
    if ((*kind).back() < 0) kind->pop_back();
  }
  EXPECT_LT(MedianOf(cpu_share["sleep_work"]), 0.05);
  EXPECT_LT(MedianOf(demand["sleep_work"]), 0.05);
  // The spinner asked for the core it used while it ran: all of it on a quiet machine, less
  // where other programs took it (the trace does not see them: its demand is what it got; on
  // the development machine, 2 cores shared by other builds, 0.4 to 1). Alone on its host in
  // the trace (the sleeper asks for none), it could have had a core all along.
  EXPECT_GT(MedianOf(cpu_share["spin_work"]), 0.25);
  for (size_t i = 0; i < cpu_share["spin_work"].size(); ++i)
    EXPECT_NEAR(demand["spin_work"][i], std::min(1.0, cpu_share["spin_work"][i]), 0.02);
}

// TensorFlow's ops run on its inter-op pool's threads, whose XSpace lines are named by a hash of
// the thread's handle: the sampler notes each thread's (tt_py_thread), so the import places the
// lines on their threads and the ops get the CPU time read of them. tf_sleep_op_loop.py
// (one inter-op thread): even steps run a py_function that sleeps 30 ms before the products.
TEST(ReplayCpuThreads, TensorFlowsPoolThreadsOpsAskForTheCpuTheyUsed) {
  REQUIRE_MODULE("tensorflow");
  test::TempDir d;
  std::string dir = d / "t";
  auto r = test::RunCmd({TT_CLI, "record", "-o", dir, "--", test::Python(),
                         test::Program("tf_sleep_op_loop.py"), "4", "30", "alternate"},
                        {}, 240);
  ASSERT_EQ(r.status, 0) << r.err;
  rp::BuildOptions o;
  o.skip_warmup = 2;
  Demands dm(dir, o);
  ASSERT_EQ(dm.shared, dm.steps) << "a CPU-only job's steps share their host's cores";
  std::vector<double>& sleep = dm.cpu_share["EagerPyFunc:EagerPyFunc"];
  ASSERT_GE(sleep.size(), 2u);
  for (double c : sleep) EXPECT_GE(c, 0) << "no CPU time read for the py_function's thread";
  EXPECT_LT(MedianOf(dm.demand["EagerPyFunc:EagerPyFunc"]), 0.2);
  // The products, on the same pool thread outside the py_function (no Python thread state
  // there): before, no CPU time was read of them (their lines were on no thread).
  size_t products = 0, read = 0;
  for (const auto& [label, shares] : dm.cpu_share) {
    if (label.find("MatMul") == std::string::npos) continue;
    for (double c : shares) products++, read += c >= 0;
  }
  ASSERT_GT(products, 0u);
  EXPECT_GE(read, products * 3 / 4) << read << " of " << products << " products have CPU time";
}

}  // namespace
}  // namespace tt
