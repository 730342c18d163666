// The XSpace importer: a real .xplane.pb (tests/data, written by TensorFlow's profiler) into a
// recorded process's trace, checked against what the protobuf holds; and `record` of real
// TensorFlow and JAX programs that profile themselves (skipped where those are not installed).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "analysis/job/steps.h"
#include "core/error.h"
#include "core/files.h"
#include "core/time.h"
#include "format/import/importer.h"
#include "format/import/xspace/classify.h"
#include "format/import/xspace/import.h"
#include "format/proto/xplane.pb.h"
#include "model/model.h"
#include "model/scan.h"
#include "test_util.h"
#include "trace_view.h"

namespace tt {
namespace {

namespace xp = tensorflow::profiler;
using layout::Category;

const std::string kPb = std::string(TT_SOURCE_DIR) + "/tests/data/tf_cpu_job.xplane.pb";

xp::XSpace LoadSpace(const std::string& path) {
  xp::XSpace s;
  EXPECT_TRUE(s.ParseFromString(ReadFile(path))) << path;
  return s;
}

// What the protobuf itself holds, counted with its own classes.
struct PbCounts {
  size_t ops = 0, allocs = 0, steps = 0;
  int64_t alloc_bytes = 0;  // sum of allocation_bytes over MemoryAllocation events
  std::set<std::string> op_names, alloc_stats;  // every stat name seen on allocations
  std::map<std::string, size_t> per_allocator;  // events with allocator_name and bytes_allocated
  int64_t first_ns = INT64_MAX;  // earliest event, Unix-epoch ns (lines may be relative)
};

PbCounts CountPb(const xp::XSpace& s, int64_t start) {
  PbCounts c;
  for (const auto& plane : s.planes()) {
    for (const auto& line : plane.lines()) {
      int64_t base =
          line.timestamp_ns() < start ? line.timestamp_ns() + start : line.timestamp_ns();
      for (const auto& ev : line.events()) {
        const std::string& name = plane.event_metadata().at(ev.metadata_id()).name();
        c.first_ns = std::min(c.first_ns, base + ev.offset_ps() / 1000);
        // TensorFlow's op events are "node:OpType" (no spaces, no "::").
        if (name.find(':') != std::string::npos && name.find("::") == std::string::npos &&
            name.find(' ') == std::string::npos) {
          c.ops++;
          c.op_names.insert(name);
        }
        if (name == "train") c.steps++;
        if (name == "MemoryAllocation" || name == "MemoryDeallocation") {
          c.allocs++;
          std::string alloc;
          bool in_use = false;
          for (const auto& st : ev.stats()) {
            const std::string& k = plane.stat_metadata().at(st.metadata_id()).name();
            c.alloc_stats.insert(k);
            if (k == "allocator_name")
              alloc = st.has_str_value() ? st.str_value()
                                         : plane.stat_metadata().at(st.ref_value()).name();
            in_use |= k == "bytes_allocated";
          }
          if (!alloc.empty() && in_use) c.per_allocator[alloc]++;
        }
        if (name != "MemoryAllocation") continue;
        for (const auto& st : ev.stats())
          if (plane.stat_metadata().at(st.metadata_id()).name() == "allocation_bytes")
            c.alloc_bytes +=
                st.has_int64_value() ? st.int64_value() : static_cast<int64_t>(st.uint64_value());
      }
    }
  }
  return c;
}

// The stat named `name` of the Task Environment plane.
xp::XStat* EnvStat(xp::XSpace* s, const std::string& name) {
  for (auto& plane : *s->mutable_planes()) {
    if (plane.name() != "Task Environment") continue;
    for (auto& st : *plane.mutable_stats())
      if (plane.stat_metadata().at(st.metadata_id()).name() == name) return &st;
  }
  return nullptr;
}

// Records a short-lived process and returns its pid; the trace is in `dir`.
int64_t RecordSleeper(const std::string& dir) {
  auto r = test::RunCmd({TT_CLI, "record", "--quiet", "-o", dir, "--", "sleep", "0.6"});
  EXPECT_EQ(r.status, 0) << r.err;
  TraceDir t = OpenTrace(dir);
  EXPECT_EQ(t.processes.size(), 1u);
  return t.processes.at(0).meta.pid;
}

// A copy of the checked-in profile that starts at `start_ns` (Unix epoch): the importer drops
// events more than a year away from the process, and the file ages.
std::string ShiftedPb(const test::TempDir& d, int64_t start_ns) {
  xp::XSpace space = LoadSpace(kPb);
  xp::XStat* start = EnvStat(&space, "profile_start_time");
  EXPECT_NE(start, nullptr);
  if (start) start->set_uint64_value(static_cast<uint64_t>(start_ns));
  std::string path = d / "shifted.xplane.pb";
  WriteFileAtomic(path, space.SerializeAsString());
  return path;
}

int64_t StartOf(const std::string& trace) {
  return static_cast<int64_t>(OpenTrace(trace).processes.at(0).meta.start_realtime_ns);
}

TEST(XSpaceImport, CheckedInProfileKeepsEveryOpAllocationAndStep) {
  test::TempDir d;
  std::string trace = d / "t";
  int64_t pid = RecordSleeper(trace);
  ProcessMeta meta = OpenTrace(trace).processes.at(0).meta;

  // Move the profile into the sleeper's lifetime: 100 ms after it started.
  xp::XSpace space = LoadSpace(kPb);
  xp::XStat* start = EnvStat(&space, "profile_start_time");
  ASSERT_NE(start, nullptr);
  int64_t old_start = static_cast<int64_t>(start->uint64_value());
  PbCounts pb = CountPb(space, old_start);
  ASSERT_GT(pb.ops, 50u);
  ASSERT_GT(pb.allocs, 100u);
  int64_t new_start = static_cast<int64_t>(meta.start_realtime_ns) + 100'000'000;
  start->set_uint64_value(static_cast<uint64_t>(new_start));
  std::string pb_path = d / "shifted.xplane.pb";
  WriteFileAtomic(pb_path, space.SerializeAsString());

  XSpaceImport r = ImportXSpace(trace, pid, {pb_path}, std::nullopt);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_EQ(r.files, 1u);
  EXPECT_EQ(r.steps, pb.steps);

  test::TraceView v = test::LoadTrace(trace);
  EXPECT_TRUE(v.problems.empty()) << v.problems.front().ToString();
  ASSERT_EQ(v.procs.size(), 1u);
  const test::ProcView& p = v.procs[0];
  auto key = [&](const std::string& n) {
    for (const auto& [id, s] : p.names)
      if (s == n) return id;
    return 0u;
  };
  size_t ops = 0, allocs = 0;
  int64_t alloc_bytes = 0;
  std::set<std::string> op_names, alloc_keys;
  uint64_t first = UINT64_MAX, last = 0, proc_end = 0;
  std::map<std::string, std::string> track_names;  // file -> thread name
  std::map<std::string, size_t> counters;          // file -> counter samples
  size_t classed = 0;  // imported events written as an event class's values
  for (const auto& e : p.events) {
    if (e.id == layout::kThreadName) track_names[e.file] = e.name;
    if (e.id == layout::kCounter) counters[e.file]++;
    if (e.id == layout::kClockOffset && e.name == "realtime") proc_end = std::max(proc_end, e.ts);
    if (e.file.find("/x") == std::string::npos) continue;  // runtime streams
    classed += e.classed;
    bool slice = e.id == layout::kSliceBeginArgs || e.id == layout::kComplete;
    if (slice || e.id == layout::kInstant) {
      first = std::min(first, e.ts - (e.id == layout::kComplete ? e.duration : 0));
      last = std::max(last, e.ts);
    }
    if (slice && e.category == Category::kFrameworkOp) {
      ops++;
      op_names.insert(e.name);
      bool has_type = false;
      for (const auto& a : e.args) has_type |= a.key == key("op_type");
      EXPECT_TRUE(has_type) << e.name;
    }
    if (e.id == layout::kInstant && e.category == Category::kAllocation) {
      allocs++;
      std::set<uint32_t> keys;
      for (const auto& a : e.args) {
        keys.insert(a.key);
        if (a.key == key("bytes") && e.name == "MemoryAllocation") alloc_bytes += a.v.i;
      }
      for (const char* k :
           {"allocator_name", "bytes_allocated", "peak_bytes_in_use", "addr", "bytes"})
        EXPECT_TRUE(keys.count(key(k))) << e.name << " lacks " << k;
      for (uint32_t k : keys) alloc_keys.insert(p.names.at(k));
    }
  }
  EXPECT_EQ(ops, pb.ops);
  EXPECT_EQ(op_names, pb.op_names);
  EXPECT_EQ(allocs, pb.allocs);
  EXPECT_EQ(alloc_bytes, pb.alloc_bytes);
  std::map<std::string, size_t> per_allocator;  // counter tracks "allocator NAME"
  for (const auto& [file, n] : counters) per_allocator[track_names[file].substr(10)] += n;
  EXPECT_EQ(per_allocator, pb.per_allocator);
  EXPECT_FALSE(per_allocator.empty());
  for (const auto& k : pb.alloc_stats) EXPECT_TRUE(alloc_keys.count(k)) << "stat lost: " << k;
  EXPECT_GE(r.events, ops + allocs);

  // Times: realtime converted with the process's offsets, inside its lifetime.
  uint64_t start_mono = meta.start_realtime_ns - static_cast<uint64_t>(meta.offset_start_ns);
  int64_t shift = pb.first_ns - old_start;  // first event relative to the profile's start
  EXPECT_GE(first, start_mono);
  EXPECT_LE(last, proc_end);
  EXPECT_NEAR(static_cast<double>(first),
              static_cast<double>(new_start + shift - meta.offset_start_ns), 2e6);

  // The model and the step analysis see the imported steps, numbered by their step_num.
  model::TraceModel m = model::LoadModel(trace);
  size_t lines = 0;
  for (const auto& t : m.tracks)
    if (t.kind == layout::TrackKind::kImported) {
      EXPECT_LT(t.id, uint64_t{1} << 32) << t.name;  // a tid JSON viewers can take
      lines += t.name.rfind("allocator ", 0) != 0;
    }
  size_t pb_lines = 0;
  for (const auto& plane : space.planes()) pb_lines += plane.lines_size();
  EXPECT_EQ(lines, pb_lines);
  auto steps = analysis::FindSteps(m, {}, 1);
  ASSERT_EQ(steps.size(), pb.steps);
  for (size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i].number, static_cast<int64_t>(i));

