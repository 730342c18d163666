// The XSpace exporter's XPlanes (export/xspace.h): the field numbers of the messages it writes
// by hand, the planes and lines it holds in memory while the events are sorted, the sort keys
// that put the events in line order, and the encoding of each message's fields.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "export/proto_wire.h"
#include "export/spill.h"

namespace tt::exporter::xspace {

// Field numbers of src/format/proto/xplane.proto. Messages are written with their fields in
// field-number order and map entries by key, as protobuf's deterministic serialization writes
// them (the tests compare the bytes with libprotobuf's).
namespace space {
constexpr uint32_t kPlanes = 1, kHostnames = 4;
}
namespace plane {
constexpr uint32_t kId = 1, kName = 2, kLines = 3, kEventMetadata = 4, kStatMetadata = 5,
                   kStats = 6;
}
namespace line {
constexpr uint32_t kId = 1, kName = 2, kTimestampNs = 3, kEvents = 4, kDurationPs = 9,
                   kDisplayName = 11;
}
namespace event {
constexpr uint32_t kMetadataId = 1, kOffsetPs = 2, kDurationPs = 3, kStats = 4;
}
namespace stat {
constexpr uint32_t kMetadataId = 1, kDouble = 2, kUint64 = 3, kInt64 = 4, kRef = 7;
}
namespace meta {  // XEventMetadata, XStatMetadata, and map entries
constexpr uint32_t kId = 1, kName = 2, kDisplayName = 4, kKey = 1, kValue = 2;
}

// The length-delimited field `field` holding `n` bytes: its size with tag and length.
inline uint64_t Framed(uint32_t field, uint64_t n) {
  return wire::VarintSize(uint64_t{field} << 3 | 2) + wire::VarintSize(n) + n;
}
inline void Head(std::string& o, uint32_t field, uint64_t n) {
  wire::Tag(o, field, 2);
  wire::Varint(o, n);
}

// One XLine: what is known of it before its events are written.
struct Line {
  int64_t id = 0;
  std::string name;
  int64_t first = INT64_MAX;  // Unix ns of its earliest event
  int64_t end = INT64_MIN;    // Unix ns of its latest event end
  uint64_t events = 0;
  uint64_t event_bytes = 0;  // its encoded events, framed (set by the sizing pass)
  int64_t timestamp = 0;     // from the profile's start (set before writing)
};

// One XPlane: its lines (in the order they appeared) and its metadata, interned by name.
class Plane {
 public:
  Plane(int64_t id, std::string name) : id_(id), name_(std::move(name)) {}
  int64_t id() const { return id_; }
  const std::string& name() const { return name_; }
  std::vector<Line>& lines() { return lines_; }

  int64_t EventMeta(std::string_view name, std::string_view display) {
    auto [it, added] = events_.try_emplace(std::string(name), events_.size() + 1);
    if (added)
      event_meta_.push_back(
          {&it->first, !display.empty() && display != name ? std::string(display) : ""});
    return it->second;
  }
  int64_t StatMeta(std::string_view name) {
    auto [it, added] = stats_.try_emplace(std::string(name), stats_.size() + 1);
    if (added) stat_meta_.push_back(&it->first);
    return it->second;
  }
  // The line with this id (created empty where new); the last name given wins, as for threads.
  size_t FindLine(int64_t id, const std::string& name) {
    auto [it, added] = line_of_id_.try_emplace(id, lines_.size());
    if (added) lines_.push_back({.id = id});
    if (!name.empty()) lines_[it->second].name = name;
    return it->second;
  }

  // The event_metadata and stat_metadata maps, entry by entry (ids are 1, 2, ...: the order of
  // the keys). `f` receives each framed entry.
  template <typename F>
  void Metadata(std::string& scratch, std::string& entry, F&& f) const {
    for (size_t i = 0; i < event_meta_.size(); ++i) {
      scratch.clear();
      wire::Int(scratch, meta::kId, static_cast<int64_t>(i + 1));
      if (!event_meta_[i].first->empty()) wire::String(scratch, meta::kName, *event_meta_[i].first);
      if (!event_meta_[i].second.empty())
        wire::String(scratch, meta::kDisplayName, event_meta_[i].second);
      MapEntry(plane::kEventMetadata, i + 1, scratch, entry);
      f(entry);
    }
    for (size_t i = 0; i < stat_meta_.size(); ++i) {
      scratch.clear();
      wire::Int(scratch, meta::kId, static_cast<int64_t>(i + 1));
      if (!stat_meta_[i]->empty()) wire::String(scratch, meta::kName, *stat_meta_[i]);
      MapEntry(plane::kStatMetadata, i + 1, scratch, entry);
      f(entry);
    }
  }

