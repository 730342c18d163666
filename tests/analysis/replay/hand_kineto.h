// A recorded process (TT_PROGRAM's one thread) given a PyTorch profile written by hand: the
// replay tests' way to put Kineto events of their choosing (autograd's sequence numbers, a
// kernel and its launch) into a real trace through the real importer.
#pragma once
#include <gtest/gtest.h>
#include <time.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/files.h"
#include "format/import/kineto/import.h"
#include "test_util.h"

namespace tt::test {

class HandKineto {
 public:
  std::string trace;  // dir/t
  int64_t pid = 0;

  // Records TT_PROGRAM into dir/t; `pid` is 0 (and a failure reported) where that failed.
  explicit HandKineto(const std::string& dir) : trace(dir + "/t"), dir_(dir) {
    auto r = RunCmd({TT_CLI, "record", "-o", trace, "--", TT_PROGRAM, "threads", "1", "10"});
    EXPECT_EQ(r.status, 0) << r.err;
    pid = r.status == 0 ? RecordedPid(trace) : 0;
    EXPECT_GT(pid, 0);
  }

  // A complete event ("X") of the recorded process's thread `tid`; ts and dur in us.
  void Event(int64_t tid, const std::string& cat, const std::string& name, double ts, double dur,
             nlohmann::json args = nlohmann::json::object()) {
    events_.push_back({{"ph", "X"},
                       {"cat", cat},
                       {"name", name},
                       {"pid", pid},
                       {"tid", tid},
                       {"ts", ts},
                       {"dur", dur},
                       {"args", args}});
  }

  // Imports the events into the trace as one Kineto file, its base time now; errors fail.
  void Import() {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    nlohmann::json doc = {
        {"baseTimeNanoseconds",
         static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec)},
        {"traceEvents", events_}};
    std::string file = dir_ + "/0-s0.pt.trace.json";
    WriteFileAtomic(file, doc.dump());
    auto imported = ImportKineto(trace, pid, {file}, std::nullopt, 1 << 24);
    EXPECT_TRUE(imported.errors.empty()) << imported.errors[0];
  }

 private:
  std::string dir_;
  nlohmann::json events_ = nlohmann::json::array();
};

}  // namespace tt::test