  // The import writes repeated shapes as event classes, defined in its process stream and
  // declared in the metadata it writes again: babeltrace2 reads every event.
  EXPECT_GT(classed, ops / 2);
  EXPECT_NE(ReadFile(OpenTrace(trace).processes.at(0).dir + "/metadata").find("event { id = 16;"),
            std::string::npos);
  if (!test::HaveBabeltrace()) GTEST_SKIP() << "babeltrace2 not installed";
  auto bt = test::RunCmd({"babeltrace2", trace}, {}, 120);
  EXPECT_EQ(bt.status, 0) << bt.err.substr(0, 2000);
  EXPECT_EQ(bt.err, "");
  EXPECT_EQ(test::CountLines(bt.out), v.total_events);
}

TEST(XSpaceImport, StepFilterKeepsOnlyTheCapturedSteps) {
  test::TempDir d;
  std::string trace = d / "t";
  int64_t pid = RecordSleeper(trace);
  std::string pb = ShiftedPb(d, StartOf(trace));
  XSpaceImport r = ImportXSpace(trace, pid, {pb}, XSpaceStepFilter{1, 2});
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.steps, 2u);
  auto steps = analysis::FindSteps(model::LoadModel(trace), {}, 1);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].number, 1);
  EXPECT_EQ(steps[1].number, 2);
}

