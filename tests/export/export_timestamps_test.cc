// Exported times checked against the trace as the reader decodes it (issue 18, item 9): every
// slice (begin/end pairs and complete slices, host and device) and every instant that the
// stream decoder reads is in the Chrome JSON, Perfetto and XSpace exports with the same name,
// start and duration to the nanosecond, and the exports hold no other. Each export is decoded on
// its own terms (nlohmann for the JSON, libprotobuf for Perfetto and XSpace), never through the
// exporters' shared walk or against another export.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "core/files.h"
#include "export/proto/perfetto_trace.pb.h"
#include "format/proto/xplane.pb.h"
#include "test_util.h"
#include "trace_view.h"

namespace tt {
namespace {

using test::RunCmd;
using test::TempDir;
namespace fs = std::filesystem;
namespace pp = perfetto::protos;
namespace xp = tensorflow::profiler;

// (name, start in trace ns, duration in ns); an instant has duration 0.
using Timed = std::tuple<std::string, int64_t, int64_t>;
using Times = std::multiset<Timed>;

// What the reader decodes: slices paired from their begin and end in each stream (events in a
// stream are in time order and nest), complete slices (stamped at their end), instants.
struct ReaderTimes {
  Times slices, instants;
  int64_t clock_offset = 0;  // realtime - trace time, for the XSpace export's Unix times
};

ReaderTimes FromReader(const std::string& dir) {
  ReaderTimes r;
  test::TraceView v = test::LoadTrace(dir);
  EXPECT_TRUE(v.problems.empty()) << v.problems.front().ToString();
  EXPECT_EQ(v.procs.size(), 1u);
  for (const auto& p : v.procs) {
    r.clock_offset = p.meta.clock_offset_ns ? p.meta.clock_offset_ns : p.meta.offset_start_ns;
    std::map<std::string, std::vector<const test::Ev*>> open;  // per stream file
    for (const auto& e : p.events) {
      auto ts = static_cast<int64_t>(e.ts);
      switch (e.id) {
        case layout::kSliceBegin:
        case layout::kSliceBeginArgs:
          open[e.file].push_back(&e);
          break;
        case layout::kSliceEnd: {
          auto& stack = open[e.file];
          if (stack.empty()) {
            ADD_FAILURE() << "an end with no begin in " << e.file;
            break;
          }
          const test::Ev* b = stack.back();
          stack.pop_back();
          r.slices.insert({b->name, static_cast<int64_t>(b->ts), ts - static_cast<int64_t>(b->ts)});
          break;
        }
        case layout::kComplete:  // stamped at its end (docs/trace-format.md)
          r.slices.insert(
              {e.name, ts - static_cast<int64_t>(e.duration), static_cast<int64_t>(e.duration)});
          break;
        case layout::kInstant:
          r.instants.insert({e.name, ts, 0});
          break;
        default:
          break;
      }
    }
  }
  return r;
}

// Chrome trace-event JSON: "X" events (ts and dur in microseconds, three decimals) and "i"
// instants.
void FromChrome(const std::string& path, Times* slices, Times* instants) {
  auto j = nlohmann::json::parse(ReadFile(path));
  auto ns = [](const nlohmann::json& us) { return std::llround(us.get<double>() * 1000); };
  for (const auto& e : j["traceEvents"]) {
    std::string ph = e.value("ph", "");
    if (ph == "X")
      slices->insert({e["name"], ns(e["ts"]), ns(e["dur"])});
    else if (ph == "i" || ph == "I")
      instants->insert({e["name"], ns(e["ts"]), 0});
    else
      EXPECT_TRUE(ph == "M" || ph == "C" || ph == "s" || ph == "f" || ph == "t") << ph;
  }
}

// Perfetto: TrackEvent begin/end pairs per track, instants; names interned per sequence.
void FromPerfetto(const std::string& path, Times* slices, Times* instants) {
  pp::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(ReadFile(path)));
  std::map<uint32_t, std::map<uint64_t, std::string>> names;              // sequence -> iid -> name
  std::map<uint64_t, std::vector<std::pair<std::string, int64_t>>> open;  // per track
  for (const auto& p : trace.packet()) {
    uint32_t seq = p.trusted_packet_sequence_id();
    if (p.sequence_flags() & pp::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED) names[seq].clear();
    for (const auto& n : p.interned_data().event_names()) names[seq][n.iid()] = n.name();
    if (!p.has_track_event()) continue;
    const auto& e = p.track_event();
    std::string name = e.has_name_iid() ? names[seq][e.name_iid()] : e.name();
    auto ts = static_cast<int64_t>(p.timestamp());
    auto& stack = open[e.track_uuid()];
    if (e.type() == pp::TrackEvent::TYPE_SLICE_BEGIN) {
      stack.push_back({name, ts});
    } else if (e.type() == pp::TrackEvent::TYPE_SLICE_END) {
      ASSERT_FALSE(stack.empty());
      slices->insert({stack.back().first, stack.back().second, ts - stack.back().second});
      stack.pop_back();
    } else if (e.type() == pp::TrackEvent::TYPE_INSTANT) {
      instants->insert({name, ts, 0});
    }
  }
}

// XSpace: each line's events at line start + offset, in Unix time (the line's start is relative
// to the profile's start when earlier than it); back on the trace clock with its offset.
void FromXSpace(const std::string& logdir, int64_t clock_offset, Times* events) {
  std::string file;
  for (const auto& e : fs::recursive_directory_iterator(logdir))
    if (e.path().string().ends_with(".xplane.pb")) file = e.path();
  xp::XSpace s;
  ASSERT_TRUE(s.ParseFromString(ReadFile(file))) << file;
  int64_t base = 0;
  for (const auto& p : s.planes())
    if (p.name() == "Task Environment")
      for (const auto& st : p.stats())
        if (p.stat_metadata().at(st.metadata_id()).name() == "profile_start_time")
          base = static_cast<int64_t>(st.uint64_value());
  for (const auto& p : s.planes())
    for (const auto& l : p.lines()) {
      int64_t line_ns = l.timestamp_ns() < base ? l.timestamp_ns() + base : l.timestamp_ns();
      for (const auto& e : l.events()) {
        EXPECT_EQ(e.offset_ps() % 1000, 0);
        EXPECT_EQ(e.duration_ps() % 1000, 0);
        const auto& md = p.event_metadata().at(e.metadata_id());
        std::string name = md.name().rfind("Memcpy", 0) == 0 && !md.display_name().empty()
                               ? md.display_name()
                               : md.name();
        events->insert(
            {name, line_ns + e.offset_ps() / 1000 - clock_offset, e.duration_ps() / 1000});
      }
    }
}

// Where two sets differ, a few of each side's extras, for the failure message.
std::string Diff(const Times& want, const Times& got) {
  std::string s;
  auto show = [&](const Times& a, const Times& b, const char* what) {
    Times only;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(only, only.end()));
    s += std::to_string(only.size()) + " " + what + ":";
    int n = 0;
    for (const auto& [name, ts, dur] : only) {
      if (n++ == 5) break;
      s += " (" + name + " " + std::to_string(ts) + " +" + std::to_string(dur) + ")";
    }
    s += "\n";
  };
  show(want, got, "in the trace, not in the export");
  show(got, want, "in the export, not in the trace");
  return s;
}

