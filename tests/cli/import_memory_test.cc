// Issue 40, item 1: record never dies of an import. Its default memory budget sees the hard
// limits it runs under, not only the machine's free memory: RLIMIT_AS (whose address space grows
// faster than the resident size: the import's output is mapped) and a memory cgroup, v1 as well
// as v2, its own or one above it. Past them the import stops with one line, and the program's
// exit status and tensortrace.json are kept.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/files.h"
#include "format/import/memory_budget.h"
#include "test_util.h"

namespace tt {
namespace {

using test::RunCmd;
using test::TempDir;
namespace fs = std::filesystem;

void Put(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

// A cgroup tree of files as the kernel shows it: the nearest limit, less the usage that is not
// file cache, is the room; "max" and v1's huge "no limit" are none.
TEST(ImportMemory, CgroupRoomIsTheNearestLimitLessUsageBeyondTheFileCache) {
  TempDir d;
  std::string v1 = d / "memory/job/step";
  Put(d / "memory/job/memory.limit_in_bytes", std::to_string(512 << 20));
  Put(d / "memory/job/memory.usage_in_bytes", std::to_string(300 << 20));
  Put(d / "memory/job/memory.stat", "cache 1\ntotal_inactive_file " + std::to_string(100 << 20) +
                                        "\ntotal_active_file " + std::to_string(50 << 20) + "\n");
  Put(v1 + "/memory.limit_in_bytes", "9223372036854771712");
  Put(v1 + "/memory.usage_in_bytes", std::to_string(300 << 20));
  std::string proc = "4:memory:/job/step\n0::/\n";
  // 512 MiB less (300 - 150) MiB used: 362 MiB, from the parent's limit.
  EXPECT_EQ(CgroupMemoryRoom(proc, d.path()), uint64_t{362} << 20);
  EXPECT_EQ(CgroupMemoryRoom("5:cpu,memory:/job/step\n", d.path()), uint64_t{362} << 20);
  EXPECT_EQ(CgroupMemoryRoom("4:cpu:/job/step\n", d.path()), UINT64_MAX);  // no memory line

  Put(d / "svc/memory.max", std::to_string(1 << 30));
  Put(d / "svc/memory.current", std::to_string(900 << 20));
  Put(d / "svc/memory.stat", "anon 1\ninactive_file " + std::to_string(400 << 20) + "\n");
  Put(d / "svc/run/memory.max", "max\n");
  EXPECT_EQ(CgroupMemoryRoom("0::/svc/run\n", d.path()), uint64_t{524} << 20);
  Put(d / "svc/memory.current", std::to_string(2 << 30));  // over its limit: no room at all
  Put(d / "svc/memory.stat", "");
  EXPECT_EQ(CgroupMemoryRoom("0::/svc/run\n", d.path()), 0u);
}

// record of a program that leaves a PyTorch profile of `events` events (kineto_big.py, exit 3),
// its command line prefixed by `wrap` (a cgroup's entry), under RLIMIT_AS `as` (0: none).
test::RunResult RecordBig(const std::string& trace, int events, std::vector<std::string> wrap,
                          rlim_t as) {
  std::vector<std::string> argv = wrap;
  for (std::string a :
       {std::string(TT_CLI), std::string("record"), std::string("-o"), trace, std::string("--"),
        std::string("python3"), std::string(TT_SOURCE_DIR) + "/tests/programs/kineto_big.py",
        std::to_string(events)})
    argv.push_back(a);
  rlimit old{};
  getrlimit(RLIMIT_AS, &old);
  if (as) {
    rlimit cap = old;
    cap.rlim_cur = std::min<rlim_t>(old.rlim_max, as);
    EXPECT_EQ(setrlimit(RLIMIT_AS, &cap), 0);
  }
  auto r = RunCmd(argv, {}, 110);
  if (as) setrlimit(RLIMIT_AS, &old);
  return r;
}

// What a stopped import must leave: the program's status, the session file, the one line.
void ExpectStoppedNotKilled(const test::RunResult& r, const std::string& trace) {
  EXPECT_EQ(r.status, 3) << r.err;  // kineto_big.py's, not 137 (killed) or a crash
  EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("import stopped after"), std::string::npos) << r.err;
  ASSERT_TRUE(PathExists(trace + "/tensortrace.json")) << r.err;
  auto session = nlohmann::json::parse(ReadFile(trace + "/tensortrace.json"));
  EXPECT_EQ(session["exit_code"], 3);
}

bool PythonHere() { return RunCmd({"python3", "-c", "pass"}, {}, 30).status == 0; }

// 800,000 events (140 MB of JSON) under 384 MiB of address space: the budget that saw only the
// machine's memory let the import run into std::bad_alloc and import nothing.
TEST(ImportMemory, RecordUnderAnAddressSpaceLimitStopsTheImportNotItself) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers reserve terabytes of address space";
#endif
  if (!PythonHere()) GTEST_SKIP() << "no python3";
  TempDir d;
  auto r = RecordBig(d / "t", 800000, {}, rlim_t{384} << 20);
  ExpectStoppedNotKilled(r, d / "t");
}

// A memory cgroup of its own (v1 or v2, where this process may make one under its own): 128 MiB
// for the same profile. The budget that read only cgroup v2 files missed a v1 limit, and the
// kernel killed record (137): no tensortrace.json, the program's status lost.
TEST(ImportMemory, RecordInASmallMemoryCgroupStopsTheImportNotItself) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers' shadow memory counts against the cgroup";
#endif
  if (!PythonHere()) GTEST_SKIP() << "no python3";
  std::ifstream in("/proc/self/cgroup");
  std::string line, v1, v2;
  while (std::getline(in, line)) {
    size_t a = line.find(':'), b = line.find(':', a + 1);
    std::string controllers = "," + line.substr(a + 1, b - a - 1) + ",";
    if (controllers.find(",memory,") != std::string::npos)
      v1 = "/sys/fs/cgroup/memory" + line.substr(b + 1);
    if (line.starts_with("0::")) v2 = "/sys/fs/cgroup" + line.substr(b + 1);
  }
  std::string base = !v1.empty() ? v1 : v2;
  std::string limit_file = !v1.empty() ? "memory.limit_in_bytes" : "memory.max";
  std::string cg = base + "/tt_import_memory_" + std::to_string(getpid());
  if (base.empty() || mkdir(cg.c_str(), 0700) != 0) GTEST_SKIP() << "cannot make a cgroup here";
  std::ofstream(cg + "/" + limit_file) << (128 << 20);
  TempDir d;
  auto r = RecordBig(d / "t", 800000,
                     {"sh", "-c", "echo $$ > \"$0/cgroup.procs\" && exec \"$@\"", cg}, 0);
  rmdir(cg.c_str());
  if (r.status == 2 && r.err.find("cgroup.procs") != std::string::npos)
    GTEST_SKIP() << "cannot enter the cgroup: " << r.err;
  ExpectStoppedNotKilled(r, d / "t");
}

}  // namespace
}  // namespace tt