TEST(XSpaceImport, BadFilesAreErrorsNotCrashes) {
  test::TempDir d;
  std::string trace = d / "t";
  int64_t pid = RecordSleeper(trace);
  std::string data = ReadFile(kPb);
  WriteFileAtomic(d / "cut.xplane.pb", data.substr(0, data.size() / 3));
  WriteFileAtomic(d / "empty.xplane.pb", "");
  std::string pb = ShiftedPb(d, StartOf(trace));
  XSpaceImport r =
      ImportXSpace(trace, pid, {d / "cut.xplane.pb", d / "empty.xplane.pb", pb}, std::nullopt);
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_NE(r.errors[0].find("cut.xplane.pb"), std::string::npos) << r.errors[0];
  EXPECT_NE(r.errors[1].find("empty"), std::string::npos) << r.errors[1];
  EXPECT_EQ(r.files, 1u);  // the good one is still imported
  EXPECT_GT(r.events, 0u);
  EXPECT_THROW(ImportXSpace(trace, pid + 1000000, {kPb}, std::nullopt), Error);
}

struct SliceCollector {
  const model::Process* proc;
  std::map<std::string, model::Slice> slices;  // by name (names are unique in the test)
  std::map<std::string, std::string> parent;
  std::map<std::string, std::map<std::string, std::string>> args;  // string arguments
  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point&) {}
  void OnSlice(const model::Slice& s) {
    std::string n(proc->Name(s.name));
    slices[n] = s;
    parent[n] = std::string(proc->Name(s.parent));
    // The arguments live in the mapped stream only while the track is scanned.
    ArgCursor c = s.args.Cursor();
    for (uint32_t i = 0; i < s.args.count; ++i) {
      Arg x;
      c.Next(&x);
      if (x.type == layout::ArgType::kString)
        args[n][std::string(proc->Name(x.key))] = std::string(proc->Name(x.v.str));
    }
    slices[n].args = {};
  }
};

