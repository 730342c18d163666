// The CUDA (CUPTI) source without a GPU: hand-built activity records through the conversion
// into a real trace (tests/programs/cupti_records.cc), read back by stats, export and info;
// InitializeInjection in a process without CUDA; and record's --sources.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "core/files.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;

const char kVectorAdd[] = "vector_add(float*, float*, float*, int)";

class Cupti : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    auto r = RunCmd({TT_CUPTI_RECORDS}, {{"TENSORTRACE_DIR", dir_->path()}});
    ASSERT_EQ(r.status, 0) << r.err;
    out_ = new std::string(r.out);
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete out_;
  }
  static json Json(std::vector<std::string> args) {
    auto r = RunCmd(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(r.out);
  }
  static json Chrome() {
    TempDir out;
    auto r = RunCmd({TT_CLI, "export", dir_->path(), "--format", "chrome", "-o", out / "t.json"});
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(ReadFile(out / "t.json"));
  }
  static json Event(const json& chrome, const std::string& name) {
    for (const auto& e : chrome["traceEvents"])
      if (e["ph"] == "X" && e["name"] == name) return e;
    ADD_FAILURE() << "no event " << name;
    return json::object();
  }
  static TempDir* dir_;
  static std::string* out_;
};
TempDir* Cupti::dir_ = nullptr;
std::string* Cupti::out_ = nullptr;

TEST_F(Cupti, EveryKnownKindIsConvertedAndOthersSkipped) {
  // 5 API, 1 external correlation, 2 kernels, copy, memset, sync, 2 memory, overhead.
  EXPECT_EQ(*out_, "converted 14 skipped 1\n");
}

TEST_F(Cupti, KernelsCarryDemangledNamesAndLaunchArgs) {
  json j = Chrome();
  json k = Event(j, kVectorAdd);
  EXPECT_EQ(k["cat"], "gpu_kernel");
  EXPECT_DOUBLE_EQ(k["dur"].get<double>(), 20.0);
  EXPECT_EQ(k["args"]["grid"], "128x1x1");
  EXPECT_EQ(k["args"]["block"], "256x2x1");
  EXPECT_EQ(k["args"]["registers"], 32);
  EXPECT_EQ(k["args"]["static_shared"], 1024);
  EXPECT_EQ(k["args"]["dynamic_shared"], 512);
  EXPECT_EQ(k["args"]["correlation_id"], 1);
  EXPECT_EQ(k["args"]["external_id"], 77);
  json g = Event(j, "relu_kernel");
  EXPECT_EQ(g["args"]["graph_id"], 5);
  EXPECT_EQ(g["args"]["graph_node_id"], 9);
  EXPECT_FALSE(g["args"].contains("external_id"));
  json m = Event(j, "memcpy");
  EXPECT_EQ(m["cat"], "memcpy");
  EXPECT_EQ(m["args"]["kind"], "HtoD");
  EXPECT_EQ(m["args"]["src_kind"], "pinned");
  EXPECT_EQ(m["args"]["dst_kind"], "device");
  EXPECT_EQ(m["args"]["bytes"], 4096);
  json s = Event(j, "memset");
  EXPECT_EQ(s["args"]["bytes"], 256);
  EXPECT_EQ(Event(j, "cudaDeviceSynchronize")["cat"], "sync");
  EXPECT_EQ(Event(j, "CUPTI overhead: buffer flush")["cat"], "user");
}

TEST_F(Cupti, DeviceWorkIsOnOneTrackPerStreamAndApiCallsOnTheCallingThread) {
  json j = Chrome();
  auto tid = [&](const char* n) { return Event(j, n)["tid"]; };
  EXPECT_EQ(tid(kVectorAdd), tid("memcpy"));     // stream 7
  EXPECT_EQ(tid("relu_kernel"), tid("memset"));  // stream 13
  EXPECT_NE(tid(kVectorAdd), tid("relu_kernel"));
  EXPECT_NE(tid("cudaDeviceSynchronize"), tid(kVectorAdd));  // no stream: its own track
  // The API calls are on the thread that made them, inside the ops.
  json op = Event(j, "model/dense/MatMul:MatMul");
  json launch = Event(j, "cudaLaunchKernel");
  EXPECT_EQ(launch["tid"], op["tid"]);
  EXPECT_EQ(launch["cat"], "runtime_api");
  EXPECT_EQ(launch["args"]["api"], "runtime");
  EXPECT_GE(launch["ts"].get<double>(), op["ts"].get<double>());
  EXPECT_DOUBLE_EQ(launch["dur"].get<double>(), 10.0);
  json unnamed = Event(j, "driver_api_216");
  EXPECT_EQ(unnamed["args"]["return_code"], 1);
  EXPECT_EQ(unnamed["args"]["api"], "driver");
  EXPECT_EQ(unnamed["tid"], op["tid"]);
}