 private:
  static void MapEntry(uint32_t field, size_t key, const std::string& value, std::string& o) {
    o.clear();
    std::string kv;
    wire::Int(kv, meta::kKey, static_cast<int64_t>(key));
    wire::Message(kv, meta::kValue, value);
    wire::Message(o, field, kv);
  }

  int64_t id_;
  std::string name_;
  std::vector<Line> lines_;
  std::unordered_map<int64_t, size_t> line_of_id_;
  std::unordered_map<std::string, int64_t> events_, stats_;
  std::vector<std::pair<const std::string*, std::string>> event_meta_;  // name, display name
  std::vector<const std::string*> stat_meta_;
};

// The XSpace of one host: its host plane (first) and a plane per GPU, in the order they appeared.
struct Host {
  std::string name;
  std::vector<std::unique_ptr<Plane>> planes;
  std::map<uint64_t, size_t> gpu;  // device -> index in planes
};

// Where an event goes, as the first part of its sort key: host, plane and line numbers in the
// order they are written, so that sorted events come out line after line.
constexpr int kLineBits = 24, kPlaneBits = 16;
uint64_t LineKey(size_t host, size_t plane, size_t line);  // throws past those limits
inline size_t HostOf(uint64_t key) { return key >> (kLineBits + kPlaneBits); }
inline size_t PlaneOf(uint64_t key) {
  return (key >> kLineBits) & ((uint64_t{1} << kPlaneBits) - 1);
}
inline size_t LineOf(uint64_t key) { return key & ((uint64_t{1} << kLineBits) - 1); }

// An event's sort key: line, then start, then longer first, so that parents precede their
// children as xprof's nesting pass expects (ties: the order the walk met them).
inline SpillKey EventKey(uint64_t line_key, int64_t start_ns, uint64_t duration_ns) {
  return {line_key, static_cast<uint64_t>(start_ns) ^ (uint64_t{1} << 63), ~duration_ns};
}
inline int64_t StartOf(const SpillKey& k) {
  return static_cast<int64_t>(k.b ^ (uint64_t{1} << 63));
}
inline uint64_t DurationOf(const SpillKey& k) { return ~k.c; }

// A sorted event's payload: its metadata id (varint), then its stats (framed XStat fields).
inline int64_t ReadVarint(std::string_view* s) {
  uint64_t v = 0;
  int shift = 0;
  size_t i = 0;
  while (i < s->size() && shift < 64) {
    auto b = static_cast<uint8_t>((*s)[i++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
    shift += 7;
  }
  s->remove_prefix(i);
  return static_cast<int64_t>(v);
}

// The XEvent's fields before its stats: metadata id, offset (always written: it is in a oneof)
// and duration, in picoseconds from the line's start.
inline void EventHead(std::string& o, int64_t metadata_id, int64_t offset_ps, int64_t duration_ps) {
  o.clear();
  if (metadata_id) wire::Int(o, event::kMetadataId, metadata_id);
  wire::Int(o, event::kOffsetPs, offset_ps);
  if (duration_ps) wire::Int(o, event::kDurationPs, duration_ps);
}

// One XStat (metadata id, then the value of kind `kind`: u, or d for doubles) as the field
// `field` of `o` (an XEvent's stats, by default).
inline void EncodeStat(std::string& o, int64_t metadata_id, uint32_t kind, uint64_t u, double d,
                       uint32_t field = event::kStats) {
  auto id = static_cast<uint64_t>(metadata_id);
  uint64_t n = 1 + wire::VarintSize(id) + 1 + (kind == stat::kDouble ? 8 : wire::VarintSize(u));
  Head(o, field, n);
  wire::Uint(o, stat::kMetadataId, id);
  if (kind == stat::kDouble)
    wire::Double(o, kind, d);
  else
    wire::Uint(o, kind, u);
}

// The plane's id and name (`out` gets them); returns their size.
uint64_t PlaneHead(const Plane& pl, std::string* out);
// The line's fields before its events (id, name, timestamp) and after them (duration, display
// name), each in `out`; and the size of the whole line with its events (event_bytes).
void LineHead(const Line& l, std::string* out);
void LineTail(const Line& l, std::string* out);
uint64_t LineSize(const Line& l, std::string* scratch);

// The "Task Environment" plane, encoded: the profile's start and stop (Unix ns).
std::string TaskEnvironment(int64_t start, int64_t stop);

}  // namespace tt::exporter::xspace