// A made-up XSpace: a host line whose events overlap without nesting, and a GPU plane.
TEST(XSpaceImport, OverlappingEventsAndDevicePlanes) {
  test::TempDir d;
  std::string trace = d / "t";
  int64_t pid = RecordSleeper(trace);
  ProcessMeta meta = OpenTrace(trace).processes.at(0).meta;
  int64_t t0 = static_cast<int64_t>(meta.start_realtime_ns) + 100'000'000;

  xp::XSpace s;
  auto add_event = [](xp::XPlane* p, xp::XLine* l, int64_t id, const char* name, int64_t off_ps,
                      int64_t dur_ps) {
    (*p->mutable_event_metadata())[id].set_name(name);
    auto* e = l->add_events();
    e->set_metadata_id(id);
    e->set_offset_ps(off_ps);
    e->set_duration_ps(dur_ps);
  };
  xp::XPlane* host = s.add_planes();
  host->set_name("/host:CPU");
  xp::XLine* worker = host->add_lines();
  worker->set_id(4242);  // a tid: kept as the track id
  worker->set_name("worker");
  worker->set_timestamp_ns(t0);
  add_event(host, worker, 1, "A", 0, 10'000'000);          // [0, 10) us
  add_event(host, worker, 2, "B", 5'000'000, 10'000'000);  // [5, 15): overlaps A, not inside
  add_event(host, worker, 3, "C", 6'000'000, 2'000'000);   // [6, 8): inside A
  // A TraceMe whose stats are still encoded in its name.
  add_event(host, worker, 4, "dense/MatMul:MatMul#id=4,shape=(64,128;128,8)#", 20'000'000, 1);
  xp::XPlane* gpu = s.add_planes();
  gpu->set_name("/device:GPU:1");
  xp::XLine* stream = gpu->add_lines();
  stream->set_id(7);
  stream->set_name("Stream #7");
  stream->set_timestamp_ns(t0);
  add_event(gpu, stream, 1, "volta_sgemm_128x64_nn", 1'000'000, 3'000'000);
  add_event(gpu, stream, 2, "MemcpyH2D", 4'000'000, 1'000'000);
  xp::XLine* xla = gpu->add_lines();
  xla->set_id(8);
  xla->set_name("XLA Ops");
  xla->set_timestamp_ns(t0);
  add_event(gpu, xla, 3, "fusion.1", 1'000'000, 3'500'000);
  WriteFileAtomic(d / "made.xplane.pb", s.SerializeAsString());

  XSpaceImport r = ImportXSpace(trace, pid, {d / "made.xplane.pb"}, std::nullopt);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_EQ(r.events, 7u);
  EXPECT_EQ(r.tracks, 3u);

  model::TraceModel m = model::LoadModel(trace);
  EXPECT_TRUE(m.problems.empty());
  SliceCollector c{&m.processes.at(0), {}, {}, {}};
  std::map<uint64_t, layout::TrackKind> kinds;
  for (const auto& t : m.tracks) {
    kinds[t.id] = t.kind;
    model::ScanTrack(m, t, nullptr, c);
  }
  EXPECT_EQ(kinds[4242], layout::TrackKind::kImported);
  EXPECT_EQ(kinds[(uint64_t{1} << 32) | 7], layout::TrackKind::kDevice);
  EXPECT_EQ(kinds[(uint64_t{1} << 32) | 8], layout::TrackKind::kDevice);
  ASSERT_EQ(c.slices.size(), 7u);
  EXPECT_EQ(c.slices["dense/MatMul:MatMul"].category, Category::kFrameworkOp);
  std::map<std::string, std::string>& args = c.args["dense/MatMul:MatMul"];
  EXPECT_EQ(args["shape"], "(64,128;128,8)");
  EXPECT_EQ(args["id"], "4");
  EXPECT_EQ(args["op_type"], "MatMul");
  EXPECT_EQ(args["op_name"], "dense/MatMul");
  uint64_t a = c.slices["A"].start;
  // Relative to A, in ns; the realtime offset may drift by a nanosecond over the line.
  auto near = [&](const char* n, double start, double end) {
    EXPECT_NEAR(static_cast<double>(c.slices[n].start - a), start, 1.0) << n;
    EXPECT_NEAR(static_cast<double>(c.slices[n].end - a), end, 1.0) << n;
  };
  near("A", 0, 10'000);
  near("B", 5'000, 15'000);
  near("C", 6'000, 8'000);
  EXPECT_EQ(c.parent["C"], "A");
  EXPECT_EQ(c.slices["C"].depth, 1);
  near("fusion.1", 1'000, 4'500);
  EXPECT_EQ(c.slices["volta_sgemm_128x64_nn"].category, Category::kGpuKernel);
  EXPECT_EQ(c.slices["MemcpyH2D"].category, Category::kMemcpy);
  EXPECT_EQ(c.slices["A"].category, Category::kUser);
}

// Damaged profiles that still parse (flipped bytes): imported or refused, never a crash, and
// the trace stays readable.
TEST(XSpaceImport, FlippedBytesNeverCrash) {
  test::TempDir d;
  std::string trace = d / "t";
  int64_t pid = RecordSleeper(trace);
  std::string data = ReadFile(ShiftedPb(d, StartOf(trace)));
  uint64_t seed = 12345;
  std::vector<std::string> files;
  for (int i = 0; i < 20; ++i) {
    std::string bad = data;
    for (int k = 0; k < 2; ++k) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      bad[(seed >> 17) % bad.size()] ^= static_cast<char>(1 + (seed >> 9) % 255);
    }
    files.push_back(d / ("bad" + std::to_string(i) + ".xplane.pb"));
    WriteFileAtomic(files.back(), bad);
  }
  // And structural damage: absurd times, negative durations, unknown metadata ids.
  xp::XSpace space = LoadSpace(d / "shifted.xplane.pb");
  for (auto& plane : *space.mutable_planes())
    for (auto& line : *plane.mutable_lines()) {
      line.set_timestamp_ns(line.id() % 2 ? INT64_MAX : INT64_MIN);
      for (int e = 0; e < line.events_size(); e += 3) {
        auto* ev = line.mutable_events(e);
        ev->set_offset_ps(e % 2 ? INT64_MAX : -ev->offset_ps());
        ev->set_duration_ps(e % 4 ? -5 : INT64_MAX);
        if (e % 5 == 0) ev->set_metadata_id(987654321);
      }
    }
  files.push_back(d / "absurd.xplane.pb");
  WriteFileAtomic(files.back(), space.SerializeAsString());
  XSpaceImport r = ImportXSpace(trace, pid, files, std::nullopt);
  EXPECT_GE(r.files + r.errors.size(), files.size());
  bool far = false;  // the absurd times are dropped and reported
  for (const auto& e : r.errors) far |= e.find("a year away") != std::string::npos;
  EXPECT_TRUE(far);
  EXPECT_GE(r.files, 1u);
  model::TraceModel m = model::LoadModel(trace);
  EXPECT_FALSE(m.tracks.empty());
  auto stats = test::RunCmd({TT_CLI, "stats", trace, "--view", "op"});
  EXPECT_EQ(stats.status, 0) << stats.err;
  if (!test::HaveBabeltrace()) GTEST_SKIP() << "babeltrace2 not installed";
  auto bt = test::RunCmd({"babeltrace2", trace}, {}, 120);
  EXPECT_EQ(bt.status, 0) << bt.err.substr(0, 2000);
}

