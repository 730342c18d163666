// Processes told apart by rank where several recordings meet (model/job/process_names.h):
// recordings made in pid namespaces of their own run the same pids, which the exports keep
// apart and name by rank (issue 39: 4 ranks on one Chrome track).
#include "model/job/process_names.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "core/files.h"
#include "test_util.h"

namespace tt {
namespace {

using test::RunCmd;
using test::TempDir;

model::Process Proc(const std::string& recording, int64_t pid, int64_t rank) {
  model::Process p;
  p.recording = recording;
  p.meta.pid = pid;
  p.meta.rank = rank;
  p.meta.cmdline = "python train.py";
  p.meta.hostname = "h";
  return p;
}

TEST(ProcessNames, APidTwoRecordingsShareIsMadeDistinct) {
  model::TraceModel m;
  m.processes = {Proc("a", 3, 0), Proc("a", 7, -1), Proc("b", 3, 1), Proc("b", 9, -1)};
  std::vector<int64_t> pids = model::ExportPids(m);
  EXPECT_EQ(pids, (std::vector<int64_t>{(1 << 22) + 3, 7, (2 << 22) + 3, 9}));
  EXPECT_EQ(model::ProcessLabel(m.processes[2]), "rank 1: python train.py (h)");
  EXPECT_EQ(model::ProcessLabel(m.processes[1]), "python train.py (h)");
}

// Two ranks recorded each in a pid namespace of its own: both programs are pid 2.
TEST(ProcessNames, PidNamespacesKeptApartInTheChromeExport) {
  TempDir d;
  if (RunCmd({"unshare", "-p", "-f", "true"}).status != 0)
    GTEST_SKIP() << "cannot make a pid namespace (unshare -p)";
  for (const char* rank : {"0", "1"}) {
    auto r = RunCmd({"unshare", "-p", "-f", TT_CLI, "record", "--quiet", "-o",
                     d / (std::string("r") + rank), "--", TT_PROGRAM, "leaf", "50"},
                    {{"RANK", rank}, {"WORLD_SIZE", "2"}});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  auto r = RunCmd({TT_CLI, "export", d / "r0", d / "r1", "--format", "chrome", "-o", d / "c.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(ReadFile(d / "c.json"));
  const auto& events = j.is_object() ? j["traceEvents"] : j;
  std::set<int64_t> pids;
  std::set<std::string> names;
  for (const auto& e : events) {
    pids.insert(e["pid"].get<int64_t>());
    if (e["name"] == "process_name") names.insert(e["args"]["name"].get<std::string>());
  }
  EXPECT_EQ(pids.size(), 2u);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names.begin()->rfind("rank 0: ", 0), 0u) << *names.begin();
  EXPECT_EQ(names.rbegin()->rfind("rank 1: ", 0), 0u) << *names.rbegin();
}

}  // namespace
}  // namespace tt
