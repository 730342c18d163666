// `tensortrace export --format perfetto` on a trace with known content, checked against the
// Chrome JSON and CSV exports of the same trace, decoded with protoc, with libprotobuf (our
// schema subset) and, where installed, with Perfetto's own Python schema.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/files.h"
#include "export/proto/perfetto_trace.pb.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;
namespace pp = perfetto::protos;

constexpr int kSteps = 5, kThreads = 2;

// What a decoded Perfetto trace holds, names resolved through each sequence's interned data.
struct Decoded {
  pp::Trace trace;
  std::map<std::string, int> begins, instants;  // per event name
  int ends = 0, counters = 0, memory_samples = 0;
  std::vector<int64_t> memory;  // the memory-in-use values in order
  std::multiset<uint64_t> flow_starts, flow_ends;
  std::map<std::string, int> flows_from;  // per event name: flow ids started there
  std::set<std::string> thread_names, process_names, track_names;
  std::set<int64_t> pids;                                 // of the process tracks
  std::map<std::string, std::vector<uint64_t>> begin_ts;  // per event name
  std::map<std::string, std::vector<uint64_t>> end_ts;    // per name of the slice ended
  std::string order_error;       // first BEGIN/END out of order on a track, if any
  bool sequences_sorted = true;  // each sequence's timestamps never go back
};

Decoded Decode(const std::string& bytes) {
  Decoded d;
  EXPECT_TRUE(d.trace.ParseFromString(bytes));
  std::map<uint32_t, std::map<uint64_t, std::string>> names;  // sequence -> iid -> name
  std::map<uint64_t, std::vector<std::pair<std::string, uint64_t>>> open;  // track -> stack
  std::set<uint64_t> memory_tracks;
  std::map<uint32_t, uint64_t> last_ts;
  for (const auto& p : d.trace.packet()) {
    uint32_t seq = p.trusted_packet_sequence_id();
    if (p.sequence_flags() & pp::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED) names[seq].clear();
    for (const auto& n : p.interned_data().event_names()) names[seq][n.iid()] = n.name();
    if (p.has_track_descriptor()) {
      const auto& t = p.track_descriptor();
      if (t.has_thread()) d.thread_names.insert(t.thread().thread_name());
      if (t.has_process()) {
        d.process_names.insert(t.process().process_name());
        d.pids.insert(t.process().pid());
      }
      if (t.has_name()) d.track_names.insert(t.name());
      if (t.has_counter() && t.counter().unit() == pp::CounterDescriptor::UNIT_SIZE_BYTES)
        memory_tracks.insert(t.uuid());
    }
    if (!p.has_track_event()) continue;
    if (p.timestamp() < last_ts[seq]) d.sequences_sorted = false;
    last_ts[seq] = p.timestamp();
    const auto& e = p.track_event();
    std::string name = e.has_name_iid() ? names[seq][e.name_iid()] : e.name();
    for (uint64_t f : e.flow_ids()) d.flow_starts.insert(f), d.flows_from[name]++;
    for (uint64_t f : e.terminating_flow_ids()) d.flow_ends.insert(f);
    auto& stack = open[e.track_uuid()];
    switch (e.type()) {
      case pp::TrackEvent::TYPE_SLICE_BEGIN:
        d.begins[name]++;
        d.begin_ts[name].push_back(p.timestamp());
        if (!stack.empty() && p.timestamp() < stack.back().second && d.order_error.empty())
          d.order_error = name + " begins before its parent " + stack.back().first;
        stack.push_back({name, p.timestamp()});
        break;
      case pp::TrackEvent::TYPE_SLICE_END:
        d.ends++;
        if (stack.empty()) {
          if (d.order_error.empty()) d.order_error = "an END with no open slice";
          break;
        }
        if (p.timestamp() < stack.back().second && d.order_error.empty())
          d.order_error = stack.back().first + " ends before it begins";
        d.end_ts[stack.back().first].push_back(p.timestamp());
        stack.pop_back();
        break;
      case pp::TrackEvent::TYPE_INSTANT:
        d.instants[name]++;
        break;
      case pp::TrackEvent::TYPE_COUNTER:
        if (memory_tracks.count(e.track_uuid())) {
          d.memory_samples++;
          d.memory.push_back(e.counter_value());
        } else {
          d.counters++;
        }
        break;
      default:
        break;
    }
  }
  return d;
}