TEST(XSpaceImport, EventsClassifiedByNameAndStats) {
  std::vector<XStatValue> none;
  XStatValue id{"id", XStatValue::kInt, 7};
  XEventKind k = ClassifyXEvent(PlaneKind::kHost, "python3", "SessionRun", {id});
  EXPECT_TRUE(k.step);
  EXPECT_EQ(k.step_number, 7);
  k = ClassifyXEvent(PlaneKind::kHost, "python3", "multi_step_on_iterator", none);  // Keras 3
  EXPECT_EQ(k.category, Category::kStep);
  EXPECT_EQ(k.step_number, -1);
  k = ClassifyXEvent(PlaneKind::kHost, "python3", "step", none);  // a tf.function named step
  EXPECT_FALSE(k.step);
  k = ClassifyXEvent(PlaneKind::kHost, "tf_Compute/1", "MemoryDeallocation", none);
  EXPECT_TRUE(k.instant);
  EXPECT_EQ(k.category, Category::kAllocation);
  k = ClassifyXEvent(PlaneKind::kHost, "python3", "$train.py:12 main", none);
  EXPECT_EQ(k.category, Category::kPython);
  XStatValue hlo{"hlo_op", XStatValue::kString};
  hlo.s = "dot.3";
  k = ClassifyXEvent(PlaneKind::kHost, "tf_XLACpu/1", "dot.3", {hlo});
  EXPECT_EQ(k.category, Category::kFrameworkOp);
  EXPECT_EQ(k.op_name, "dot.3");
  k = ClassifyXEvent(PlaneKind::kHost, "tf_XLACpu/1", "end: dot.3", {hlo});
  EXPECT_EQ(k.category, Category::kUser);
  k = ClassifyXEvent(PlaneKind::kDevice, "Steps", "12", none);
  EXPECT_EQ(k.step_number, 12);
}

