#include "format/import/xspace/import.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "core/error.h"
#include "core/files.h"
#include "core/time.h"
#include "format/import/xspace/classify.h"
#include "format/import/xspace/clock.h"
#include "format/keys.h"
#include "format/name_space.h"
#include "format/proto/xplane.pb.h"
#include "format/reader.h"
#include "format/slice_order.h"
#include "format/stream_file.h"

namespace tt {

using layout::ArgType;
using layout::Category;
namespace xp = tensorflow::profiler;

std::vector<std::string> FindXSpaceFiles(const std::string& logdir) {
  std::vector<std::string> out;
  std::string profile = logdir + "/plugins/profile";
  if (!IsDirectory(profile)) return out;
  for (const auto& run : ListDirectory(profile)) {
    std::string rd = profile + "/" + run;
    if (!IsDirectory(rd)) continue;
    for (const auto& f : ListDirectory(rd)) {
      const std::string suffix = ".xplane.pb";
      if (f.size() > suffix.size() &&
          f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0)
        out.push_back(rd + "/" + f);
    }
  }
  return out;
}

namespace {

// The process trace the imported streams join, and what its streams already hold.
struct Target {
  ProcessTrace proc;
  NameSpace names;
  ClassSpace classes{{}};  // set from the process's classes when loaded
  RealtimeToTrace clock;
  uint64_t instance = 0;  // highest stream instance id in use
  // Events must start within a year of the process's start: times beyond are damage, and
  // near the int64 limit they would overflow CTF readers' clock arithmetic.
  uint64_t earliest = 0, latest = 0;
  std::unordered_map<int64_t, uint64_t> tid_of_hash;  // from the metadata's thread_hashes
};

constexpr uint64_t kYearNs = 366ull * 24 * 3600 * kNsPerSec;

void LoadTarget(Target* t) {
  std::vector<Problem> ignored;  // damage is the reader's to report, later
  std::string_view hashes = t->proc.meta.thread_hashes;
  while (!hashes.empty()) {
    size_t comma = std::min(hashes.find(','), hashes.size());
    std::string_view kv = hashes.substr(0, comma);
    size_t eq = kv.find('=');
    int64_t hash = 0;
    uint64_t tid = 0;
    if (eq != std::string_view::npos &&
        std::from_chars(kv.data(), kv.data() + eq, hash).ec == std::errc() &&
        std::from_chars(kv.data() + eq + 1, kv.data() + kv.size(), tid).ec == std::errc())
      t->tid_of_hash[hash] = tid;
    hashes.remove_prefix(std::min(comma + 1, hashes.size()));
  }
  for (const auto& file : t->proc.streams) {
    StreamDecoder dec(file, t->proc.meta, &ignored);
    RawEvent ev;
    bool first = true;
    while (dec.Next(&ev)) {
      if (first) t->instance = std::max(t->instance, dec.header().instance);
      first = false;
      if (ev.id == layout::kStringDef) {
        t->names.Define(ev.name, ev.s1);
      } else if (ev.id == layout::kClockOffset && ev.s1 == "realtime") {
        t->clock.AddPoint(ev.ts, ev.i64);
      } else if (dec.header().kind != layout::TrackKind::kProcess) {
        break;  // names and offsets are in the process streams (and before a thread's events)
      }
    }
  }
  if (t->clock.empty()) t->clock.AddPoint(0, t->proc.meta.offset_start_ns);
  t->classes = ClassSpace(t->proc.meta.classes, t->proc.meta.layout_version >= 3);
  const ProcessMeta& m = t->proc.meta;
  uint64_t start = m.start_realtime_ns - static_cast<uint64_t>(m.offset_start_ns);
  t->earliest = start > kYearNs ? start - kYearNs : 0;
  t->latest = start + kYearNs;
}

// A path in dir not taken yet, nor `reserved` (streams still being written) when given.
std::string UniquePath(const std::string& dir, const std::string& base,
                       std::set<std::string>* reserved = nullptr) {
  std::string p = dir + "/" + base;
  for (int k = 1; PathExists(p) || (reserved && reserved->count(p)); ++k)
    p = dir + "/" + base + "." + std::to_string(k);
  if (reserved) reserved->insert(p);
  return p;
}

void PutThreadName(StreamFileWriter& w, uint64_t ts, const std::string& name) {
  w.Event(layout::kThreadName, ts, name.size() + 1,
          [&](uint8_t* p) { return PutStr(p, name.data(), name.size()); });
}

// What the files of one import share: one stream per thread (or device line) and per
// allocator, whatever the number of capture windows (files) its events came in, written at
// the end. Windows are imported in time order, so each stream stays in time order.
struct SharedStreams {
  std::map<std::tuple<bool, uint32_t, int64_t, std::string>, StreamFileWriter> lines;
  std::map<std::string, std::vector<std::pair<uint64_t, double>>> allocators;
  std::set<std::string> paths;  // of the streams above, until they are written
};

class SpaceImporter {
 public:
  SpaceImporter(Target* t, const std::string& file, const std::optional<XSpaceStepFilter>& steps,
                SharedStreams* shared, XSpaceImport* out)
      : t_(t), file_(file), steps_(steps), shared_(shared), out_(out) {}

