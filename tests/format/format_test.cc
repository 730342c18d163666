// The CTF writer and reader on hand-built streams: every event kind, compact and extended
// timestamps, packets, and babeltrace2 as an outside reader.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <bit>
#include <cfloat>
#include <fstream>
#include <limits>
#include <vector>

#include "core/error.h"
#include "core/files.h"
#include "format/metadata.h"
#include "format/reader.h"
#include "format/writer.h"
#include "test_util.h"
#include "trace_view.h"

namespace tt {
namespace {

using namespace layout;

// Builds one stream file in memory, packet by packet.
class StreamBuilder {
 public:
  StreamBuilder(const Uuid& uuid, uint64_t packet_bytes, uint64_t start_ts,
                TrackKind kind = TrackKind::kThread)
      : uuid_(uuid), packet_bytes_(packet_bytes), last_ts_(start_ts), kind_(kind) {
    NewPacket();
  }
  // Appends an event: `fill` writes the payload after the header.
  template <typename F>
  void Add(uint8_t id, uint64_t ts, uint64_t payload, F fill) {
    if (pos_ + payload + kMaxHeader > packet_bytes_) NewPacket();
    uint8_t* base = data_.data() + packet_start_;
    uint8_t* p = PutHeader(base + pos_, id, ts, last_ts_);
    p = fill(p);
    Commit(base, p, ts);
    pos_ = static_cast<uint64_t>(p - base);
    last_ts_ = ts;
    ++events_;
  }
  void Save(const std::string& path) const {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(data_.data()), static_cast<long>(data_.size()));
  }
  size_t events() const { return events_; }
  size_t packets() const { return seq_; }
  std::vector<uint8_t>& data() { return data_; }

