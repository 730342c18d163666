// `tensortrace export --format xspace` on a trace with known content: the .pb parsed with the
// protobuf classes, then opened by TensorBoard's profile plugin's own converters (xprof). The
// exporter encodes the protobuf by hand and sorts its events on disk: the file must be the bytes
// libprotobuf's deterministic serialization gives, whatever the sort's memory budget.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "core/error.h"
#include "core/files.h"
#include "export/spill.h"
#include "export/xspace.h"
#include "format/proto/xplane.pb.h"
#include "model/model.h"
#include "test_util.h"

namespace tt {
namespace {

namespace tp = tensorflow::profiler;
using nlohmann::json;
using test::RunCmd;
using test::TempDir;

constexpr int kSteps = 5;

class XSpaceExport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    auto r = RunCmd({TT_SYNTHETIC, std::to_string(kSteps), "100", "1"},
                    {{"TENSORTRACE_DIR", dir_->path()}});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static void TearDownTestSuite() { delete dir_; }
  static test::RunResult Export_(std::vector<std::string> args) {
    std::vector<std::string> a{TT_CLI, "export", dir_->path(), "--format", "xspace"};
    a.insert(a.end(), args.begin(), args.end());
    return RunCmd(a);
  }
  // The one run directory under LOGDIR/plugins/profile.
  static std::string RunDir(const std::string& logdir) {
    auto runs = ListDirectory(logdir + "/plugins/profile");
    EXPECT_EQ(runs.size(), 1u);
    return runs.empty() ? "" : logdir + "/plugins/profile/" + runs[0];
  }
  static tp::XSpace Load(const std::string& logdir) {
    std::string run = RunDir(logdir);
    auto files = ListDirectory(run);
    EXPECT_EQ(files.size(), 1u);
    tp::XSpace s;
    EXPECT_TRUE(!files.empty() && s.ParseFromString(ReadFile(run + "/" + files[0])));
    return s;
  }
  static TempDir* dir_;
};
TempDir* XSpaceExport::dir_ = nullptr;

// The only .xplane.pb under LOGDIR, as bytes.
std::string OnlyFile(const std::string& logdir) {
  std::vector<std::string> found;
  for (const auto& run : ListDirectory(logdir + "/plugins/profile"))
    for (const auto& f : ListDirectory(logdir + "/plugins/profile/" + run))
      found.push_back(logdir + "/plugins/profile/" + run + "/" + f);
  EXPECT_EQ(found.size(), 1u);
  return found.empty() ? "" : ReadFile(found[0]);
}

// What libprotobuf writes for `s` with deterministic serialization (fields in number order,
// map entries by key).
std::string Deterministic(const tp::XSpace& s) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream os(&out);
    google::protobuf::io::CodedOutputStream cos(&os);
    cos.SetSerializationDeterministic(true);
    s.SerializeToCodedStream(&cos);
  }
  return out;
}

const tp::XPlane* Plane(const tp::XSpace& s, const std::string& name) {
  for (const auto& p : s.planes())
    if (p.name() == name) return &p;
  return nullptr;
}

struct Ev {
  std::string name, display;
  int64_t start_ns;  // Unix
  int64_t dur_ps;
  std::map<std::string, std::string> stats;  // values as text
};

// The Unix time lines count from: the "Task Environment" plane's profile_start_time.
int64_t ProfileStart(const tp::XSpace& s) {
  const tp::XPlane* env = Plane(s, "Task Environment");
  EXPECT_TRUE(env);
  if (!env) return 0;
  for (const auto& st : env->stats())
    if (env->stat_metadata().at(st.metadata_id()).name() == "profile_start_time")
      return static_cast<int64_t>(st.uint64_value());
  ADD_FAILURE() << "no profile_start_time";
  return 0;
}