TEST(XSpaceImport, OpNamesSplitIntoNodeAndType) {
  std::string_view n, t;
  ASSERT_TRUE(SplitTfOpName("gradient_tape/MatMul:_MklMatMul", &n, &t));
  EXPECT_EQ(n, "gradient_tape/MatMul");
  EXPECT_EQ(t, "_MklMatMul");
  ASSERT_TRUE(SplitTfOpName("dense/BiasAdd:BiasAdd#id=3#", &n, &t));
  EXPECT_EQ(t, "BiasAdd");
  EXPECT_FALSE(SplitTfOpName("Iterator::Root::Prefetch", &n, &t));
  EXPECT_FALSE(SplitTfOpName("EagerLocalExecute: MatMul", &n, &t));
  EXPECT_FALSE(SplitTfOpName("host:cpu", &n, &t));
}

// A bad .xplane.pb written by the traced program: import.json says why, record keeps the
// program's exit status.
TEST(XSpaceImport, RecordReportsABadProfileAndKeepsTheExitStatus) {
  test::TempDir d;
  std::string data = ReadFile(kPb);
  WriteFileAtomic(d / "cut.pb", data.substr(0, data.size() / 3));
  std::string script = "dir=$TENSORTRACE_DIR/xspace/$$/plugins/profile/run; mkdir -p $dir && cp " +
                       d / "cut.pb" + " $dir/host.xplane.pb; exit 3";
  auto r = test::RunCmd({TT_CLI, "record", "-o", d / "t", "--", "sh", "-c", script});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("XSpace of process"), std::string::npos) << r.err;
  std::vector<std::string> dirs = ListDirectory(d / "t/xspace");
  ASSERT_EQ(dirs.size(), 1u);
  auto j = nlohmann::json::parse(ReadFile(d / ("t/xspace/" + dirs[0] + "/import.json")));
  EXPECT_EQ(j["files"], 0);
  ASSERT_EQ(j["errors"].size(), 1u);
  EXPECT_NE(j["errors"][0].get<std::string>().find("not a readable XSpace"), std::string::npos);
  EXPECT_TRUE(PathExists(d / ("t/xspace/" + dirs[0] + "/plugins/profile/run/host.xplane.pb")));
}

