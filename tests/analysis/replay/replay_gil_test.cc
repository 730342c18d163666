// The GIL as the native Python sampler records it (python.gil: the holder read at each look,
// src/sources/python/native_sampler.cc) and as replay reads it (each op's GIL time,
// cpu_share.h): recorded on real programs. tests/programs/tf_gil_maps.py runs two tf.data maps
// whose py_functions (named decode and augment) spin in Python on tf.data's threads, holding
// the GIL; TensorFlow's own ops run on its pool threads without it.
// tests/programs/py_two_callers.py: one thread calling the same sleeping function from two
// callers in turn, each look seeing the same innermost frame.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "analysis/pass/code_index.h"
#include "analysis/replay/build.h"
#include "analysis/replay/simulate.h"
#include "format/reader.h"
#include "model/model.h"
#include "test_util.h"

namespace tt {
namespace {

namespace rp = analysis::replay;

TEST(ReplayGil, PyFunctionsHoldTheGilAndThePoolsOpsDoNot) {
  if (test::Python().empty() || !test::HaveModule("tensorflow")) GTEST_SKIP() << "no tensorflow";
  test::TempDir d;
  std::string dir = d / "t";
  auto r = test::RunCmd({TT_CLI, "record", "-o", dir, "--", test::Python(),
                         test::Program("tf_gil_maps.py"), "16", "4"},
                        {}, 240);
  ASSERT_EQ(r.status, 0) << r.err;
  model::TraceModel m = model::LoadModel(OpenTrace(dir));
  std::vector<Problem> problems;
  rp::Job job = rp::BuildJob({&m}, rp::BuildOptions{}, &problems);
  ASSERT_GE(job.steps.size(), 10u);
  std::map<std::string, std::vector<double>> share;  // GIL time over measured time, by label
  size_t pool_ops = 0;
  for (const rp::StepGraph& s : job.steps)
    for (const rp::Node& n : s.graph.nodes) {
      const std::string& label = s.graph.names->labels[n.label];
      const std::string& thread = s.graph.resources[n.resource].name;
      if (n.took > 0 && label.find(":EagerPyFunc") != std::string::npos)
        share[label.substr(0, label.find(':'))].push_back(n.gil / static_cast<double>(n.took));
      if (thread.find("tf_Compute") != std::string::npos && n.kind == rp::NodeKind::kOp) {
        ++pool_ops;
        EXPECT_LE(n.gil, 0) << label << " on " << thread << ": its thread never held the GIL";
        EXPECT_DOUBLE_EQ(n.gil_demand, 0) << label;
      }
    }
  EXPECT_GT(pool_ops, 0u);
  // Two py_functions at a time take turns on the lock, each holding it about half its time
  // (4 ms of Python in about 8 ms): the looks, a sample each, give each stage's share.
  for (const char* stage : {"decode", "augment"}) {
    const std::vector<double>& v = share[stage];
    ASSERT_GE(v.size(), 20u) << stage;
    EXPECT_GE(std::count_if(v.begin(), v.end(), [](double x) { return x > 0.2; }) * 2,
              static_cast<std::ptrdiff_t>(v.size()))
        << stage << ": most of its ops held the GIL a good part of their time";
    EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return x <= 1.0 + 1e-9; })) << stage;
  }
  // Unchanged, every step replays as measured with the lock shared.
  for (size_t k = 0; k < job.steps.size(); ++k) {
    rp::Schedule s = rp::Simulate(job.steps[k].graph);
    for (size_t i = 0; i < s.predicted.size(); ++i)
      EXPECT_NEAR(static_cast<double>(s.predicted[i]),
                  static_cast<double>(job.steps[k].graph.ranks[i].measured),
                  1e-3 * static_cast<double>(job.steps[k].graph.ranks[i].measured))
          << "step " << k;
  }
}

// Each call's samples name its caller: the sampler's check of whether a thread's stack changed
// since the previous look saw only the innermost frame's address and instruction and its
// caller's address, all equal here, so every sample after the first call kept its caller.
TEST(ReplayGil, TwoCallersOfOneFunctionAreTold) {
  if (test::Python().empty()) GTEST_SKIP() << "no python3";
  test::TempDir d;
  std::string dir = d / "t";
  auto r = test::RunCmd(
      {TT_CLI, "record", "-o", dir, "--", test::Python(), test::Program("py_two_callers.py"), "10"},
      {}, 120);
  ASSERT_EQ(r.status, 0) << r.err;
  model::TraceModel m = model::LoadModel(OpenTrace(dir));
  std::vector<Problem> problems;
  analysis::CodeIndex code = analysis::LoadCodeIndex(m, &problems);
  std::map<std::string, int> by_caller;
  for (const analysis::ProcessCode& pc : code.processes)
    for (const auto& [tid, samples] : pc.samples)
      for (const analysis::CodeSample& s : samples)
        for (uint32_t f : pc.stacks[s.stack]) ++by_caller[pc.frames[f].function];
  // 10 calls of each, 20 ms each: a sample where the caller changed, at least one per call.
  EXPECT_GE(by_caller["first"], 8);
  EXPECT_GE(by_caller["second"], 8);
}

}  // namespace
}  // namespace tt