  void Import(const xp::XSpace& space) {
    // Newer profilers store line times relative to the session start (Task Environment).
    int64_t base = 0, stop = 0;
    for (const auto& plane : space.planes()) {
      if (plane.name() != "Task Environment") continue;
      for (const auto& s : plane.stats()) {
        auto it = plane.stat_metadata().find(s.metadata_id());
        if (it == plane.stat_metadata().end()) continue;
        int64_t v = static_cast<int64_t>(s.uint64_value() ? s.uint64_value() : s.int64_value());
        if (it->second.name() == keys::xstat::kProfileStartTime) base = v;
        if (it->second.name() == keys::xstat::kProfileStopTime) stop = v;
      }
    }
    first_ = UINT64_MAX;
    last_ = 0;
    if (steps_) FindKeptSteps(space, base);
    for (const auto& plane : space.planes()) {
      bool device = plane.name().rfind("/device:", 0) == 0;
      uint32_t device_index = 0;
      if (device) {
        const std::string& n = plane.name();
        size_t c = n.rfind(':');
        std::from_chars(n.data() + c + 1, n.data() + n.size(), device_index);
      }
      for (const auto& line : plane.lines())
        if (line.events_size() > 0) ImportLine(plane, line, device, device_index, base);
    }
    for (const auto& e : space.errors()) out_->errors.push_back(file_ + ": profiler error: " + e);
    // The window this file covers (record's info reports the gaps between windows).
    if (base > 0 && stop > base)
      out_->windows.emplace_back(t_->clock.Convert(base), t_->clock.Convert(stop));
    else if (first_ <= last_)
      out_->windows.emplace_back(first_, last_);
    else
      out_->windows.emplace_back(0, 0);
  }

  void FinishAllocators() {
    uint32_t key = Name(keys::kBytesInUse);
    for (auto& [alloc, samples] : shared_->allocators) {
      std::stable_sort(samples.begin(), samples.end());
      StreamFileWriter w = NewStream("xa", 0, layout::TrackKind::kImported);
      PutThreadName(w, samples.front().first, "allocator " + alloc);
      for (const auto& [ts, v] : samples)
        PutNamedEvent(w, &t_->classes, layout::kCounter, ts, key, Category::kAllocation,
                      std::bit_cast<uint64_t>(v), nullptr, 0);
      w.Finish();
      out_->tracks++;
    }
    shared_->allocators.clear();
  }

  // Writes the streams of every line (after the last file).
  void FinishLines() {
    for (auto& [key, w] : shared_->lines) {
      w.Finish();
      out_->tracks++;
    }
    shared_->lines.clear();
  }

 private:
  uint32_t Name(std::string_view s) {
    uint32_t id = t_->names.Intern(s);
    if (!id) lost_names_++;
    return id;
  }