std::string Gunzip(const std::string& path) {
  gzFile gz = gzopen(path.c_str(), "rb");
  EXPECT_NE(gz, nullptr);
  std::string text;
  char buf[65536];
  for (int n; (n = gzread(gz, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  gzclose(gz);
  return text;
}

class Perfetto : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    auto r = RunCmd({TT_SYNTHETIC, std::to_string(kSteps), "100", std::to_string(kThreads)},
                    {{"TENSORTRACE_DIR", dir_->path()}});
    ASSERT_EQ(r.status, 0) << r.err;
    out_ = new TempDir();
    for (const char* f : {"perfetto", "chrome", "csv"}) {
      auto e = Export_({"--format", f, "-o", *out_ / (std::string("t.") + f)});
      ASSERT_EQ(e.status, 0) << e.err;
      if (std::string(f) == "perfetto") stderr_ = new std::string(e.err);
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete out_;
    delete stderr_;
  }
  static test::RunResult Export_(std::vector<std::string> args) {
    std::vector<std::string> a{TT_CLI, "export", dir_->path()};
    a.insert(a.end(), args.begin(), args.end());
    return RunCmd(a);
  }
  static TempDir* dir_;
  static TempDir* out_;
  static std::string* stderr_;
};
TempDir* Perfetto::dir_ = nullptr;
TempDir* Perfetto::out_ = nullptr;
std::string* Perfetto::stderr_ = nullptr;

TEST_F(Perfetto, ProtocDecodesTheFileWithOurSchema) {
  auto r = RunCmd({"sh", "-c",
                   "protoc --proto_path=\"$0\" --decode=perfetto.protos.Trace "
                   "perfetto_trace.proto < \"$1\"",
                   std::string(TT_SOURCE_DIR) + "/src/export/proto", *out_ / "t.perfetto"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("type: TYPE_SLICE_BEGIN"), std::string::npos);
  EXPECT_NE(r.out.find("thread_name: "), std::string::npos);
}

TEST_F(Perfetto, EveryEventOfTheChromeExportIsThere) {
  Decoded d = Decode(ReadFile(*out_ / "t.perfetto"));
  json chrome = json::parse(ReadFile(*out_ / "t.chrome"));
  std::map<std::string, int> slices, instants;
  int counters = 0, launch_flows = 0;
  std::set<std::string> threads;
  for (const auto& e : chrome["traceEvents"]) {
    std::string ph = e["ph"];
    if (ph == "X") slices[e["name"]]++;
    if (ph == "i") instants[e["name"]]++;
    if (ph == "C") counters++;
    if (ph == "s") launch_flows++;
    if (ph == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"]);
  }
  ASSERT_FALSE(slices.empty());
  EXPECT_EQ(d.begins, slices);
  EXPECT_EQ(d.instants, instants);
  EXPECT_EQ(d.counters, counters);
  int total = 0;
  for (const auto& [n, c] : d.begins) total += c;
  EXPECT_EQ(d.ends, total);
  EXPECT_EQ(d.order_error, "");
  EXPECT_TRUE(d.sequences_sorted);  // one sequence per track, in the track's time order
  EXPECT_EQ(total, 11 * kSteps * kThreads);
  // Track names: Chrome's thread names are the thread and GPU-stream tracks'.
  std::set<std::string> ours = d.thread_names;
  ours.insert(d.track_names.begin(), d.track_names.end());
  ours.erase("allocator memory in use");
  EXPECT_EQ(ours, threads);
  EXPECT_TRUE(d.track_names.count("GPU 0 stream 7")) << *d.track_names.begin();
  ASSERT_EQ(d.process_names.size(), 1u);
  EXPECT_NE(d.process_names.begin()->find("tt_synthetic_job"), std::string::npos);
  EXPECT_NE(stderr_->find("wrote " +
                          std::to_string(total + d.instants["MemoryAllocation"] +
                                         d.instants["MemoryDeallocation"]) +
                          " events"),
            std::string::npos)
      << *stderr_;
}

TEST_F(Perfetto, FlowsLinkLaunchesAndOpsToTheirDeviceWork) {
  Decoded d = Decode(ReadFile(*out_ / "t.perfetto"));
  json chrome = json::parse(ReadFile(*out_ / "t.chrome"));
  int launch_flows = 0;
  for (const auto& e : chrome["traceEvents"]) launch_flows += e["ph"] == "f";
  // Each device activity ends two flows: from its launch and from its op.
  int device = d.begins["volta_sgemm_128x64_nn"] + d.begins["bias_add_kernel"] + d.begins["memcpy"];
  EXPECT_EQ(static_cast<int>(d.flow_ends.size()), 2 * device);
  EXPECT_EQ(d.flows_from["cudaLaunchKernel"] + d.flows_from["cudaMemcpyAsync"], launch_flows);
  // MatMul by its external id; BiasAdd and Relu by the launches inside them.
  EXPECT_EQ(d.flows_from["model/dense/MatMul:MatMul"], kSteps * kThreads);
  EXPECT_EQ(d.flows_from["model/dense/BiasAdd:BiasAdd"], kSteps * kThreads);
  EXPECT_EQ(d.flows_from["model/relu:Relu"], kSteps * kThreads);
  // Every flow that ends was started, exactly once.
  for (uint64_t f : d.flow_ends) EXPECT_EQ(d.flow_starts.count(f), 1u) << f;
  EXPECT_EQ(d.flow_starts, d.flow_ends);
  EXPECT_NE(stderr_->find(std::to_string(2 * device) + " flows"), std::string::npos) << *stderr_;
}

// The CSV export's rows: name -> (start_ns, end_ns) and the allocation rows' arguments.
struct CsvRow {
  std::string name, args;
  uint64_t start = 0, end = 0;
};
std::vector<CsvRow> ReadCsv(const std::string& text) {
  std::vector<CsvRow> rows;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    if (f.size() < 15) continue;
    rows.push_back({f[6], f[14], std::stoull(f[7]), f[8].empty() ? 0 : std::stoull(f[8])});
  }
  return rows;
}

TEST_F(Perfetto, TimestampsEqualTheTraceToTheNanosecond) {
  Decoded d = Decode(ReadFile(*out_ / "t.perfetto"));
  std::map<std::string, std::vector<uint64_t>> starts, ends;
  for (const CsvRow& r : ReadCsv(ReadFile(*out_ / "t.csv"))) {
    starts[r.name].push_back(r.start);
    ends[r.name].push_back(r.end);
  }
  for (const char* name : {"volta_sgemm_128x64_nn", "step", "cudaLaunchKernel", "memcpy"}) {
    std::vector<uint64_t> a = d.begin_ts[name], b = starts[name], c = d.end_ts[name],
                          e = ends[name];
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::sort(c.begin(), c.end());
    std::sort(e.begin(), e.end());
    ASSERT_FALSE(a.empty()) << name;
    EXPECT_EQ(a, b) << name;
    EXPECT_EQ(c, e) << name;
  }
  EXPECT_EQ(d.end_ts["volta_sgemm_128x64_nn"][0] - d.begin_ts["volta_sgemm_128x64_nn"][0], 30000u);
}

uint64_t ArgValue(const std::string& args, const std::string& key) {
  size_t at = (";" + args).find(";" + key + "=");
  if (at == std::string::npos) return UINT64_MAX;
  return std::stoull(args.substr(at + key.size() + 1));
}

TEST_F(Perfetto, MemoryCounterIsTheRunningSumOfAllocationsMinusFrees) {
  Decoded d = Decode(ReadFile(*out_ / "t.perfetto"));
  std::vector<CsvRow> rows;
  for (const CsvRow& r : ReadCsv(ReadFile(*out_ / "t.csv")))
    if (r.name == "MemoryAllocation" || r.name == "MemoryDeallocation") rows.push_back(r);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const CsvRow& a, const CsvRow& b) { return a.start < b.start; });
  std::map<uint64_t, uint64_t> live;
  int64_t sum = 0;
  std::vector<int64_t> expected;
  for (const CsvRow& r : rows) {
    uint64_t addr = ArgValue(r.args, "addr");
    if (r.name == "MemoryAllocation") {
      live[addr] = ArgValue(r.args, "bytes");
      sum += static_cast<int64_t>(live[addr]);
    } else {
      ASSERT_TRUE(live.count(addr)) << r.args;
      sum -= static_cast<int64_t>(live[addr]);
      live.erase(addr);
    }
    expected.push_back(sum);
  }
  ASSERT_EQ(expected.size(), static_cast<size_t>(kThreads * (2 * kSteps - 1)));
  EXPECT_EQ(d.memory, expected);
  EXPECT_EQ(d.memory.back(), 1024 * kThreads);  // each thread's last allocation is never freed
}

TEST_F(Perfetto, GzipAndSelection) {
  Decoded whole = Decode(ReadFile(*out_ / "t.perfetto"));
  TempDir out;
  ASSERT_EQ(Export_({"--format", "perfetto", "-o", out / "t.pftrace.gz"}).status, 0);
  Decoded gz = Decode(Gunzip(out / "t.pftrace.gz"));
  EXPECT_EQ(gz.trace.packet_size(), whole.trace.packet_size());
  EXPECT_EQ(gz.begins, whole.begins);

  ASSERT_EQ(Export_({"--format", "perfetto", "-o", out / "s.pftrace", "--steps", "1:2"}).status, 0);
  ASSERT_EQ(Export_({"--format", "chrome", "-o", out / "s.json", "--steps", "1:2"}).status, 0);
  Decoded s = Decode(ReadFile(out / "s.pftrace"));
  std::map<std::string, int> slices;
  json sj = json::parse(ReadFile(out / "s.json"));
  for (const auto& e : sj["traceEvents"])
    if (e["ph"] == "X") slices[e["name"]]++;
  EXPECT_EQ(s.begins, slices);
  // Steps are process-wide windows: threads that run out of phase can bring a neighbouring
  // step's slice into the window, so the count is bounded, not exact.
  EXPECT_GE(s.begins["step"], 2 * kThreads);
  EXPECT_LT(s.begins["step"], whole.begins["step"]);
  EXPECT_EQ(s.order_error, "");
  EXPECT_LT(s.memory_samples, whole.memory_samples);
  EXPECT_GT(s.memory_samples, 0);

  auto r = Export_({"--format", "perfetto", "-o", out / "m.pftrace", "--max-events", "10"});
  ASSERT_EQ(r.status, 0) << r.err;
  Decoded m = Decode(ReadFile(out / "m.pftrace"));
  int events = m.counters;
  for (const auto& [n, c] : m.begins) events += c;
  for (const auto& [n, c] : m.instants) events += c;
  EXPECT_EQ(events, 10);
  EXPECT_EQ(m.order_error, "");
  EXPECT_NE(r.err.find("--max-events left out"), std::string::npos) << r.err;
}

TEST_F(Perfetto, BadInputLeavesNoFile) {
  TempDir out;
  auto one_line = [&](std::vector<std::string> args, const std::string& what) {
    auto r = Export_(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  };
  one_line({"--format", "perfetto", "-o", "/no/such/dir/t.pftrace"},
           "cannot create /no/such/dir/t.pftrace");
  one_line({"--format", "perfetto", "-o", out / "e.pftrace", "--steps", "100:200"},
           "no step matches the selection");
  one_line({"--format", "perfetto"}, "no output given");
  one_line({"--format", "vtune", "-o", out / "x"}, "formats available: perfetto, chrome, csv, xspace");
  EXPECT_TRUE(ListDirectory(out.path()).empty());  // no partial or temporary file
}

// Three kernels with the external id of the op that launched them: three op flows, each
// ending on one kernel (and the three launch flows).
TEST(PerfettoFlows, OneOpManyKernels) {
  TempDir d;
  auto r = RunCmd({TT_SHARED_EXTERNAL_ID}, {{"TENSORTRACE_DIR", d.path()}});
  ASSERT_EQ(r.status, 0) << r.err;
  TempDir out;
  ASSERT_EQ(RunCmd({TT_CLI, "export", d.path(), "--format", "perfetto", "-o", out / "t.pf"}).status,
            0);
  Decoded p = Decode(ReadFile(out / "t.pf"));
  EXPECT_EQ(p.begins["conv_kernel"], 3);
  EXPECT_EQ(p.flows_from["model/conv:Conv2D"], 3);
  EXPECT_EQ(p.flows_from["cudaLaunchKernel"], 3);
  EXPECT_EQ(p.flow_ends.size(), 6u);
  EXPECT_EQ(p.flow_starts, p.flow_ends);  // every flow ends once, on its own kernel
  EXPECT_EQ(std::set<uint64_t>(p.flow_ends.begin(), p.flow_ends.end()).size(), 6u);
}

// A recorded program: threads with names, user ranges, marks and counters, in two processes
// (fork); the same events as the Chrome export, a track per process and per counter.
TEST(PerfettoRecorded, CountersThreadsAndProcesses) {
  TempDir d;
  for (std::vector<std::string> cmd : {std::vector<std::string>{TT_PROGRAM, "threads", "3", "4"},
                                       std::vector<std::string>{TT_PROGRAM, "fork", "2"}}) {
    std::string trace = d / cmd[1];
    std::vector<std::string> a{TT_CLI, "record", "--quiet", "-o", trace, "--"};
    a.insert(a.end(), cmd.begin(), cmd.end());
    auto r = RunCmd(a);
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(RunCmd({TT_CLI, "export", trace, "--format", "perfetto", "-o", trace + ".pf"}).status,
              0);
    ASSERT_EQ(RunCmd({TT_CLI, "export", trace, "--format", "chrome", "-o", trace + ".json"}).status,
              0);
    Decoded p = Decode(ReadFile(trace + ".pf"));
    json chrome = json::parse(ReadFile(trace + ".json"));
    std::map<std::string, int> slices, instants;
    int counters = 0;
    std::set<std::string> threads;
    std::set<int64_t> pids;
    for (const auto& e : chrome["traceEvents"]) {
      std::string ph = e["ph"];
      if (ph == "X") slices[e["name"]]++;
      if (ph == "i") instants[e["name"]]++;
      if (ph == "C") counters++;
      if (ph == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"]);
      pids.insert(e["pid"].get<int64_t>());
    }
    EXPECT_EQ(p.begins, slices) << cmd[1];
    EXPECT_EQ(p.instants, instants) << cmd[1];
    EXPECT_EQ(p.counters, counters) << cmd[1];
    EXPECT_EQ(p.order_error, "") << cmd[1];
    std::set<std::string> ours = p.thread_names;
    ours.insert(p.track_names.begin(), p.track_names.end());
    for (const auto& e : chrome["traceEvents"])
      if (e["ph"] == "C") ours.erase(e["name"].get<std::string>());  // counter tracks
    EXPECT_EQ(ours, threads) << cmd[1];
    EXPECT_EQ(p.pids, pids) << cmd[1];
    if (cmd[1] == "threads") {
      EXPECT_EQ(counters, 3);
      EXPECT_EQ(p.begins["work"], 12);
      EXPECT_TRUE(p.track_names.count("done"));  // one counter track for the three samples
    } else {
      EXPECT_EQ(pids.size(), 2u);
    }
  }
}

// A second, independent reader: Perfetto's own schema (the `perfetto` Python package's
// compiled protos, no download), with no field left unknown to it.
TEST_F(Perfetto, PerfettosOwnSchemaReadsEveryField) {
  const char* script = R"(
import sys
try:
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
    from google.protobuf import unknown_fields
except ImportError:
    print("absent"); sys.exit(0)
t = pb.Trace()
t.ParseFromString(open(sys.argv[1], "rb").read())
def unknown(m):
    n = len(unknown_fields.UnknownFieldSet(m))
    for f, v in m.ListFields():
        if f.type == f.TYPE_MESSAGE:
            n += sum(unknown(x) for x in v) if f.is_repeated else unknown(v)
    return n
begins = sum(1 for p in t.packet if p.HasField("track_event")
             and p.track_event.type == pb.TrackEvent.TYPE_SLICE_BEGIN)
flows = sum(len(p.track_event.terminating_flow_ids) for p in t.packet)
print(len(t.packet), sum(unknown(p) for p in t.packet), begins, flows)
)";
  auto r = RunCmd({"python3", "-c", script, *out_ / "t.perfetto"});
  ASSERT_EQ(r.status, 0) << r.err;
  if (r.out.rfind("absent", 0) == 0) GTEST_SKIP() << "the perfetto Python package is not installed";
  Decoded d = Decode(ReadFile(*out_ / "t.perfetto"));
  int begins = 0;
  for (const auto& [n, c] : d.begins) begins += c;
  EXPECT_EQ(r.out, std::to_string(d.trace.packet_size()) + " 0 " + std::to_string(begins) + " " +
                       std::to_string(d.flow_ends.size()) + "\n");
}

}  // namespace
}  // namespace tt