class ExportTimes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    // Two threads, device kernels and copies, allocations (instants), varied durations.
    auto r = RunCmd({TT_SYNTHETIC, "4", "100", "2", "varied"}, {{"TENSORTRACE_DIR", dir_->path()}});
    ASSERT_EQ(r.status, 0) << r.err;
    out_ = new TempDir();
    for (const auto& [format, path] : {std::pair<std::string, std::string>{"chrome", "t.json"},
                                       {"perfetto", "t.pftrace"},
                                       {"xspace", "logs"}}) {
      auto e = RunCmd({TT_CLI, "export", dir_->path(), "--format", format, "-o", *out_ / path});
      ASSERT_EQ(e.status, 0) << e.err;
    }
    reader_ = new ReaderTimes(FromReader(dir_->path()));
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete out_;
    delete reader_;
  }
  static TempDir* dir_;
  static TempDir* out_;
  static ReaderTimes* reader_;
};
TempDir* ExportTimes::dir_ = nullptr;
TempDir* ExportTimes::out_ = nullptr;
ReaderTimes* ExportTimes::reader_ = nullptr;

TEST_F(ExportTimes, TheReaderSeesSlicesOnHostAndDevice) {
  // The comparisons below are only as good as what the trace holds.
  std::set<std::string> names;
  for (const auto& [name, ts, dur] : reader_->slices) names.insert(name);
  for (const char* n : {"step", "model/dense/MatMul:MatMul", "volta_sgemm_128x64_nn", "memcpy"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_GT(reader_->instants.size(), 0u);
}

TEST_F(ExportTimes, ChromeJsonHasTheReadersTimes) {
  Times slices, instants;
  FromChrome(*out_ / "t.json", &slices, &instants);
  EXPECT_TRUE(slices == reader_->slices) << Diff(reader_->slices, slices);
  EXPECT_TRUE(instants == reader_->instants) << Diff(reader_->instants, instants);
}

TEST_F(ExportTimes, PerfettoHasTheReadersTimes) {
  Times slices, instants;
  FromPerfetto(*out_ / "t.pftrace", &slices, &instants);
  EXPECT_TRUE(slices == reader_->slices) << Diff(reader_->slices, slices);
  EXPECT_TRUE(instants == reader_->instants) << Diff(reader_->instants, instants);
}

TEST_F(ExportTimes, XSpaceHasTheReadersTimes) {
  Times events, want = reader_->slices;
  want.insert(reader_->instants.begin(), reader_->instants.end());
  FromXSpace(*out_ / "logs", reader_->clock_offset, &events);
  EXPECT_TRUE(events == want) << Diff(want, events);
}

}  // namespace
}  // namespace tt