  // `track` 0: a made-up id (2^31 + the stream instance) for lines that are no thread, kept
  // below 2^32 so that JSON exporters and viewers take it as a tid.
  StreamFileWriter NewStream(const char* prefix, uint64_t track, layout::TrackKind kind) {
    PacketInfo info;
    info.uuid = t_->proc.meta.trace_uuid;
    info.stream_instance = ++t_->instance;
    if (track == 0) track = (uint64_t{1} << 31) + info.stream_instance;
    info.kind = kind;
    info.track_id = track;
    info.pid = static_cast<uint32_t>(t_->proc.meta.pid);
    return StreamFileWriter(
        UniquePath(t_->proc.dir, prefix + std::to_string(track), &shared_->paths), info);
  }

  void AddArg(std::vector<Arg>* args, std::string_view key, const XStatValue& v) {
    if (args->size() - arg_begin_ >= 255) return;  // nargs is one byte
    Arg a;
    a.key = Name(key);
    if (!a.key) return;
    switch (v.type) {
      case XStatValue::kInt:
        a.type = ArgType::kInt;
        a.v.i = v.i;
        break;
      case XStatValue::kUint:
        a.type = ArgType::kUint;
        a.v.u = v.u;
        break;
      case XStatValue::kFloat:
        a.type = ArgType::kFloat;
        a.v.f = v.f;
        break;
      case XStatValue::kString:
        a.type = ArgType::kString;
        a.v.str = Name(v.s);
        if (!a.v.str) return;
        break;
      case XStatValue::kBytes:
        return;  // opaque (serialised protos); not an argument
    }
    args->push_back(a);
  }
  void AddStr(std::vector<Arg>* args, std::string_view key, std::string_view value) {
    XStatValue v;
    v.type = XStatValue::kString;
    v.s = value;
    AddArg(args, key, v);
  }

  void Resolve(const xp::XPlane& plane, const google::protobuf::RepeatedPtrField<xp::XStat>& in,
               std::vector<XStatValue>* out) {
    for (const auto& s : in) {
      auto md = plane.stat_metadata().find(s.metadata_id());
      if (md == plane.stat_metadata().end()) continue;
      XStatValue v;
      v.key = md->second.name();
      switch (s.value_case()) {
        case xp::XStat::kInt64Value:
          v.type = XStatValue::kInt;
          v.i = s.int64_value();
          break;
        case xp::XStat::kUint64Value:
          v.type = XStatValue::kUint;
          v.u = s.uint64_value();
          break;
        case xp::XStat::kDoubleValue:
          v.type = XStatValue::kFloat;
          v.f = s.double_value();
          break;
        case xp::XStat::kStrValue:
          v.type = XStatValue::kString;
          v.s = s.str_value();
          break;
        case xp::XStat::kRefValue: {
          auto ref = plane.stat_metadata().find(static_cast<int64_t>(s.ref_value()));
          if (ref == plane.stat_metadata().end()) continue;
          v.type = XStatValue::kString;
          v.s = ref->second.name();
          break;
        }
        case xp::XStat::kBytesValue:
          v.type = XStatValue::kBytes;
          v.s = s.bytes_value();
          break;
        default:
          continue;
      }
      out->push_back(v);
    }
  }

  // A time of a line's event on the trace clock. Rounding the ends (not the durations) down
  // keeps children inside their parents; wide arithmetic and clamping keep absurd times (a
  // damaged file) from overflowing.
  uint64_t At(__int128 line_ns, __int128 ps) const {
    __int128 ns = line_ns + ps / 1000;
    return t_->clock.Convert(static_cast<int64_t>(std::clamp<__int128>(ns, 0, INT64_MAX)));
  }
  static __int128 LineStart(const xp::XLine& line, int64_t base) {
    __int128 line_ns = line.timestamp_ns();
    if (base > 0 && line_ns < base) line_ns += base;
    return line_ns;
  }