std::vector<Ev> Events(const tp::XPlane& p, int64_t base = 0) {
  std::vector<Ev> out;
  for (const auto& l : p.lines())
    for (const auto& e : l.events()) {
      const auto& md = p.event_metadata().at(e.metadata_id());
      Ev ev{md.name(),
            md.display_name(),
            base + l.timestamp_ns() + e.offset_ps() / 1000,
            e.duration_ps(),
            {}};
      EXPECT_EQ(e.offset_ps() % 1000, 0);
      for (const auto& st : e.stats()) {
        std::string v;
        switch (st.value_case()) {
          case tp::XStat::kInt64Value:
            v = std::to_string(st.int64_value());
            break;
          case tp::XStat::kUint64Value:
            v = std::to_string(st.uint64_value());
            break;
          case tp::XStat::kStrValue:
            v = st.str_value();
            break;
          case tp::XStat::kRefValue:  // text stored once, as a stat metadata's name
            v = p.stat_metadata().at(static_cast<int64_t>(st.ref_value())).name();
            break;
          default:
            v = "?";
        }
        ev.stats[p.stat_metadata().at(st.metadata_id()).name()] = v;
      }
      out.push_back(ev);
    }
  return out;
}

std::string HostName() {
  char h[256] = {};
  gethostname(h, sizeof h - 1);
  return h;
}