TEST_F(Cupti, EachLaunchHasAFlowToWhatItLaunched) {
  json j = Chrome();
  std::map<std::string, int> n;
  for (const auto& e : j["traceEvents"]) n[e["ph"].get<std::string>()]++;
  // Five API calls, each with device work of the same correlation id (the sync included);
  // allocations and overhead that no call made start no flow.
  EXPECT_EQ(n["s"], 5);
  EXPECT_EQ(n["f"], 5);
  json k = Json({TT_CLI, "stats", dir_->path(), "--view", "kernel", "--json"});
  std::map<std::string, std::string> by;
  for (const auto& r : k["rows"]) by[r["name"]] = r.value("launched_by", "");
  EXPECT_EQ(by[kVectorAdd], "MatMul");
  EXPECT_EQ(by["relu_kernel"], "Conv2D");
}

TEST_F(Cupti, InfoCountsCuptiDrops) {
  json j = Json({TT_CLI, "info", dir_->path(), "--json"});
  ASSERT_EQ(j["processes"].size(), 1u);
  const json& p = j["processes"][0];
  uint64_t cupti = 0;
  for (const auto& [why, n] : p["drop_reasons"].items())
    if (why.find("CUPTI") != std::string::npos) cupti += n.get<uint64_t>();
  EXPECT_EQ(cupti, 5u) << p.dump();
  EXPECT_GE(p["dropped"].get<uint64_t>(), 5u);
}

TEST_F(Cupti, DeviceAllocationsAreInstantsOfTheDeviceQueue) {
  json j = Chrome();
  int allocs = 0, frees = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["name"] == "MemoryAllocation") {
      ++allocs;
      EXPECT_EQ(e["args"]["bytes"], 1 << 20);
      EXPECT_EQ(e["args"]["allocator"], "cuda");
    }
    if (e["name"] == "MemoryDeallocation") ++frees;
  }
  EXPECT_EQ(allocs, 1);
  EXPECT_EQ(frees, 1);
}

TEST(CuptiInjection, DoesNothingButSayOneLineWithoutCuda) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--quiet", "--", TT_CUPTI_ABSENT},
                  {{"CUDA_HOME", d / "no-cuda"}, {"TENSORTRACE_CUPTI_LIB", ""}});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "rc 1\n");
  size_t lines = 0;
  for (size_t at = 0;
       (at = r.err.find("tensortrace: CUDA activity not traced", at)) != std::string::npos; ++at)
    ++lines;
  EXPECT_EQ(lines, 1u) << r.err;
  // The trace is whole and says why.
  auto info = RunCmd({TT_CLI, "info", d / "t", "--json"});
  EXPECT_EQ(info.status, 0) << info.err;
  EXPECT_NE(info.out.find("off: "), std::string::npos) << info.out;
}

