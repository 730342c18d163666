#include "format/import/target.h"

#include <algorithm>
#include <bit>
#include <charconv>

#include "core/error.h"
#include "core/files.h"
#include "core/time.h"
#include "format/import/untrusted.h"
#include "format/keys.h"
#include "format/layout.h"
#include "format/metadata.h"
#include "format/slice_order.h"

namespace tt {

namespace {

constexpr uint64_t kYearNs = 366ull * 24 * 3600 * kNsPerSec;

void ParseThreadHashes(std::string_view hashes, std::unordered_map<int64_t, uint64_t>* out) {
  while (!hashes.empty()) {
    size_t comma = std::min(hashes.find(','), hashes.size());
    std::string_view kv = hashes.substr(0, comma);
    size_t eq = kv.find('=');
    int64_t hash = 0;
    uint64_t tid = 0;
    if (eq != std::string_view::npos &&
        std::from_chars(kv.data(), kv.data() + eq, hash).ec == std::errc() &&
        std::from_chars(kv.data() + eq + 1, kv.data() + kv.size(), tid).ec == std::errc())
      (*out)[hash] = tid;
    hashes.remove_prefix(std::min(comma + 1, hashes.size()));
  }
}

// A path in dir not taken yet, nor `reserved` (streams still being written).
std::string UniquePath(const std::string& dir, const std::string& base,
                       std::set<std::string>* reserved) {
  std::string p = dir + "/" + base;
  for (int k = 1; PathExists(p) || reserved->count(p); ++k)
    p = dir + "/" + base + "." + std::to_string(k);
  reserved->insert(p);
  return p;
}

// A stream's strings end at their NUL: one inside a foreign name (a damaged or hostile
// profile) would end it early and shift every byte after it. It is written as the text \x00.
std::string WithoutNul(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c)
      out.push_back(c);
    else
      out.append("\\x00");
  }
  return out;
}

}  // namespace

uint32_t ImportTarget::Name(std::string_view s) {
  if (s.find('\0') != std::string_view::npos) return Name(WithoutNul(s));
  uint32_t id = names.Intern(s);
  if (!id) lost_names++;
  return id;
}

StreamFileWriter ImportTarget::NewStream(const std::string& prefix, uint64_t track,
                                         layout::TrackKind kind) {
  PacketInfo info;
  info.uuid = proc.meta.trace_uuid;
  info.stream_instance = ++instance;
  if (track == 0) track = (uint64_t{1} << 31) + info.stream_instance;
  info.kind = kind;
  info.track_id = track;
  info.pid = static_cast<uint32_t>(proc.meta.pid);
  return StreamFileWriter(UniquePath(proc.dir, prefix + std::to_string(track), &paths), info);
}

