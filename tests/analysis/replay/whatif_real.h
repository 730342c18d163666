// What the what-if tests against real runs share (whatif_line_test.cc, whatif_nested_test.cc):
// recording a program of tests/programs/ with an environment, replaying it, and the median step
// of the real change's runs.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_util.h"

namespace tt::whatif_test {

// Records tests/programs/<program> ARGS with `env` into `dir`; the run's output (the program's
// lines and record's).
inline test::RunResult Record(const std::string& dir, const std::string& program,
                              const std::vector<std::string>& args,
                              const std::map<std::string, std::string>& env) {
  std::vector<std::string> cmd = {TT_CLI,
                                  "record",
                                  "-o",
                                  dir,
                                  "--",
                                  test::Python(),
                                  std::string(TT_SOURCE_DIR) + "/tests/programs/" + program};
  cmd.insert(cmd.end(), args.begin(), args.end());
  auto r = test::RunCmd(cmd, env, 280);
  EXPECT_EQ(r.status, 0) << r.err;
  return r;
}

// `replay DIR --json EXTRA...`: its JSON, or null with a test failure.
inline nlohmann::json Replay(const std::string& dir, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {TT_CLI, "replay", dir, "--json"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto r = test::RunCmd(argv, {}, 120);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The median step of one recording (`real` + i in d) of the program with the change made for
// real, as replay measures it; 0 where replay gave nothing.
inline double RealRunNs(const test::TempDir& d, int i, const std::string& program,
                        const std::vector<std::string>& args,
                        const std::map<std::string, std::string>& env) {
  std::string dir = d / ("real" + std::to_string(i));
  Record(dir, program, args, env);
  nlohmann::json j = Replay(dir, {});
  return j.is_null() ? 0 : j["measured_median_ns"].get<double>();
}

// The median over `runs` recordings of the program with the change made for real (each run's
// median step, as replay measures it; a burst of load from the rest of the machine lengthens a
// few steps, and now and then a whole run).
inline double RealMedianNs(const test::TempDir& d, const std::string& program,
                           const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& env, int runs = 3) {
  std::vector<double> medians;
  for (int i = 0; i < runs; ++i) {
    medians.push_back(RealRunNs(d, i, program, args, env));
    if (medians.back() == 0) return 0;
  }
  return Median(medians);
}

}  // namespace tt::whatif_test