 private:
  void NewPacket() {
    packet_start_ = data_.size();
    data_.resize(data_.size() + packet_bytes_);
    PacketInfo info;
    info.uuid = uuid_;
    info.stream_instance = 7 + static_cast<uint64_t>(kind_);
    info.seq = seq_++;
    info.ts_begin = last_ts_;
    info.track_id = 4242;
    info.pid = 4242;
    info.kind = kind_;
    InitPacket(data_.data() + packet_start_, packet_bytes_, info);
    pos_ = kPacketHeaderSize;
  }
  Uuid uuid_;
  uint64_t packet_bytes_;
  uint64_t last_ts_;
  TrackKind kind_;
  std::vector<uint8_t> data_;
  uint64_t packet_start_ = 0, pos_ = 0, seq_ = 0;
  size_t events_ = 0;
};

ProcessMeta TestMeta() {
  ProcessMeta m;
  m.trace_uuid = RandomUuid();
  m.clock_uuid = BootId();
  m.clock_offset_ns = 1700000000000000000;
  m.pid = 4242;
  m.ppid = 1;
  m.hostname = "testhost";
  m.cmdline = "prog --flag \"quoted\" back\\slash";
  m.session = "s";
  m.start_realtime_ns = 1700000000000000123;
  m.offset_start_ns = 1700000000000000000;
  m.end_state = "exited";
  return m;
}

// Writes every event kind; returns the builder so tests can count or damage it.
StreamBuilder AllKinds(const ProcessMeta& m, uint64_t packet_bytes) {
  StreamBuilder b(m.trace_uuid, packet_bytes, 1000);
  uint64_t ts = 1000;
  b.Add(kStringDef, ts, 4 + 5, [](uint8_t* p) { return PutStr(PutU32(p, 1), "conv", 4); });
  b.Add(kStringDef, ts, 4 + 6, [](uint8_t* p) { return PutStr(PutU32(p, 2), "shape", 5); });
  b.Add(kThreadName, ts += 10, 5, [](uint8_t* p) { return PutStr(p, "main", 4); });
  b.Add(kSliceBegin, ts += 10, 5, [](uint8_t* p) {
    return PutU8(PutU32(p, 1), static_cast<uint8_t>(Category::kFrameworkOp));
  });
  b.Add(kSliceEnd, ts += 10, 0, [](uint8_t* p) { return p; });
  Arg args[3];
  args[0].key = 2;
  args[0].type = ArgType::kInt;
  args[0].v.i = -42;
  args[1].key = 2;
  args[1].type = ArgType::kFloat;
  args[1].v.f = 2.5;
  args[2].key = 2;
  args[2].type = ArgType::kString;
  args[2].v.str = 1;
  b.Add(kSliceBeginArgs, ts += 10, 5 + ArgsSize(args, 3),
        [&](uint8_t* p) { return PutArgs(PutU8(PutU32(p, 1), 0), args, 3); });
  b.Add(kSliceEnd, ts += 10, 0, [](uint8_t* p) { return p; });
  b.Add(kComplete, ts += 10, 13 + ArgsSize(args, 1), [&](uint8_t* p) {
    p = PutU8(PutU32(p, 1), static_cast<uint8_t>(Category::kGpuKernel));
    return PutArgs(PutU64(p, 5), args, 1);
  });
  b.Add(kInstant, ts += 10, 5 + ArgsSize(args, 2),
        [&](uint8_t* p) { return PutArgs(PutU8(PutU32(p, 1), 0), args, 2); });
  b.Add(kCounter, ts += 10, 13, [](uint8_t* p) { return PutF64(PutU8(PutU32(p, 1), 7), 1.5); });
  b.Add(kFlow, ts += 10, 9, [](uint8_t* p) { return PutU8(PutU64(p, 99), 2); });
  b.Add(kClockOffset, ts += 10, 9 + 8, [](uint8_t* p) {
    p = PutStr(p, "realtime", 8);
    Store<int64_t>(p, -5);
    return p + 8;
  });
  b.Add(kDropSummary, ts += 10, 2 + 8, [](uint8_t* p) { return PutU64(PutStr(p, "x", 1), 3); });
  b.Add(kNote, ts += 10, 1 + 4 + 3,
        [](uint8_t* p) { return PutStr(PutStr(PutU8(p, 1), "src", 3), "hi", 2); });
  b.Add(kSource, ts += 10, 4 + 3, [](uint8_t* p) { return PutStr(PutStr(p, "itt", 3), "v1", 2); });
  // A gap of more than 2^32 ns needs the extended header.
  b.Add(kSliceBegin, ts += (uint64_t{5} << 32), 5,
        [](uint8_t* p) { return PutU8(PutU32(p, 1), 0); });
  b.Add(kSliceEnd, ts += 1, 0, [](uint8_t* p) { return p; });
  return b;
}

std::string WriteTrace(const test::TempDir& dir, const ProcessMeta& m, StreamBuilder& b) {
  std::string pdir = dir / "p4242";
  mkdir(pdir.c_str(), 0755);
  WriteFileAtomic(pdir + "/metadata", GenerateMetadata(m));
  b.Save(pdir + "/t4242");
  return pdir;
}

TEST(Format, MetadataRoundTrip) {
  ProcessMeta m = TestMeta();
  ProcessMeta back = ParseMetadata(GenerateMetadata(m), "metadata");
  EXPECT_EQ(back.trace_uuid, m.trace_uuid);
  EXPECT_EQ(back.clock_uuid, m.clock_uuid);
  EXPECT_EQ(back.clock_offset_ns, m.clock_offset_ns);
  EXPECT_EQ(back.pid, 4242);
  EXPECT_EQ(back.cmdline, m.cmdline);
  EXPECT_EQ(back.start_realtime_ns, m.start_realtime_ns);
  EXPECT_EQ(back.end_state, "exited");
  EXPECT_EQ(back.cpus, 0u) << "not known: left out";
  m.cpus = 6;
  EXPECT_EQ(ParseMetadata(GenerateMetadata(m), "metadata").cpus, 6u);
  EXPECT_EQ(back.job, "") << "no launcher named the job: left out";
  EXPECT_EQ(GenerateMetadata(m).find("job ="), std::string::npos);
  m.job = "torchrun=3f2a rendezvous=127.0.0.1:29500";
  EXPECT_EQ(ParseMetadata(GenerateMetadata(m), "metadata").job, m.job);
}

TEST(Format, NegativeClockOffsetRoundTrip) {
  ProcessMeta m = TestMeta();
  m.clock_offset_ns = -1500000001;
  EXPECT_EQ(ParseMetadata(GenerateMetadata(m), "m").clock_offset_ns, -1500000001);
}

TEST(Format, EveryEventKindDecodes) {
  test::TempDir dir;
  ProcessMeta m = TestMeta();
  StreamBuilder b = AllKinds(m, 4096);
  WriteTrace(dir, m, b);
  test::TraceView v = test::LoadTrace(dir.path());
  ASSERT_TRUE(v.problems.empty()) << v.problems[0].ToString();
  ASSERT_EQ(v.procs.size(), 1u);
  const auto& ev = v.procs[0].events;
  ASSERT_EQ(ev.size(), b.events());
  EXPECT_EQ(ev[2].name, "main");
  EXPECT_EQ(ev[3].name, "conv");
  EXPECT_EQ(ev[3].category, Category::kFrameworkOp);
  ASSERT_EQ(ev[5].args.size(), 3u);
  EXPECT_EQ(ev[5].args[0].v.i, -42);
  EXPECT_EQ(ev[5].args[1].v.f, 2.5);
  EXPECT_EQ(ev[5].args[2].v.str, 1u);
  EXPECT_EQ(ev[7].duration, 5u);
  EXPECT_EQ(ev[7].category, Category::kGpuKernel);
  EXPECT_EQ(ev[9].value, 1.5);
  EXPECT_EQ(ev[10].u64, 99u);
  EXPECT_EQ(ev[12].u64, 3u);
  // Timestamps survive the 32-bit compact header and the extended one.
  EXPECT_EQ(ev[15].ts, ev[14].ts + (uint64_t{5} << 32));
  EXPECT_EQ(ev[16].ts, ev[15].ts + 1);
  for (size_t i = 1; i < ev.size(); ++i) EXPECT_GE(ev[i].ts, ev[i - 1].ts);
}

TEST(Format, CompactTimestampsWrapCorrectly) {
  // Steps just under 2^32 ns, crossing many 32-bit wraps, all in compact headers.
  test::TempDir dir;
  ProcessMeta m = TestMeta();
  StreamBuilder b(m.trace_uuid, 4096, 0xfffffff0);
  std::vector<uint64_t> stamps;
  uint64_t ts = 0xfffffff0;
  for (int i = 0; i < 50; ++i) {
    ts += (uint64_t{1} << 32) - 1 - static_cast<uint64_t>(i);
    stamps.push_back(ts);
    b.Add(kSliceEnd, ts, 0, [](uint8_t* p) { return p; });
  }
  WriteTrace(dir, m, b);
  test::TraceView v = test::LoadTrace(dir.path());
  ASSERT_EQ(v.procs[0].events.size(), stamps.size());
  for (size_t i = 0; i < stamps.size(); ++i) EXPECT_EQ(v.procs[0].events[i].ts, stamps[i]);
}

TEST(Format, ManyPacketsKeepOrderAndCount) {
  test::TempDir dir;
  ProcessMeta m = TestMeta();
  StreamBuilder b(m.trace_uuid, 512, 100);
  for (uint64_t i = 0; i < 5000; ++i)
    b.Add(kCounter, 100 + i * 3, 13,
          [i](uint8_t* p) { return PutF64(PutU8(PutU32(p, 0), 0), static_cast<double>(i)); });
  EXPECT_GT(b.packets(), 100u);
  WriteTrace(dir, m, b);
  test::TraceView v = test::LoadTrace(dir.path());
  ASSERT_TRUE(v.problems.empty());
  ASSERT_EQ(v.procs[0].events.size(), 5000u);
  for (uint64_t i = 0; i < 5000; ++i) {
    EXPECT_EQ(v.procs[0].events[i].value, static_cast<double>(i));
    EXPECT_EQ(v.procs[0].events[i].ts, 100 + i * 3);
  }
}

TEST(Format, BabeltraceReadsEveryEventKind) {
  if (!test::HaveBabeltrace()) GTEST_SKIP() << "babeltrace2 not installed";
  test::TempDir dir;
  ProcessMeta m = TestMeta();
  StreamBuilder b = AllKinds(m, 1024);
  WriteTrace(dir, m, b);
  auto r = test::RunCmd({"babeltrace2", dir.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(test::CountLines(r.out), b.events());
  // Fields and names are shown: the argument variant, a string def, the flow phase.
  EXPECT_NE(r.out.find("value = \"conv\""), std::string::npos);
  EXPECT_NE(r.out.find("( \"i8\" : container = 4 ), value = { -42 }"), std::string::npos);
  EXPECT_NE(r.out.find("( \"f32\" : container = 8 ), value = { 2.5 }"), std::string::npos);
  EXPECT_NE(r.out.find("\"in\""), std::string::npos);
  EXPECT_NE(r.out.find("gpu_kernel"), std::string::npos);
}

// Each argument is stored at the narrowest width that gives back its exact value.
struct WidthCase {
  Arg arg;
  uint32_t value_bytes;    // on disk
  const char* babeltrace;  // how babeltrace2 shows it
};
std::vector<WidthCase> WidthCases() {
  auto make = [](ArgType t, uint64_t bits, uint32_t n, const char* bt) {
    Arg a;
    a.key = 2;
    a.type = t;
    a.v.u = bits;
    return WidthCase{a, n, bt};
  };
  auto i = [&](int64_t v, uint32_t n, const char* bt) {
    return make(ArgType::kInt, static_cast<uint64_t>(v), n, bt);
  };
  auto u = [&](uint64_t v, uint32_t n, const char* bt) { return make(ArgType::kUint, v, n, bt); };
  auto f = [&](double v, uint32_t n, const char* bt) {
    return make(ArgType::kFloat, std::bit_cast<uint64_t>(v), n, bt);
  };
  return {
      i(0, 1, "\"i8\" : container = 4 ), value = { 0 }"), i(-1, 1, "value = { -1 }"),
      i(127, 1, "value = { 127 }"), i(-128, 1, "\"i8\" : container = 4 ), value = { -128 }"),
      i(128, 2, "\"i16\" : container = 5 ), value = { 128 }"), i(-129, 2, "value = { -129 }"),
      i(32767, 2, "value = { 32767 }"), i(-32768, 2, "value = { -32768 }"),
      i(32768, 4, "value = { 32768 }"),
      i(-32769, 4, "\"i32\" : container = 6 ), value = { -32769 }"),
      i(INT32_MAX, 4, "value = { 2147483647 }"), i(INT32_MIN, 4, "value = { -2147483648 }"),
      i(int64_t{INT32_MIN} - 1, 8, "value = { -2147483649 }"),
      i(INT64_MAX, 8, "value = { 9223372036854775807 }"),
      i(int64_t{INT32_MAX} + 1, 8, "\"i64\" : container = 0 ), value = { 2147483648 }"),
      i(INT64_MIN, 8, "value = { -9223372036854775808 }"),
      u(UINT32_MAX, 4, "\"u32\" : container = 7 ), value = { 4294967295 }"),
      u(uint64_t{UINT32_MAX} + 1, 8, "\"u64\" : container = 1 ), value = { 4294967296 }"),
      u(UINT64_MAX, 8, "value = { 18446744073709551615 }"),
      f(-0.0, 4, "\"f32\" : container = 8 ), value = { -0"),
      f(0.1, 8, "\"f64\" : container = 2 ), value = { 0.1"), f(FLT_MAX, 4, "value = { 3.40282"),
      f(1e300, 8, "value = { 1e+300"), f(1e-310, 8, "value = { 1e-310"),
      f(3.5e38, 8, "value = { 3.5e+38"),  // past float's range: would become inf
      // Infinities and a NaN whose payload a float holds come back bit for bit from 4 bytes;
      // a NaN payload in the low bits, or a signalling NaN (quieted), needs 8.
      f(std::numeric_limits<double>::infinity(), 4, "value = { inf"),
      f(-std::numeric_limits<double>::infinity(), 4, "value = { -inf"),
      f(std::numeric_limits<double>::quiet_NaN(), 4, "value = { nan"),
      make(ArgType::kFloat, 0x7ff8000000000001ull, 8, "\"f64\" : container = 2 ), value = { nan"),
      make(ArgType::kFloat, 0x7ff4000000000000ull, 8, "value = { nan")};
}

TEST(Format, ArgumentsKeepTheirExactValuesAtTheirNarrowestWidth) {
  test::TempDir dir;
  ProcessMeta m = TestMeta();
  StreamBuilder b(m.trace_uuid, 4096, 1000);
  b.Add(kStringDef, 1000, 4 + 5, [](uint8_t* p) { return PutStr(PutU32(p, 2), "v", 1); });
  std::vector<WidthCase> cases = WidthCases();
  uint64_t ts = 1000;
  for (const WidthCase& c : cases)
    b.Add(kInstant, ++ts, 5 + ArgsSize(&c.arg, 1), [&](uint8_t* p) {
      uint8_t* end = PutArgs(PutU8(PutU32(p, 2), 0), &c.arg, 1);
      // name, category, count; then key, encoding, value.
      EXPECT_EQ(end - p, 6 + 5 + c.value_bytes) << c.babeltrace;
      return end;
    });
  WriteTrace(dir, m, b);
  test::TraceView v = test::LoadTrace(dir.path());
  ASSERT_TRUE(v.problems.empty()) << v.problems[0].ToString();
  const auto& ev = v.procs[0].events;
  ASSERT_EQ(ev.size(), cases.size() + 1);
  for (size_t k = 0; k < cases.size(); ++k) {
    ASSERT_EQ(ev[k + 1].args.size(), 1u);
    const Arg& got = ev[k + 1].args[0];
    EXPECT_EQ(got.type, cases[k].arg.type) << cases[k].babeltrace;
    EXPECT_EQ(got.v.u, cases[k].arg.v.u) << cases[k].babeltrace;  // bit for bit
  }
  if (!test::HaveBabeltrace()) GTEST_SKIP() << "babeltrace2 not installed";
  auto r = test::RunCmd({"babeltrace2", dir.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(test::CountLines(r.out), b.events());
  for (const WidthCase& c : cases)
    EXPECT_NE(r.out.find(c.babeltrace), std::string::npos) << c.babeltrace;
}

TEST(Format, BabeltraceReadsTheEnvironment) {
  if (!test::HaveBabeltrace()) GTEST_SKIP() << "babeltrace2 not installed";
  test::TempDir dir;
  ProcessMeta m = TestMeta();
  StreamBuilder b = AllKinds(m, 1024);
  WriteTrace(dir, m, b);
  auto r = test::RunCmd({"babeltrace2", "--output-format=ctf-metadata", dir / "p4242"});
  EXPECT_EQ(r.status, 0) << r.err;
  auto d = test::RunCmd({"babeltrace2", "-c", "sink.text.details", "-c", "src.ctf.fs",
                         "--params=inputs=[\"" + (dir / "p4242") + "\"]"});
  EXPECT_EQ(d.status, 0) << d.err;
  EXPECT_NE(d.out.find("hostname: testhost"), std::string::npos);
  EXPECT_NE(d.out.find("pid: 4242"), std::string::npos);
  EXPECT_NE(d.out.find("cmdline: prog --flag \"quoted\" back\\slash"), std::string::npos);
}

}  // namespace
}  // namespace tt

namespace tt {
namespace {

using namespace layout;

// An argument in one of layout 1's encodings (64-bit values, string ids), written by hand.
uint8_t* PutWideArg(uint8_t* p, uint32_t key, ArgWire w, uint64_t bits) {
  p = PutU8(PutU32(p, key), static_cast<uint8_t>(w));
  return PutU64(p, bits);
}

TEST(Format, OlderLayoutsStillRead) {
  for (uint32_t version : {1u, 2u}) {
    SCOPED_TRACE("layout " + std::to_string(version));
    test::TempDir dir;
    ProcessMeta m = TestMeta();
    m.layout_version = version;
    StreamBuilder b(m.trace_uuid, 4096, 1000);
    if (version == 2) b = AllKinds(m, 1024);
    const uint64_t t0 = uint64_t{6} << 32;  // after AllKinds' last event
    b.Add(kStringDef, t0, 4 + 5, [](uint8_t* p) { return PutStr(PutU32(p, 9), "old", 3); });
    b.Add(kInstant, t0 + 1, 6 + 2 * 13, [](uint8_t* p) {
      p = PutU8(PutU8(PutU32(p, 9), 0), 2);
      p = PutWideArg(p, 9, ArgWire::kI64, static_cast<uint64_t>(int64_t{-7}));
      return PutWideArg(p, 9, ArgWire::kF64, std::bit_cast<uint64_t>(0.75));
    });
    WriteTrace(dir, m, b);
    test::TraceView v = test::LoadTrace(dir.path());
    ASSERT_TRUE(v.problems.empty()) << v.problems[0].ToString();
    ASSERT_EQ(v.procs.size(), 1u);
    EXPECT_EQ(v.procs[0].meta.layout_version, version);
    ASSERT_EQ(v.procs[0].events.size(), b.events());
    const test::Ev& last = v.procs[0].events.back();
    ASSERT_EQ(last.args.size(), 2u);
    EXPECT_EQ(last.args[0].v.i, -7);
    EXPECT_EQ(last.args[1].v.f, 0.75);
    if (!test::HaveBabeltrace()) continue;
    auto r = test::RunCmd({"babeltrace2", dir.path()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(test::CountLines(r.out), b.events());
  }
}

// A process stream that defines class 16 (an instant named 1 with an i8 `key 2` and a string
// `key 1`), and a thread stream that uses it.
struct ClassTrace {
  test::TempDir dir;
  ProcessMeta meta = TestMeta();
  StreamBuilder proc{meta.trace_uuid, 4096, 1000, TrackKind::kProcess};
  StreamBuilder thread{meta.trace_uuid, 4096, 1000};
  ClassTrace(bool define) {
    proc.Add(kStringDef, 1000, 4 + 5, [](uint8_t* p) { return PutStr(PutU32(p, 1), "tick", 4); });
    proc.Add(kStringDef, 1000, 4 + 5, [](uint8_t* p) { return PutStr(PutU32(p, 2), "step", 4); });
    if (define)
      proc.Add(kEventClassDef, 1001, 9 + 10, [](uint8_t* p) {
        Store<uint16_t>(p, 16);
        p[2] = kInstant;
        Store<uint32_t>(p + 3, 1);
        p[7] = static_cast<uint8_t>(Category::kPython);
        p[8] = 2;
        p = PutU8(PutU32(p + 9, 2), static_cast<uint8_t>(ArgWire::kI8));
        return PutU8(PutU32(p, 2), static_cast<uint8_t>(ArgWire::kStr));
      });
    for (int i = 0; i < 3; ++i)
      thread.Add(16, 2000 + i, 5, [&](uint8_t* p) {
        *p = static_cast<uint8_t>(-i);
        return PutU32(p + 1, 1);
      });
    std::string pdir = dir / "p4242";
    mkdir(pdir.c_str(), 0755);
    proc.Save(pdir + "/proc4242");
    thread.Save(pdir + "/t4242");
    // The metadata declares what the process stream defines, as the runtime writes it at exit.
    WriteFileAtomic(pdir + "/metadata", GenerateMetadata(meta));
    meta = OpenTrace(dir.path()).processes.at(0).meta;
    WriteFileAtomic(pdir + "/metadata", GenerateMetadata(meta));
  }
};

TEST(Format, ClassEventsDecodeFromTheirDefinition) {
  ClassTrace t(true);
  ASSERT_EQ(t.meta.classes.size(), 1u);
  EXPECT_EQ(t.meta.classes[0].name_text, "tick");
  test::TraceView v = test::LoadTrace(t.dir.path());
  ASSERT_TRUE(v.problems.empty()) << v.problems[0].ToString();
  int n = 0;
  for (const test::Ev& e : v.procs.at(0).events) {
    if (e.id != kInstant) continue;
    EXPECT_EQ(e.name, "tick");
    EXPECT_EQ(e.category, Category::kPython);
    EXPECT_TRUE(e.classed);
    ASSERT_EQ(e.args.size(), 2u);
    EXPECT_EQ(e.args[0].v.i, -n);
    EXPECT_EQ(e.args[1].type, ArgType::kString);
    EXPECT_EQ(e.args[1].v.str, 1u);
    ++n;
  }
  EXPECT_EQ(n, 3);
  if (!test::HaveBabeltrace()) GTEST_SKIP() << "babeltrace2 not installed";
  auto r = test::RunCmd({"babeltrace2", t.dir.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("instant:tick: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{ step = -2, step_2 = 1 }"), std::string::npos) << r.out;
}

TEST(Format, AnUndefinedClassIsACorruptedEvent) {
  ClassTrace t(false);
  test::TraceView v = test::LoadTrace(t.dir.path());
  ASSERT_EQ(v.problems.size(), 1u);
  EXPECT_NE(v.problems[0].ToString().find("corrupted event (id 16)"), std::string::npos)
      << v.problems[0].ToString();
}

// babeltrace2 copies the names' enumeration into each field that uses it at a cost growing with
// the square of the names (a Keras fit's metadata took it 92 s): few names are declared in
// every name field, many in the fixed fields only, very many not at all; each parses back.
TEST(Format, NameEnumerationStaysWithinBabeltracesCopyBudget) {
  auto meta = [](size_t names, size_t classes) {
    ProcessMeta m = TestMeta();
    m.names.push_back("");
    for (size_t i = 1; i < names; ++i) m.names.push_back("op_" + std::to_string(i));
    for (size_t c = 0; c < classes; ++c) {
      EventClass k;
      k.id = static_cast<uint16_t>(layout::kFirstClassId + c);
      k.kind = layout::kInstant;
      k.nargs = 1;
      k.shape[4] = static_cast<uint8_t>(layout::ArgWire::kStr);
      k.name_text = "c" + std::to_string(c);
      k.key_texts = {"op_type"};
      m.classes.push_back(k);
    }
    return m;
  };
  std::string few = GenerateMetadata(meta(200, 200));
  EXPECT_NE(few.find("enum name_t name;"), std::string::npos);
  EXPECT_NE(few.find("enum name_t _op_type;"), std::string::npos);
  std::string many = GenerateMetadata(meta(4000, 200));
  EXPECT_NE(many.find("enum name_t name;"), std::string::npos);
  EXPECT_NE(many.find("uint32_t _op_type;"), std::string::npos);
  EXPECT_EQ(many.find("enum name_t _op_type;"), std::string::npos);
  std::string very_many = GenerateMetadata(meta(20000, 200));
  EXPECT_EQ(very_many.find("enum name_t"), std::string::npos);
  for (const std::string* text : {&few, &many, &very_many})
    EXPECT_EQ(ParseMetadata(*text, "m").pid, 4242);
  if (!test::HaveBabeltrace()) return;
  test::TempDir dir;
  ProcessMeta m = meta(4000, 200);
  StreamBuilder b = AllKinds(m, 4096);
  WriteTrace(dir, m, b);
  auto bt = test::RunCmd({"babeltrace2", dir.path()}, {}, 120);
  EXPECT_EQ(bt.status, 0) << bt.err.substr(0, 2000);
}

TEST(Format, MetadataTakesOnlyClassDeclarationsAfterTheFixedOnes) {
  ProcessMeta m = TestMeta();
  EXPECT_NO_THROW(ParseMetadata(GenerateMetadata(m) + "event { id = 16; name = \"x\"; };\n", "m"));
  try {
    ParseMetadata(GenerateMetadata(m) + "stream { id = 1; };\n", "m");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unexpected text after the event declarations"),
              std::string::npos)
        << e.what();
  }
  m.layout_version = 2;  // classes came with layout 3
  EXPECT_THROW(ParseMetadata(GenerateMetadata(m) + "event { id = 16; name = \"x\"; };\n", "m"),
               Error);
}

// The process's names as an enumeration that every name field uses (babeltrace2 then shows
// them as text); our parser takes the metadata back, and a name that cannot be a label (empty,
// a control character, invalid UTF-8) is left out and stays a number.
TEST(Format, MetadataDeclaresNamesAsAnEnumeration) {
  ProcessMeta m = TestMeta();
  m.names = {"", "EagerExecute", "a \"quoted\" name", "bad\x01", "\xff\xfe", "dense/MatMul:MatMul"};
  std::string text = GenerateMetadata(m);
  EXPECT_NE(text.find("enum name_t : uint32_t {\n  \"EagerExecute\" = 1,\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"a \\\"quoted\\\" name\" = 2,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"dense/MatMul:MatMul\" = 5\n};"), std::string::npos) << text;
  EXPECT_EQ(text.find("\"bad"), std::string::npos) << text;
  EXPECT_EQ(text.find("\xff"), std::string::npos) << text;
  EXPECT_NE(text.find("enum name_t name; enum category_t category; uint8_t nargs;"),
            std::string::npos);
  EXPECT_NE(text.find("enum name_t key;"), std::string::npos);
  EXPECT_NE(text.find("enum name_t str;"), std::string::npos);
  ProcessMeta back = ParseMetadata(text, "m");
  EXPECT_EQ(back.pid, m.pid);
  EXPECT_TRUE(back.names.empty());  // names come from the process streams
  // Without names the declarations are the plain ones, as before.
  m.names.clear();
  EXPECT_EQ(GenerateMetadata(m).find("name_t"), std::string::npos);
}

}  // namespace
}  // namespace tt