void LoadImportTarget(const std::string& trace_dir, int64_t pid, const std::string& what,
                      ImportTarget* t) {
  TraceDir dir = OpenTrace(trace_dir);
  bool found = false;
  for (const auto& p : dir.processes)
    if (p.meta.pid == pid && (!found || p.meta.exec_generation > t->proc.meta.exec_generation)) {
      t->proc = p;
      found = true;
    }
  if (!found)
    throw Error("no trace of process " + std::to_string(pid) + " in " + trace_dir +
                " to import its " + what + " into (was the process traced?)");
  if (!IsRealDirectory(t->proc.dir))
    throw Error(t->proc.dir + " is not a directory of the trace (a symbolic link?); not written");
  ParseThreadHashes(t->proc.meta.thread_hashes, &t->tid_of_hash);
  std::vector<Problem> ignored;  // damage is the reader's to report, later
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

void PutThreadName(StreamFileWriter& w, uint64_t ts, const std::string& name) {
  std::string text = WithoutNul(name);
  w.Event(layout::kThreadName, ts, text.size() + 1,
          [&](uint8_t* p) { return PutStr(p, text.data(), text.size()); });
}

void WriteAllocatorCounters(ImportTarget* t, const std::string& prefix, AllocatorSamples* samples,
                            ImportResult* out) {
  uint32_t key = t->Name(keys::kBytesInUse);
  for (auto& [alloc, series] : *samples) {
    std::stable_sort(series.begin(), series.end());
    StreamFileWriter w = t->NewStream(prefix, 0, layout::TrackKind::kImported);
    PutThreadName(w, series.front().first, "allocator " + alloc);
    for (const auto& [ts, v] : series)
      PutNamedEvent(w, &t->classes, layout::kCounter, ts, key, layout::Category::kAllocation,
                    std::bit_cast<uint64_t>(v), nullptr, 0);
    w.Finish();
    out->tracks++;
  }
  samples->clear();
}

void FinishImport(ImportTarget* t, const std::string& source, const std::vector<std::string>& files,
                  uint64_t out_of_time, ImportResult* out) {
  if (out_of_time)
    out->errors.push_back(std::to_string(out_of_time) +
                          " events dropped: their times are more than a year away from the "
                          "process's start (a damaged file, or one from another run)");
  if (t->lost_names)
    out->errors.push_back(std::to_string(t->lost_names) +
                          " events or arguments dropped: the process's name table is full");
  const std::vector<std::string>& errors = out->errors;
  int64_t clock_offset =
      t->clock.OffsetAt(t->clock.Convert(static_cast<int64_t>(t->proc.meta.start_realtime_ns)));
  PacketInfo info;
  info.uuid = t->proc.meta.trace_uuid;
  info.stream_instance = ++t->instance;
  info.kind = layout::TrackKind::kProcess;
  info.track_id = static_cast<uint64_t>(t->proc.meta.pid);
  info.pid = static_cast<uint32_t>(t->proc.meta.pid);
  StreamFileWriter w(UniquePath(t->proc.dir, source, &t->paths), info);
  uint64_t ts = t->clock.Convert(static_cast<int64_t>(t->proc.meta.start_realtime_ns));
  for (const auto& f : files)
    w.Event(layout::kSource, ts, source.size() + f.size() + 2, [&](uint8_t* p) {
      p = PutStr(p, source.data(), source.size());
      return PutStr(p, f.data(), f.size());
    });
  w.Event(layout::kClockOffset, ts, source.size() + 1 + 8, [&](uint8_t* p) {
    p = PutStr(p, source.data(), source.size());
    Store<int64_t>(p, clock_offset);
    return p + 8;
  });
  // Not a structured binding: clang before 16 (the fuzz build) cannot capture one.
  for (const auto& def : t->names.added()) {
    const auto& text = def.second;
    w.Event(layout::kStringDef, ts, 4 + text.size() + 1, [&](uint8_t* p) {
      p = PutU32(p, def.first);
      return PutStr(p, text.data(), text.size());
    });
  }
  // The classes after the names they use (readers take both from this stream).
  for (const EventClass& c : t->classes.added())
    w.Event(layout::kEventClassDef, ts, 9 + c.nargs * layout::kArgHeadSize, [&](uint8_t* p) {
      return PutClassDef(p, c.id, c.kind, c.name, c.category, c.nargs, c.shape);
    });
  for (const auto& error : errors) {
    std::string e = WithoutNul(error);  // a profile's own error text may hold one
    w.Event(layout::kNote, ts, 1 + source.size() + 1 + e.size() + 1, [&](uint8_t* p) {
      p = PutU8(p, static_cast<uint8_t>(layout::Severity::kWarning));
      p = PutStr(p, source.data(), source.size());
      return PutStr(p, e.data(), e.size());
    });
  }
  w.Finish();
  if (!t->classes.added().empty()) {
    // Declare the new classes for other CTF readers: the metadata again, from the process's
    // streams as they are now.
    ProcessMeta m = OpenTrace(t->proc.dir).processes.at(0).meta;
    WriteFileAtomic(t->proc.dir + "/metadata", GenerateMetadata(m));
  }
}

std::string BaseName(const std::string& path) {
  size_t s = path.rfind('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

}  // namespace tt