TEST(CuptiInjection, RecordNamesTheRuntimeInCudaInjectionUnlessSourcesLeaveCudaOut) {
  TempDir d;
  const char* show = "echo ${CUDA_INJECTION64_PATH:-unset} ${INTEL_LIBITTNOTIFY64:-unset}";
  auto on = RunCmd({TT_CLI, "record", "-o", d / "a", "--quiet", "--", "sh", "-c", show},
                   {{"CUDA_INJECTION64_PATH", ""}, {"INTEL_LIBITTNOTIFY64", ""}});
  ASSERT_EQ(on.status, 0) << on.err;
  size_t libs = 0;
  for (size_t at = 0; (at = on.out.find("libtensortrace.so", at)) != std::string::npos; ++at)
    ++libs;
  EXPECT_EQ(libs, 2u) << on.out;
  EXPECT_EQ(on.out.find("unset"), std::string::npos) << on.out;
  auto off = RunCmd(
      {TT_CLI, "record", "-o", d / "b", "--quiet", "--sources", "itt", "--", "sh", "-c", show},
      {{"CUDA_INJECTION64_PATH", ""}, {"INTEL_LIBITTNOTIFY64", ""}});
  ASSERT_EQ(off.status, 0) << off.err;
  EXPECT_EQ(off.out.rfind("unset ", 0), 0u) << off.out;
  EXPECT_NE(off.out.find("libtensortrace.so"), std::string::npos) << off.out;
  auto bad = RunCmd({TT_CLI, "record", "-o", d / "c", "--sources", "cuda,gpu", "--", "true"});
  EXPECT_NE(bad.status, 0);
  EXPECT_EQ(test::CountLines(bad.err), 1u) << bad.err;
  EXPECT_NE(bad.err.find("unknown source 'gpu'"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace tt

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;

// The injection's plumbing against a stand-in libcupti (tests/programs/fake_cupti.cc).
TEST(CuptiPlumbing, CallbacksBuffersOffsetsAndDropsThroughAStandInLibcupti) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--quiet", "--", TT_CUPTI_FAKE_JOB},
                  {{"TENSORTRACE_CUPTI_LIB", TT_FAKE_CUPTI}});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "rc 1\n");
  EXPECT_EQ(r.err.find("not traced"), std::string::npos) << r.err;
  auto e = RunCmd({TT_CLI, "export", d / "t", "--format", "chrome", "-o", d / "t.json"});
  ASSERT_EQ(e.status, 0) << e.err;
  json j = json::parse(ReadFile(d / "t.json"));
  std::vector<json> launches, kernels;
  json step;
  int s = 0, f = 0;
  for (const auto& ev : j["traceEvents"]) {
    if (ev["ph"] == "s") ++s;
    if (ev["ph"] == "f") ++f;
    if (ev["ph"] != "X") continue;
    if (ev["name"] == "cudaLaunchKernel") launches.push_back(ev);
    if (ev["name"] == "fake_kernel") kernels.push_back(ev);
    if (ev["name"] == "train_step") step = ev;
  }
  ASSERT_EQ(launches.size(), 2u);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(s, 2);
  EXPECT_EQ(f, 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(launches[i]["args"]["correlation_id"], 42 + i);
    EXPECT_EQ(kernels[i]["args"]["correlation_id"], 42 + i);
    EXPECT_EQ(launches[i]["tid"], step["tid"]);  // on the calling thread, inside its range
    EXPECT_GE(launches[i]["ts"].get<double>(), step["ts"].get<double>());
    // The stand-in's clock runs 5 s behind: the measured offset puts each kernel right after
    // its launch began (within a second, for a loaded machine), not 5 s before it.
    double gap_us = kernels[i]["ts"].get<double>() - launches[i]["ts"].get<double>();
    EXPECT_GT(gap_us, 0.0);
    EXPECT_LT(gap_us, 1e6);
  }
  EXPECT_EQ(kernels[0]["tid"], kernels[1]["tid"]);
  auto info = RunCmd({TT_CLI, "info", d / "t", "--json"});
  ASSERT_EQ(info.status, 0) << info.err;
  json p = json::parse(info.out)["processes"][0];
  uint64_t cupti = 0;
  for (const auto& [why, n] : p["drop_reasons"].items())
    if (why.find("CUPTI") != std::string::npos) cupti += n.get<uint64_t>();
  EXPECT_EQ(cupti, 3u) << p.dump();
  EXPECT_NE(info.out.find("timestamps by offset"), std::string::npos) << info.out;
}

TEST(CuptiPlumbing, CuptiHeldByAnotherToolIsOneLineAndTheJobRuns) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--quiet", "--", TT_CUPTI_FAKE_JOB},
                  {{"TENSORTRACE_CUPTI_LIB", TT_FAKE_CUPTI}, {"FAKE_CUPTI_BUSY", "1"}});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "rc 1\n");
  EXPECT_NE(r.err.find("tensortrace: CUDA activity not traced in process"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("held by another tool"), std::string::npos) << r.err;
  auto info = RunCmd({TT_CLI, "info", d / "t"});
  EXPECT_EQ(info.status, 0) << info.err;
}

}  // namespace
}  // namespace tt
