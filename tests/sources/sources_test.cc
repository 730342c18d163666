// The sources' table (src/sources/registry.h): record's --sources help built from it, the names,
// and each source's arming of the environment, in the order record always armed them.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "sources/registry.h"
#include "test_util.h"

namespace tt {
namespace {

// The --sources lines of `record --help` (as written by hand before the table, plus net and
// nccl).
const char kOldSourcesHelp[] =
    R"(  --sources LIST           comma list of the sources to switch on (default: all but net):
                           cuda (CUPTI: CUDA API calls, kernels, copies; nothing happens
                           in a process that never loads CUDA), nvtx, itt (oneDNN...),
                           python (the TensorFlow/JAX profiler bootstrap), net (TCP
                           send/receive calls with bytes, peers and byte offsets; off
                           unless named), nccl (NCCL's profiler plugin: collectives,
                           point-to-point, proxy and network work; nothing happens in a
                           process that never loads NCCL); or none
)";

TEST(RecordSources, HelpIsBuiltFromTheTable) {
  EXPECT_EQ(sources::SourcesHelp(), kOldSourcesHelp);
  auto r = test::RunCmd({TT_CLI, "record", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find(kOldSourcesHelp), std::string::npos) << r.out;
}

TEST(RecordSources, NamesInHelpOrder) {
  EXPECT_EQ(sources::NameList(), "cuda, nvtx, itt, python, net, nccl");
  ASSERT_EQ(sources::All().size(), 6u);
  EXPECT_TRUE(sources::Find("net")->opt_in);
  EXPECT_FALSE(sources::Find("nccl")->opt_in);  // nothing happens unless NCCL loads it
  EXPECT_EQ(sources::Find("nccl")->arm, &sources::ArmNccl);
  EXPECT_FALSE(sources::Find("cuda")->opt_in);
  EXPECT_STREQ(sources::All()[2].name, "itt");
  ASSERT_NE(sources::Find("nvtx"), nullptr);
  EXPECT_EQ(sources::Find("nvtx")->arm, &sources::ArmNvtx);
  EXPECT_EQ(sources::Find("gpu"), nullptr);
  EXPECT_EQ(sources::Find(""), nullptr);
}

bool OnlyIttAndNvtx(const std::string& n) { return n == "itt" || n == "nvtx"; }
bool OnlyNet(const std::string& n) { return n == "net"; }
bool OnlyNccl(const std::string& n) { return n == "nccl"; }

TEST(RecordSources, NcclArmingNamesThePluginBesideTheRuntimeUnlessTheUserSetOne) {
  unsetenv("NCCL_PROFILER_PLUGIN");
  sources::ArmOptions o;
  o.runtime_lib = "/lib/libtensortrace.so";
  testing::internal::CaptureStderr();
  sources::ArmSources(OnlyNccl, o);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_STREQ(getenv("NCCL_PROFILER_PLUGIN"), "/lib/libtensortrace_nccl.so");
  setenv("NCCL_PROFILER_PLUGIN", "/u/libnccl-profiler.so", 1);
  testing::internal::CaptureStderr();
  sources::ArmSources(OnlyNccl, o);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "tensortrace: NCCL_PROFILER_PLUGIN is set (/u/libnccl-profiler.so), our NCCL source "
            "stays off\n");
  EXPECT_STREQ(getenv("NCCL_PROFILER_PLUGIN"), "/u/libnccl-profiler.so");
  o.quiet = true;
  testing::internal::CaptureStderr();
  sources::ArmSources(OnlyNccl, o);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  unsetenv("NCCL_PROFILER_PLUGIN");
}

TEST(RecordSources, NetArmingPreloadsItsLibraryRightBehindTheRuntime) {
  sources::ArmOptions o;
  o.runtime_lib = "/lib/libtensortrace.so";
  setenv("LD_PRELOAD", "/lib/libtensortrace.so:/u/user.so", 1);
  sources::ArmSources(OnlyNet, o);
  EXPECT_STREQ(getenv("LD_PRELOAD"),
               "/lib/libtensortrace.so:/lib/libtensortrace_net.so:/u/user.so");
  unsetenv("LD_PRELOAD");
}

TEST(RecordSources, ArmingSetsTheEnvironmentAndKeepsTheUsersSettings) {
  for (const char* v : {"INTEL_LIBITTNOTIFY64", "INTEL_ITTNOTIFY_GROUPS", "ONEDNN_ITT_TASK_LEVEL",
                        "NVTX_INJECTION64_PATH"})
    unsetenv(v);
  sources::ArmOptions o;
  o.runtime_lib = "/lib/libtensortrace.so";
  setenv("ONEDNN_ITT_TASK_LEVEL", "1", 1);  // the user's: kept
  testing::internal::CaptureStderr();
  sources::ArmSources(OnlyIttAndNvtx, o);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_STREQ(getenv("INTEL_LIBITTNOTIFY64"), "/lib/libtensortrace.so");
  EXPECT_STREQ(getenv("INTEL_ITTNOTIFY_GROUPS"), "all");
  EXPECT_STREQ(getenv("ONEDNN_ITT_TASK_LEVEL"), "1");
  EXPECT_STREQ(getenv("NVTX_INJECTION64_PATH"), "/lib/libtensortrace.so");

  // Set already: each stays, with one warning each, ITT's first (record's order).
  setenv("INTEL_LIBITTNOTIFY64", "/x", 1);
  setenv("NVTX_INJECTION64_PATH", "/y", 1);
  testing::internal::CaptureStderr();
  sources::ArmSources(OnlyIttAndNvtx, o);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "tensortrace: INTEL_LIBITTNOTIFY64 is set, our ITT collector stays off\n"
            "tensortrace: NVTX_INJECTION64_PATH is set, our NVTX collector stays off\n");
  EXPECT_STREQ(getenv("INTEL_LIBITTNOTIFY64"), "/x");
  EXPECT_STREQ(getenv("NVTX_INJECTION64_PATH"), "/y");
  o.quiet = true;
  testing::internal::CaptureStderr();
  sources::ArmSources(OnlyIttAndNvtx, o);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  for (const char* v : {"INTEL_LIBITTNOTIFY64", "INTEL_ITTNOTIFY_GROUPS", "ONEDNN_ITT_TASK_LEVEL",
                        "NVTX_INJECTION64_PATH"})
    unsetenv(v);
}

TEST(RecordSources, PythonArmingHandsTheOptionsToTheBootstrap) {
  setenv("TENSORTRACE_PYTHON", TT_SOURCE_DIR, 1);  // the source tree's python/
  setenv("PYTHONPATH", "/user/path", 1);
  sources::ArmOptions o;
  o.python.host_level = 3;
  o.python.python_tracer = true;
  o.python.steps = "2:";
  sources::ArmPython(o);
  EXPECT_EQ(std::string(getenv("PYTHONPATH")),
            std::string(TT_SOURCE_DIR) + "/python/tensortrace/boot:/user/path");
  EXPECT_STREQ(getenv("TENSORTRACE_TF_HOST_LEVEL"), "3");
  EXPECT_STREQ(getenv("TENSORTRACE_PYTHON_TRACER"), "1");
  EXPECT_STREQ(getenv("TENSORTRACE_STEPS"), "2:");
  EXPECT_EQ(getenv("TENSORTRACE_WINDOW_S"), nullptr);
  for (const char* v : {"TENSORTRACE_PYTHON", "PYTHONPATH", "TENSORTRACE_TF_HOST_LEVEL",
                        "TENSORTRACE_PYTHON_TRACER", "TENSORTRACE_STEPS"})
    unsetenv(v);
}

}  // namespace
}  // namespace tt