TEST_F(XSpaceExport, PlanesLinesEventsAndStats) {
  TempDir out;
  auto r = Export_({"-o", out / "logs"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string run = RunDir(out / "logs");
  EXPECT_EQ(ListDirectory(run), std::vector<std::string>{HostName() + ".xplane.pb"});
  tp::XSpace s = Load(out / "logs");
  ASSERT_EQ(s.hostnames_size(), 1);
  EXPECT_EQ(s.hostnames(0), HostName());
  const tp::XPlane* host = Plane(s, "/host:CPU");
  const tp::XPlane* gpu = Plane(s, "/device:GPU:0");
  ASSERT_TRUE(host && gpu);
  EXPECT_EQ(s.planes_size(), 3);  // and "Task Environment"
  int64_t base = ProfileStart(s);

  // One host line per thread (id = tid), one GPU line per stream.
  model::TraceModel m = model::LoadModel(dir_->path());
  ASSERT_EQ(m.processes.size(), 1u);
  ASSERT_EQ(host->lines_size(), 1);
  for (const auto& t : m.tracks)
    if (t.kind == layout::TrackKind::kThread) {
      EXPECT_EQ(host->lines(0).id(), static_cast<int64_t>(t.id));
      EXPECT_EQ(host->lines(0).name(), t.name);
    }
  ASSERT_EQ(gpu->lines_size(), 2);
  EXPECT_EQ(gpu->lines(0).name(), "Stream #7");
  EXPECT_EQ(gpu->lines(1).name(), "Stream #8");

  std::map<std::string, int> n;
  std::vector<int64_t> step_nums;
  for (const Ev& e : Events(*host)) {
    n[e.name]++;
    if (e.stats.count("step_num")) {
      step_nums.push_back(std::stoll(e.stats.at("step_num")));
      EXPECT_EQ(e.stats.at("_r"), "1");
    }
    if (e.name == "model/dense/MatMul:MatMul") {
      EXPECT_EQ(e.display, "MatMul");
    }
    if (e.name == "cudaLaunchKernel") {
      EXPECT_TRUE(e.stats.count("correlation_id"));
    }
    if (e.name == "MemoryAllocation") {
      EXPECT_EQ(e.stats.at("requested_bytes"), "1024");
      EXPECT_EQ(e.stats.at("allocator_name"), "tensortrace");
    }
  }
  EXPECT_EQ(step_nums, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(n["model/dense/MatMul:MatMul"], kSteps);
  EXPECT_EQ(n["model/dense/BiasAdd:BiasAdd"], kSteps);
  EXPECT_EQ(n["model/relu:Relu"], kSteps);
  EXPECT_EQ(n["cudaLaunchKernel"], 2 * kSteps);
  EXPECT_EQ(n["MemoryAllocation"], kSteps);
  EXPECT_EQ(n["MemoryDeallocation"], kSteps - 1);

  std::map<std::string, int> k;
  std::vector<Ev> sgemm, bias, copy;
  for (const Ev& e : Events(*gpu, base)) {
    k[e.name]++;
    if (e.name == "volta_sgemm_128x64_nn") sgemm.push_back(e);
    if (e.name == "bias_add_kernel") bias.push_back(e);
    if (e.name == "MemcpyHToD") copy.push_back(e);
  }
  EXPECT_EQ(k.size(), 3u);
  ASSERT_EQ(sgemm.size(), size_t{kSteps});
  ASSERT_EQ(bias.size(), size_t{kSteps});
  ASSERT_EQ(copy.size(), size_t{kSteps});
  EXPECT_EQ(sgemm[0].stats.at("kernel_details"),
            "regs:64 static_shared:1024 dynamic_shared:0 grid:128,1,1 block:256,1,1");
  EXPECT_EQ(sgemm[0].stats.at("tf_op"), "model/dense/MatMul:MatMul");
  EXPECT_EQ(bias[0].stats.at("tf_op"), "model/dense/BiasAdd:BiasAdd");  // by correlation id
  EXPECT_EQ(copy[0].display, "memcpy");                                 // the trace's name
  EXPECT_EQ(copy[0].stats.at("memcpy_details"), "kind:HtoD size:4096 dest:0");
  EXPECT_EQ(copy[0].stats.at("tf_op"), "model/relu:Relu");
  for (int i = 0; i < kSteps; ++i) {
    // The job places device work at fixed nanosecond offsets from each step's base.
    EXPECT_EQ(sgemm[i].dur_ps, 30000 * 1000);
    EXPECT_EQ(bias[i].start_ns - sgemm[i].start_ns, 40000);
    EXPECT_EQ(copy[i].start_ns - sgemm[i].start_ns, 60000);
  }

  // Unix time (profile start + line + event offset): the trace's own (monotonic) time plus its
  // realtime offset, to the nanosecond.
  TempDir csv_dir;
  ASSERT_EQ(
      RunCmd({TT_CLI, "export", dir_->path(), "--format", "csv", "-o", csv_dir / "t.csv"}).status,
      0);
  std::istringstream csv(ReadFile(csv_dir / "t.csv"));
  uint64_t first_sgemm = 0;
  for (std::string line; std::getline(csv, line);)
    if (line.find(",volta_sgemm_128x64_nn,") != std::string::npos) {
      std::vector<std::string> f;
      std::stringstream ls(line);
      for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
      first_sgemm = std::stoull(f[7]);
      break;
    }
  ASSERT_NE(first_sgemm, 0u);
  EXPECT_EQ(sgemm[0].start_ns,
            static_cast<int64_t>(first_sgemm) + m.processes[0].meta.clock_offset_ns);

  // The run is named after the trace's start, in local time, as TensorFlow names it.
  std::string name = run.substr(run.rfind('/') + 1);
  struct tm tm = {};
  ASSERT_NE(strptime(name.c_str(), "%Y_%m_%d_%H_%M_%S", &tm), nullptr) << name;
  tm.tm_isdst = -1;
  EXPECT_EQ(static_cast<uint64_t>(mktime(&tm)), m.processes[0].meta.start_realtime_ns / 1000000000)
      << name;
  EXPECT_NE(r.err.find(std::to_string(3 * kSteps) + " ops, " + std::to_string(kSteps) + " steps, " +
                       std::to_string(2 * kSteps) + " kernels"),
            std::string::npos)
      << r.err;
}

TEST_F(XSpaceExport, SelectionWorks) {
  TempDir out;
  ASSERT_EQ(Export_({"-o", out / "a", "--steps", "1:2"}).status, 0);
  tp::XSpace s = Load(out / "a");
  int steps = 0, kernels = 0;
  for (const Ev& e : Events(*Plane(s, "/host:CPU"))) steps += e.stats.count("step_num");
  for (const Ev& e : Events(*Plane(s, "/device:GPU:0"))) kernels += e.stats.count("kernel_details");
  EXPECT_EQ(steps, 2);
  EXPECT_EQ(kernels, 2 * 2);

  // --step-name makes an annotation a step, as in `stats`: here each Relu, beside each step.
  ASSERT_EQ(Export_({"-o", out / "c", "--step-name", "model/relu:Relu"}).status, 0);
  s = Load(out / "c");
  std::map<std::string, int> step_events;
  for (const Ev& e : Events(*Plane(s, "/host:CPU")))
    if (e.stats.count("step_num")) step_events[e.name]++;
  EXPECT_EQ(step_events,
            (std::map<std::string, int>{{"model/relu:Relu", kSteps}, {"step", kSteps}}));

  auto r = Export_({"-o", out / "b", "--max-events", "10"});
  ASSERT_EQ(r.status, 0) << r.err;
  s = Load(out / "b");
  size_t events = 0;
  for (const auto& p : s.planes())
    for (const auto& l : p.lines()) events += static_cast<size_t>(l.events_size());
  EXPECT_EQ(events, 10u);
  EXPECT_NE(r.err.find("--max-events left out"), std::string::npos) << r.err;
}

TEST_F(XSpaceExport, BadInputLeavesNothing) {
  TempDir out;
  auto one_line = [&](std::vector<std::string> args, const std::string& what) {
    auto r = RunCmd(args);
    EXPECT_NE(r.status, 0) << r.err;
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  };
  one_line({TT_CLI, "export", dir_->path(), "--format", "xplane", "-o", out / "x"},
           "unknown format 'xplane'");
  // A log directory under a regular file cannot be created.
  WriteFileAtomic(out / "file", "x");
  one_line({TT_CLI, "export", dir_->path(), "--format", "xspace", "-o", out / "file/logs"},
           "cannot create directory");
  one_line({TT_CLI, "export", dir_->path(), "--format", "xspace", "-o", out / "file"}, "is a file");
  one_line(
      {TT_CLI, "export", dir_->path(), "--format", "xspace", "-o", out / "e", "--steps", "100:200"},
      "no step matches");
  one_line({TT_CLI, "export", dir_->path(), "--format", "xspace", "-o", out / "g", "--gzip"},
           "--gzip: not for xspace");
  // A write that fails (the file size limit: as a full disk would) leaves nothing either.
  one_line({"bash", "-c", "trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\"", TT_CLI, "export",
            dir_->path(), "--format", "xspace", "-o", out / "full"},
           "cannot write");
  EXPECT_EQ(ListDirectory(out.path()), std::vector<std::string>{"file"});
  // A second export of the same trace meets its own run directory: refused, the first kept.
  ASSERT_EQ(Export_({"-o", out / "logs"}).status, 0);
  std::string run = RunDir(out / "logs");
  auto before = ListDirectory(run);
  one_line({TT_CLI, "export", dir_->path(), "--format", "xspace", "-o", out / "logs"},
           "exists and is not empty");
  EXPECT_EQ(ListDirectory(run), before);

  auto help = RunCmd({TT_CLI, "export", "--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("xspace"), std::string::npos);
}

// TensorBoard's profile plugin (pip xprof) reads the log directory with its own converters.
TEST_F(XSpaceExport, ProfilePluginOpensIt) {
  TempDir out;
  ASSERT_EQ(Export_({"-o", out / "logs"}).status, 0);
  tp::XSpace s = Load(out / "logs");  // before xprof adds its caches beside it
  auto r =
      RunCmd({"python3", std::string(TT_SOURCE_DIR) + "/tests/util/xspace_tools.py", out / "logs"},
             {}, 110);
  if (r.status == 3) GTEST_SKIP() << "xprof is not installed: " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["files"], 1);

  std::map<std::string, json> kernels;
  for (const auto& row : j["kernel_stats"]) kernels[row["kernel_name"]] = row;
  ASSERT_EQ(kernels.size(), 2u) << j["kernel_stats"].dump();
  EXPECT_EQ(kernels["volta_sgemm_128x64_nn"]["op_name"], "model/dense/MatMul");
  EXPECT_EQ(kernels["volta_sgemm_128x64_nn"]["occurrences"], kSteps);
  EXPECT_EQ(kernels["volta_sgemm_128x64_nn"]["registers_per_thread"], 64);
  EXPECT_EQ(kernels["volta_sgemm_128x64_nn"]["grid_dim"], "128,1,1");
  EXPECT_DOUBLE_EQ(kernels["volta_sgemm_128x64_nn"]["total_duration_us"].get<double>(),
                   30.0 * kSteps);
  EXPECT_EQ(kernels["bias_add_kernel"]["op_name"], "model/dense/BiasAdd");

  std::map<std::string, double> host_ops, device_ops;
  for (const auto& row : j["framework_op_stats"]) {
    auto& into = row["host_or_device"] == "Host" ? host_ops : device_ops;
    into[row["operation"]] = row["occurrences"].get<double>();
  }
  for (const char* op : {"model/dense/MatMul", "model/dense/BiasAdd", "model/relu"}) {
    EXPECT_EQ(host_ops[op], kSteps) << op << " " << j["framework_op_stats"].dump();
    EXPECT_EQ(device_ops[op], kSteps) << op;
  }
  // op_profile's tree: op type, then op/kernel, with the kernels' total time (ps).
  EXPECT_EQ(j["op_profile"]["MatMul"], json({kSteps, kSteps * 30000000ll})) << j["op_profile"];
  EXPECT_EQ(j["op_profile"]["model/dense/MatMul/volta_sgemm_128x64_nn"],
            json({kSteps, kSteps * 30000000ll}));
  EXPECT_EQ(j["op_profile"]["model/dense/BiasAdd/bias_add_kernel"],
            json({kSteps, kSteps * 10000000ll}));
  EXPECT_EQ(j["overview_steps"], json({"0", "1", "2", "3", "4"}));
  // Each step: two kernels (40 us) of device compute, the host-to-device copy (10 us) input.
  for (const auto& step : j["overview_breakdown_ms"]) {
    EXPECT_DOUBLE_EQ(step["deviceComputeTimeMs"].get<double>(), 0.04) << step;
    EXPECT_DOUBLE_EQ(step["infeedTimeMs"].get<double>(), 0.01) << step;
  }
  EXPECT_EQ(j["trace_viewer"]["volta_sgemm_128x64_nn"], kSteps);
  EXPECT_EQ(j["trace_viewer"]["cudaLaunchKernel"], 2 * kSteps);
  // The viewer's times (us from the profile's start) are those of the .pb, to the nanosecond.
  int64_t first = INT64_MAX;
  for (const Ev& e : Events(*Plane(s, "/device:GPU:0")))
    if (e.name == "volta_sgemm_128x64_nn") first = std::min(first, e.start_ns);
  EXPECT_NEAR(j["trace_viewer_first_us"]["volta_sgemm_128x64_nn"].get<double>(), first / 1e3, 5e-4);
  EXPECT_EQ(j["memory_allocators"], json({"tensortrace"}));
  // Each step allocates 1024 bytes and frees the previous step's: at most two are live.
  EXPECT_EQ(j["memory_peak_bytes"]["tensortrace"], 2048);
}

// The external sort under the exporter: every record back, in key order, ties in the order
// added, whatever the memory budget (1 byte: a run per record) and the runs merged at once.
TEST(XSpaceSpillSorter, SortsStablyAtAnyBudget) {
  TempDir tmp;
  std::mt19937_64 rng(7);
  struct Rec {
    exporter::SpillKey key;
    std::string payload;
  };
  std::vector<Rec> recs;
  for (int i = 0; i < 3000; ++i) {
    exporter::SpillKey k{rng() % 4, rng() % 50, rng() % 3};  // many ties
    recs.push_back({k, std::to_string(i) + std::string(rng() % 40, 'x')});
  }
  std::vector<Rec> want = recs;
  std::stable_sort(want.begin(), want.end(),
                   [](const Rec& a, const Rec& b) { return a.key < b.key; });
  for (auto [budget, fan_in] : std::vector<std::pair<size_t, size_t>>{
           {size_t{1} << 20, 64}, {1000, 2}, {1000, 5}, {1, 64}, {200, 3}}) {
    SCOPED_TRACE(std::to_string(budget) + " " + std::to_string(fan_in));
    exporter::SpillOptions o;
    o.budget = budget;
    o.fan_in = fan_in;
    o.read_buffer = 64;  // records longer than the buffer too
    exporter::SpillSorter s(tmp.path(), o);
    for (int round = 0; round < 2; ++round) {  // and again after Clear()
      for (const Rec& r : recs) s.Add(r.key, r.payload);
      EXPECT_EQ(s.records(), recs.size());
      if (budget < 2000) {
        EXPECT_GT(s.runs(), 0u);
      }
      EXPECT_LE(s.runs(), fan_in);
      size_t scanned = 0, bytes = 0;
      s.Scan([&](const exporter::SpillKey&, std::string_view p) {
        scanned++;
        bytes += p.size();
      });
      EXPECT_EQ(scanned, recs.size());
      size_t want_bytes = 0;
      for (const Rec& r : recs) want_bytes += r.payload.size();
      EXPECT_EQ(bytes, want_bytes);
      exporter::SpillSorter::Cursor c = s.Sorted();
      exporter::SpillKey k;
      std::string_view p;
      size_t i = 0;
      while (c.Next(&k, &p)) {
        ASSERT_LT(i, want.size());
        ASSERT_EQ(k, want[i].key) << i;
        ASSERT_EQ(p, want[i].payload) << i;
        ++i;
      }
      EXPECT_EQ(i, want.size());
      s.Clear();
    }
    EXPECT_TRUE(ListDirectory(tmp.path()).empty());  // its file has no name
  }
}

// The file is what libprotobuf's deterministic serialization writes for the message it holds,
// byte for byte, and the same whether the events were sorted in memory or on disk in many runs
// merged a few at a time.
TEST_F(XSpaceExport, StreamedFileIsCanonicalAtAnyBudget) {
  model::TraceModel m = model::LoadModel(dir_->path());
  TempDir out;
  std::vector<std::string> files;
  for (auto [budget, fan_in] :
       std::vector<std::pair<size_t, size_t>>{{size_t{32} << 20, 64}, {4096, 4}, {1, 2}}) {
    exporter::XSpaceOptions o;
    o.sort.budget = budget;
    o.sort.fan_in = fan_in;
    std::vector<Problem> problems;
    std::string logdir = out / ("b" + std::to_string(budget));
    exporter::XSpaceResult r = exporter::WriteXSpace(m, {}, logdir, &problems, o);
    EXPECT_TRUE(problems.empty());
    ASSERT_EQ(r.files.size(), 1u);
    EXPECT_EQ(ListDirectory(r.run_dir).size(), 1u);  // no temporary file left
    files.push_back(OnlyFile(logdir));
    EXPECT_EQ(r.bytes, files.back().size());
  }
  EXPECT_TRUE(files[1] == files[0]);
  EXPECT_TRUE(files[2] == files[0]);
  tp::XSpace s;
  ASSERT_TRUE(s.ParseFromString(files[0]));
  EXPECT_TRUE(Deterministic(s) == files[0]);
  EXPECT_EQ(s.planes_size(), 3);
}

// Every event the CSV export writes (an independent exporter) is in the XSpace once, on the line
// of its track, at its time, with its arguments as stats; lines are sorted (start, then longer
// first) and span their events. Two threads and four GPU streams, sorted on disk.
TEST(XSpaceExportContent, EveryEventAsTheCsvExportHasIt) {
  TempDir dir, out;
  auto job = RunCmd({TT_SYNTHETIC, "40", "100", "2", "varied"}, {{"TENSORTRACE_DIR", dir.path()}});
  ASSERT_EQ(job.status, 0) << job.err;
  ASSERT_EQ(RunCmd({TT_CLI, "export", dir.path(), "--format", "csv", "-o", out / "t.csv"}).status,
            0);
  model::TraceModel m = model::LoadModel(dir.path());
  ASSERT_EQ(m.processes.size(), 1u);
  exporter::XSpaceOptions o;
  o.sort.budget = 2048;
  o.sort.fan_in = 3;
  std::vector<Problem> problems;
  exporter::XSpaceResult r = exporter::WriteXSpace(m, {}, out / "logs", &problems, o);
  tp::XSpace s;
  ASSERT_TRUE(s.ParseFromString(OnlyFile(out / "logs")));
  EXPECT_TRUE(Deterministic(s) == OnlyFile(out / "logs"));

  // (track kind, track id, name, start in trace time, duration) -> the arguments of each event.
  using Key = std::tuple<std::string, uint64_t, std::string, int64_t, int64_t>;
  std::map<Key, std::vector<std::map<std::string, std::string>>> csv;
  std::istringstream in(ReadFile(out / "t.csv"));
  std::string row;
  std::getline(in, row);  // header
  size_t rows = 0;
  while (std::getline(in, row)) {
    std::vector<std::string> f;
    std::stringstream ls(row);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    ASSERT_GE(f.size(), 14u) << row;  // no quoted commas in this trace
    std::map<std::string, std::string> args;
    if (f.size() > 14) {
      std::stringstream as(f[14]);
      for (std::string kv; std::getline(as, kv, ';');)
        args[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    }
    csv[{f[1] == "device" ? "device" : "host", std::stoull(f[2]), f[6], std::stoll(f[7]),
         std::stoll(f[9]) * 1000}]
        .push_back(args);
    rows++;
  }
  EXPECT_EQ(rows, r.walk.events);

  const auto& meta = m.processes[0].meta;
  int64_t offset = meta.clock_offset_ns ? meta.clock_offset_ns : meta.offset_start_ns;
  int64_t base = ProfileStart(s), stop = 0;
  for (const auto& st : Plane(s, "Task Environment")->stats())
    if (Plane(s, "Task Environment")->stat_metadata().at(st.metadata_id()).name() ==
        "profile_stop_time")
      stop = static_cast<int64_t>(st.uint64_value());
  size_t events = 0, lines = 0;
  for (const tp::XPlane& p : s.planes()) {
    if (p.name() == "Task Environment") continue;
    bool device = p.name() != "/host:CPU";
    for (const tp::XLine& l : p.lines()) {
      lines++;
      tp::XPlane one = p;  // the line alone, for Events()
      one.clear_lines();
      *one.add_lines() = l;
      std::vector<Ev> evs = Events(one, base);
      int64_t end_ps = 0;
      for (size_t i = 0; i < evs.size(); ++i) {
        const Ev& e = evs[i];
        const tp::XEvent& x = l.events(static_cast<int>(i));
        if (i > 0) {
          const tp::XEvent& prev = l.events(static_cast<int>(i - 1));
          EXPECT_TRUE(prev.offset_ps() < x.offset_ps() ||
                      (prev.offset_ps() == x.offset_ps() && prev.duration_ps() >= x.duration_ps()))
              << l.name() << " " << i;
        }
        end_ps = std::max(end_ps, x.offset_ps() + x.duration_ps());
        EXPECT_LE(e.start_ns + e.dur_ps / 1000, stop);
        std::string name =
            e.name.rfind("Memcpy", 0) == 0 && !e.display.empty() ? e.display : e.name;
        uint64_t track =
            device ? static_cast<uint64_t>(p.id() - 1) << 32 | static_cast<uint64_t>(l.id())
                   : static_cast<uint64_t>(l.id());
        Key k{device ? "device" : "host", track, name, e.start_ns - offset, e.dur_ps};
        auto it = csv.find(k);
        ASSERT_NE(it, csv.end()) << name << " at " << e.start_ns - offset << " on " << l.name();
        // One CSV row with these arguments, all of them stats of the event.
        auto& cands = it->second;
        auto match = std::find_if(cands.begin(), cands.end(), [&](const auto& args) {
          for (const auto& [key, v] : args)
            if (!e.stats.count(key) || e.stats.at(key) != v) return false;
          return true;
        });
        ASSERT_NE(match, cands.end()) << name;
        cands.erase(match);
        if (cands.empty()) csv.erase(it);
        events++;
      }
      EXPECT_EQ(l.duration_ps(), end_ps) << l.name();
      EXPECT_GE(l.timestamp_ns(), 0);
    }
  }
  EXPECT_TRUE(csv.empty());
  EXPECT_EQ(events, rows);
  EXPECT_EQ(lines, 2u + 4u);  // two threads; streams 7, 8 and 9, 10
}

// A write that fails (here the file size limit, as a full disk would) while sorting on disk or
// while writing the file: one error, and nothing left, the log directory included.
TEST_F(XSpaceExport, FailedWriteLeavesNothing) {
  model::TraceModel m = model::LoadModel(dir_->path());
  TempDir out;
  struct rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto previous = std::signal(SIGXFSZ, SIG_IGN);
  for (size_t budget : {size_t{256}, size_t{32} << 20}) {  // the sort's file, then the output
    SCOPED_TRACE(budget);
    exporter::XSpaceOptions o;
    o.sort.budget = budget;
    o.sort.fan_in = 2;
    std::vector<Problem> problems;
    struct rlimit lim = old;
    lim.rlim_cur = 2048;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
    std::string what;
    try {
      exporter::WriteXSpace(m, {}, out / "logs", &problems, o);
    } catch (const Error& e) {
      what = e.what();
    }
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
    EXPECT_NE(what.find(budget < 1000 ? "cannot write a temporary file" : "cannot write"),
              std::string::npos)
        << what;
    EXPECT_TRUE(ListDirectory(out.path()).empty());
  }
  std::signal(SIGXFSZ, previous);
}

}  // namespace
}  // namespace tt
