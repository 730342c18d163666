// Running a command whose standard output is JSON, for tests.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_util.h"

namespace tt::test {

// argv's output parsed, or an empty object (and a test failure) when it exits non-zero.
inline nlohmann::json RunJson(const std::vector<std::string>& argv, int timeout_s = 240) {
  auto r = RunCmd(argv, {}, timeout_s);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

}  // namespace tt::test