// The importer table: each entry lists its own format's files only, and a process directory
// with none of them gets one line naming what each importer looked for.
TEST(Importers, EachFindsItsOwnFilesAndRecordNamesWhatEachLookedFor) {
  test::TempDir d;
  std::filesystem::create_directories(d / "log/plugins/profile/run");
  std::filesystem::create_directories(d / "log/torch");
  WriteFileAtomic(d / "log/plugins/profile/run/host.xplane.pb", "x");
  WriteFileAtomic(d / "log/torch/0-s0.pt.trace.json", "{}");
  ASSERT_EQ(Importers().size(), 2u);
  std::set<std::string> all;
  for (const Importer* imp : Importers()) {
    std::vector<std::string> files = imp->find(d / "log", nullptr);
    ASSERT_EQ(files.size(), 1u) << imp->name;
    EXPECT_TRUE(all.insert(files[0]).second) << imp->name << " found " << files[0] << " too";
    EXPECT_TRUE(imp->find(d / "none", nullptr).empty()) << imp->name;
  }
  auto r = test::RunCmd(
      {TT_CLI, "record", "-o", d / "t", "--", "sh", "-c", "mkdir -p $TENSORTRACE_DIR/xspace/$$"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> dirs = ListDirectory(d / "t/xspace");
  ASSERT_EQ(dirs.size(), 1u);
  for (const Importer* imp : Importers())
    EXPECT_NE(r.err.find(imp->looked_for(d / ("t/xspace/" + dirs[0]))), std::string::npos)
        << imp->name << ": " << r.err;
}

// capture.json from the bootstrap: its steps filter applies; a bad one is reported.
TEST(XSpaceImport, RecordAppliesTheCaptureStepFilter) {
  for (const auto& [steps, want_steps, want_errors] :
       {std::tuple<std::string, int, size_t>{"\"1:2\"", 2, 0},
        {"\"2:\"", 2, 0},
        {"\"two\"", 4, 1},
        {"null", 4, 0}}) {
    test::TempDir d;
    WriteFileAtomic(d / "capture.json", "{\"pid\": 1, \"framework\": \"tensorflow\", \"steps\": " +
                                            steps + ", \"status\": \"ok\"}");
    std::string pb = ShiftedPb(d, static_cast<int64_t>(ReadClockNs(CLOCK_REALTIME)));
    std::string script =
        "dir=$TENSORTRACE_DIR/xspace/$$; mkdir -p $dir/plugins/profile/run && cp " + pb +
        " $dir/plugins/profile/run/host.xplane.pb && cp " + d / "capture.json" + " $dir/";
    auto r = test::RunCmd({TT_CLI, "record", "-o", d / "t", "--", "sh", "-c", script});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> dirs = ListDirectory(d / "t/xspace");
    ASSERT_EQ(dirs.size(), 1u);
    auto j = nlohmann::json::parse(ReadFile(d / ("t/xspace/" + dirs[0] + "/import.json")));
    EXPECT_EQ(j["steps"], want_steps) << steps;
    EXPECT_EQ(j["errors"].size(), want_errors) << steps << j.dump();
  }
}

bool HavePython(const std::string& module) {
  return test::RunCmd({"python3", "-c", "import " + module}, {}, 120).status == 0;
}

TEST(XSpaceImport, RecordOfTensorFlowProfile) {
  if (!HavePython("tensorflow")) GTEST_SKIP() << "TensorFlow not importable";
  test::TempDir d;
  std::string prog = std::string(TT_SOURCE_DIR) + "/tests/programs/tf_profile_job.py";
  // oneDNN pinned off: TensorFlow's default depends on the CPU (on only with AVX-512).
  auto r = test::RunCmd({TT_CLI, "record", "-o", d / "t", "--", "python3", prog, "4"},
                        {{"TF_ENABLE_ONEDNN_OPTS", "0"}}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> dirs = ListDirectory(d / "t/xspace");
  ASSERT_EQ(dirs.size(), 1u);
  auto j = nlohmann::json::parse(ReadFile(d / ("t/xspace/" + dirs[0] + "/import.json")));
  EXPECT_TRUE(j["errors"].empty()) << j.dump();
  // The program starts TensorFlow's profiler itself, into the same log directory: the
  // bootstrap's capture steps aside and is written first. Both land in one run directory (and
  // the second replaces the first) when they are written within the same second.
  EXPECT_GE(j["files"].get<int>(), 1);
  EXPECT_LE(j["files"].get<int>(), 2);
  EXPECT_EQ(j["steps"], 4);

  auto ops = test::RunCmd({TT_CLI, "stats", d / "t", "--view", "op", "--csv"});
  ASSERT_EQ(ops.status, 0) << ops.err;
  EXPECT_NE(ops.out.find("MatMul"), std::string::npos) << ops.out;
  EXPECT_NE(ops.out.find("ReluGrad"), std::string::npos) << ops.out;
  auto steps = test::RunCmd({TT_CLI, "stats", d / "t", "--view", "step", "--json"});
  ASSERT_EQ(steps.status, 0) << steps.err;
  auto sj = nlohmann::json::parse(steps.out);
  EXPECT_EQ(sj["rows"].size(), 4u) << steps.out;

  if (!test::HaveBabeltrace()) GTEST_SKIP() << "babeltrace2 not installed";
  auto bt = test::RunCmd({"babeltrace2", d / "t"}, {}, 120);
  EXPECT_EQ(bt.status, 0) << bt.err;
  EXPECT_EQ(bt.err, "");
  EXPECT_NE(bt.out.find("MatMul"), std::string::npos);
}

TEST(XSpaceImport, RecordOfJaxProfileGivesXlaOps) {
  if (!HavePython("jax")) GTEST_SKIP() << "JAX not importable";
  test::TempDir d;
  std::string prog = std::string(TT_SOURCE_DIR) + "/tests/programs/jax_profile_job.py";
  auto r = test::RunCmd({TT_CLI, "record", "-o", d / "t", "--", "python3", prog, "3"}, {}, 300);
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> dirs = ListDirectory(d / "t/xspace");
  ASSERT_EQ(dirs.size(), 1u);
  auto j = nlohmann::json::parse(ReadFile(d / ("t/xspace/" + dirs[0] + "/import.json")));
  EXPECT_TRUE(j["errors"].empty()) << j.dump();
  EXPECT_EQ(j["steps"], 3);
  auto ops = test::RunCmd({TT_CLI, "stats", d / "t", "--view", "op", "--csv"});
  ASSERT_EQ(ops.status, 0) << ops.err;
  // XLA's CPU ops (dot, fusions) as framework ops, named by their HLO op.
  EXPECT_NE(ops.out.find("dot"), std::string::npos) << ops.out;
  EXPECT_NE(ops.out.find("fusion"), std::string::npos) << ops.out;
}

}  // namespace
}  // namespace tt