  // record --steps A:B: the time windows of the kept (numbered) step markers of this file,
  // on every host line. A file whose steps carry no number keeps everything (only its
  // numbered markers would be filtered).
  void FindKeptSteps(const xp::XSpace& space, int64_t base) {
    kept_.clear();
    numbered_ = false;
    std::vector<XStatValue> stats;
    for (const auto& plane : space.planes()) {
      if (plane.name().rfind("/device:", 0) == 0) continue;
      for (const auto& line : plane.lines()) {
        const std::string& ln = line.display_name().empty() ? line.name() : line.display_name();
        for (const auto& ev : line.events()) {
          auto md = plane.event_metadata().find(ev.metadata_id());
          if (md == plane.event_metadata().end()) continue;
          std::string_view name = md->second.name();
          stats.clear();
          Resolve(plane, md->second.stats(), &stats);
          Resolve(plane, ev.stats(), &stats);
          SplitTraceMeName(&name, &stats);
          XEventKind k = ClassifyXEvent(PlaneKind::kHost, ln, name, stats);
          if (!k.step || k.step_number < 0) continue;
          numbered_ = true;
          if (k.step_number < steps_->first || k.step_number > steps_->last) continue;
          __int128 line_ns = LineStart(line, base);
          kept_.push_back({At(line_ns, ev.offset_ps()),
                           At(line_ns, ev.offset_ps() + std::max<int64_t>(ev.duration_ps(), 0))});
        }
      }
    }
    std::sort(kept_.begin(), kept_.end());
  }
  // Whether an event starting at `start` stays under the step filter: inside a kept step, or
  // an allocation (bytes in use need every one), or no numbered step to filter by.
  bool KeptByStepFilter(const XEventKind& k, uint64_t start) const {
    if (!steps_ || !numbered_ || k.category == Category::kAllocation) return true;
    auto it = std::upper_bound(kept_.begin(), kept_.end(), std::make_pair(start, UINT64_MAX));
    return it != kept_.begin() && start <= std::prev(it)->second;
  }

  void ImportLine(const xp::XPlane& plane, const xp::XLine& line, bool device,
                  uint32_t device_index, int64_t base) {
    const std::string& line_name = line.display_name().empty() ? line.name() : line.display_name();
    __int128 line_ns = LineStart(line, base);
    PlaneKind pk = device ? PlaneKind::kDevice : PlaneKind::kHost;
    std::vector<LineEvent> items;
    std::vector<Arg> args;  // every item's arguments, one after the other
    std::vector<XStatValue> stats;
    for (const auto& ev : line.events()) {
      if (ev.data_case() == xp::XEvent::kNumOccurrences) continue;  // aggregated, no time
      auto md = plane.event_metadata().find(ev.metadata_id());
      std::string_view name = md != plane.event_metadata().end()
                                  ? std::string_view(md->second.name())
                                  : std::string_view();
      if (name.empty()) name = "(unnamed XSpace event)";
      stats.clear();
      if (md != plane.event_metadata().end()) Resolve(plane, md->second.stats(), &stats);
      Resolve(plane, ev.stats(), &stats);
      SplitTraceMeName(&name, &stats);
      XEventKind k = ClassifyXEvent(pk, line_name, name, stats);
      if (k.step && steps_ && k.step_number >= 0 &&
          (k.step_number < steps_->first || k.step_number > steps_->last))
        continue;
      LineEvent it;
      __int128 off = ev.offset_ps(), dur = std::max<int64_t>(ev.duration_ps(), 0);
      it.start = At(line_ns, off);
      it.end = k.instant ? it.start : At(line_ns, off + dur);
      if (!KeptByStepFilter(k, it.start)) continue;
      if (it.start < t_->earliest || it.start > t_->latest) {
        out_of_time_++;
        continue;
      }
      it.end = std::min(it.end, t_->latest);
      it.name = Name(name);
      if (!it.name) continue;
      it.category = k.category;
      it.instant = k.instant;
      it.args = arg_begin_ = args.size();
      if (k.op) {
        AddStr(&args, keys::kOpName, k.op_name);
        AddStr(&args, keys::kOpType, k.op_type);
      }
      if (k.step && k.step_number >= 0) {
        XStatValue v;
        v.i = k.step_number;
        AddArg(&args, keys::kStep, v);
      }
      if (k.instant) {  // the names our memory analysis reads
        int64_t n;
        if (StatInt(stats, keys::xstat::kAllocationBytes, &n) ||
            StatInt(stats, keys::xstat::kRequestedBytes, &n)) {
          XStatValue v;
          v.i = n;
          AddArg(&args, keys::kBytes, v);
        }
        if (StatInt(stats, keys::xstat::kAddr, &n)) {
          XStatValue v;
          v.type = XStatValue::kUint;
          v.u = static_cast<uint64_t>(n);
          AddArg(&args, keys::kAddr, v);
        }
        if (const XStatValue* op = FindStat(stats, keys::xstat::kTfOp);
            op && op->type == XStatValue::kString)
          AddStr(&args, keys::kOp, op->s);
        const XStatValue* alloc = FindStat(stats, keys::xstat::kAllocatorName);
        if (StatInt(stats, keys::xstat::kBytesAllocated, &n) && alloc &&
            alloc->type == XStatValue::kString)
          shared_->allocators[std::string(alloc->s)].emplace_back(it.start, static_cast<double>(n));
      }
      for (const auto& s : stats) AddArg(&args, s.key, s);
      if (md != plane.event_metadata().end() && !md->second.display_name().empty() &&
          md->second.display_name() != md->second.name())
        AddStr(&args, keys::kDisplayName, md->second.display_name());
      if (k.step) out_->steps++;
      first_ = std::min(first_, it.start);
      last_ = std::max(last_, it.end);
      it.nargs = static_cast<uint32_t>(args.size() - it.args);
      items.push_back(it);
    }
    if (items.empty()) return;
    uint64_t track;
    layout::TrackKind kind;
    if (device) {
      kind = layout::TrackKind::kDevice;
      track = (uint64_t{device_index} << 32) | static_cast<uint32_t>(line.id());
    } else {
      kind = layout::TrackKind::kImported;
      // Host lines of real threads carry the tid (at most pid_max, 2^22), or (TensorFlow 2.2x)
      // std::hash of the thread's id, which the runtime kept for the threads it traced; others
      // get a made-up id.
      track = line.id() > 0 && line.id() <= (1 << 22) ? static_cast<uint64_t>(line.id()) : 0;
      if (auto it = t_->tid_of_hash.find(line.id()); !track && it != t_->tid_of_hash.end())
        track = it->second;
    }
    // The same thread in a later window (file) continues its stream.
    auto key = std::make_tuple(device, device_index, line.id(), line_name);
    auto at = shared_->lines.find(key);
    if (at == shared_->lines.end()) {
      at = shared_->lines.emplace(key, NewStream(device ? "xd" : "x", track, kind)).first;
      uint64_t first = UINT64_MAX;
      for (const auto& it : items) first = std::min(first, it.start);
      PutThreadName(at->second, first, line_name);
    }
    WriteLineEvents(at->second, items, args, &t_->classes);
    out_->events += items.size();
  }

 public:
  uint64_t lost_names_ = 0;
  uint64_t out_of_time_ = 0;  // events dropped for times far from the process's lifetime

 private:
  Target* t_;
  std::string file_;
  const std::optional<XSpaceStepFilter>& steps_;
  SharedStreams* shared_;
  XSpaceImport* out_;
  size_t arg_begin_ = 0;                             // where the current item's arguments start
  std::vector<std::pair<uint64_t, uint64_t>> kept_;  // kept steps' windows (FindKeptSteps)
  bool numbered_ = false;                            // the file has numbered step markers
  uint64_t first_ = UINT64_MAX, last_ = 0;           // the file's imported events' extent
};

// The process stream of the import: where the data came from, the XSpace clock's offset,
// the new names, and notes for what could not be imported.
void WriteImportStream(Target* t, const std::vector<std::string>& files, int64_t xspace_offset,
                       const std::vector<std::string>& errors) {
  PacketInfo info;
  info.uuid = t->proc.meta.trace_uuid;
  info.stream_instance = ++t->instance;
  info.kind = layout::TrackKind::kProcess;
  info.track_id = static_cast<uint64_t>(t->proc.meta.pid);
  info.pid = static_cast<uint32_t>(t->proc.meta.pid);
  StreamFileWriter w(UniquePath(t->proc.dir, "xspace"), info);
  uint64_t ts = t->clock.Convert(static_cast<int64_t>(t->proc.meta.start_realtime_ns));
  for (const auto& f : files) {
    std::string name = "xspace";
    w.Event(layout::kSource, ts, name.size() + f.size() + 2, [&](uint8_t* p) {
      p = PutStr(p, name.data(), name.size());
      return PutStr(p, f.data(), f.size());
    });
  }
  std::string clock = "xspace";
  w.Event(layout::kClockOffset, ts, clock.size() + 1 + 8, [&](uint8_t* p) {
    p = PutStr(p, clock.data(), clock.size());
    Store<int64_t>(p, xspace_offset);
    return p + 8;
  });
  for (const auto& [id, text] : t->names.added())
    w.Event(layout::kStringDef, ts, 4 + text.size() + 1, [&](uint8_t* p) {
      p = PutU32(p, id);
      return PutStr(p, text.data(), text.size());
    });
  // The classes after the names they use (readers take both from this stream).
  for (const EventClass& c : t->classes.added())
    w.Event(layout::kEventClassDef, ts, 9 + c.nargs * layout::kArgHeadSize, [&](uint8_t* p) {
      return PutClassDef(p, c.id, c.kind, c.name, c.category, c.nargs, c.shape);
    });
  for (const auto& e : errors) {
    std::string src = "xspace";
    w.Event(layout::kNote, ts, 1 + src.size() + 1 + e.size() + 1, [&](uint8_t* p) {
      p = PutU8(p, static_cast<uint8_t>(layout::Severity::kWarning));
      p = PutStr(p, src.data(), src.size());
      return PutStr(p, e.data(), e.size());
    });
  }
  w.Finish();
}

std::string BaseName(const std::string& path) {
  size_t s = path.rfind('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

}  // namespace

XSpaceImport ImportXSpace(const std::string& trace_dir, int64_t pid,
                          const std::vector<std::string>& files,
                          const std::optional<XSpaceStepFilter>& steps) {
  TraceDir dir = OpenTrace(trace_dir);
  Target t;
  bool found = false;
  for (const auto& p : dir.processes)
    if (p.meta.pid == pid && (!found || p.meta.exec_generation > t.proc.meta.exec_generation)) {
      t.proc = p;
      found = true;
    }
  if (!found)
    throw Error("no trace of process " + std::to_string(pid) + " in " + trace_dir +
                " to import its XSpace into (was the process traced?)");
  LoadTarget(&t);
  XSpaceImport out;
  std::vector<std::string> imported;
  uint64_t lost = 0, out_of_time = 0;
  SharedStreams shared;
  for (const auto& f : files) {
    std::string data;
    try {
      data = ReadFile(f);
    } catch (const Error& e) {
      out.errors.push_back(e.what());
      continue;
    }
    xp::XSpace space;
    if (data.empty()) {
      out.errors.push_back(f + ": empty file; skipped");
      continue;
    }
    if (!space.ParseFromString(data)) {
      out.errors.push_back(f + ": not a readable XSpace (" + std::to_string(data.size()) +
                           " bytes; truncated or not an .xplane.pb); skipped");
      continue;
    }
    SpaceImporter imp(&t, BaseName(f), steps, &shared, &out);
    imp.Import(space);
    lost += imp.lost_names_;
    out_of_time += imp.out_of_time_;
    out.files++;
    imported.push_back(f);
  }
  {
    SpaceImporter last(&t, "", steps, &shared, &out);
    last.FinishLines();
    last.FinishAllocators();
    lost += last.lost_names_;
  }
  if (out_of_time)
    out.errors.push_back(std::to_string(out_of_time) +
                         " events dropped: their times are more than a year away from the "
                         "process's start (a damaged file, or one from another run)");
  if (lost)
    out.errors.push_back(std::to_string(lost) +
                         " events or arguments dropped: the process's name table is full");
  int64_t offset =
      t.clock.OffsetAt(t.clock.Convert(static_cast<int64_t>(t.proc.meta.start_realtime_ns)));
  std::vector<std::string> names;
  for (const auto& f : imported) names.push_back(BaseName(f));
  WriteImportStream(&t, names, offset, out.errors);
  if (!t.classes.added().empty()) {
    // Declare the new classes for other CTF readers: the metadata again, from the process's
    // streams as they are now.
    ProcessMeta m = OpenTrace(t.proc.dir).processes.at(0).meta;
    WriteFileAtomic(t.proc.dir + "/metadata", GenerateMetadata(m));
  }
  return out;
}

}  // namespace tt
