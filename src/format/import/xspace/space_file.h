// One XSpace file (a profiler's .xplane.pb) read where it lies, without building its messages:
// views into the file's bytes, a plane, a line, an event or a stat decoded when it is visited,
// so that an import's memory is the file, one plane's metadata and what it keeps, whatever the
// file's count of planes, lines or events (issue 40: a 60 MB file once took 4.92 GB as parsed
// messages, 20 MB of empty planes 3.55 GB). CheckSpace (space_check.cc) first checks the whole
// file as protobuf's parser would; the views then read only checked bytes. (FindXSpaceFiles,
// import.h, finds the files; space_file.cc defines it and the views.)
#pragma once
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "format/import/xspace/hlo_wire.h"

namespace tt::xspace {

// One field of a message: its number, wire type, varint or fixed value, or bytes.
struct Field {
  uint32_t number = 0, type = 0;
  uint64_t v = 0;
  std::string_view bytes;
};

// The next field of `w`, false at its end or at damage (w.ok false). A group (wire type 3) is
// skipped whole, up to its end tag, nested groups included; an end tag (4) alone is damage.
bool NextField(hlo_wire::Wire* w, Field* x, int depth = 0);

// Each field of the (checked) message `msg`, in order, to f(const Field&).
template <typename F>
void ForEachField(std::string_view msg, F f) {
  hlo_wire::Wire w(msg);
  Field x;
  while (NextField(&w, &x)) f(x);
}

// Each length-delimited field `number` of `msg` (a repeated message), to f(string_view).
template <typename F>
void ForEachMessage(std::string_view msg, uint32_t number, F f) {
  ForEachField(msg, [&](const Field& x) {
    if (x.number == number && x.type == 2) f(x.bytes);
  });
}

// An XStat; the accessors answer as the generated class's do (0 or "" for another case).
struct StatView {
  enum Case { kNone, kDouble, kUint64, kInt64, kStr, kBytes, kRef };
  int64_t metadata_id = 0;
  Case value = kNone;
  uint64_t bits = 0;  // the varint or fixed64 of the value
  std::string_view s;
  uint64_t uint64_value() const { return value == kUint64 ? bits : 0; }
  int64_t int64_value() const { return value == kInt64 ? static_cast<int64_t>(bits) : 0; }
  uint64_t ref_value() const { return value == kRef ? bits : 0; }
  double double_value() const;
};
StatView ParseStat(std::string_view msg);

// Each XStat (field `number`) of `msg`, to f(const StatView&).
template <typename F>
void ForEachStat(std::string_view msg, uint32_t number, F f) {
  ForEachMessage(msg, number, [&](std::string_view s) { f(ParseStat(s)); });
}

// An XEventMetadata; `msg` holds its stats (field 5).
struct EventMetadataView {
  std::string_view name, display_name, msg;
};
EventMetadataView ParseEventMetadata(std::string_view msg);

// An XLine without its events; `msg` holds them (field 4).
struct LineView {
  int64_t id = 0, timestamp_ns = 0;
  std::string_view name, display_name, msg;
  bool has_events = false;
};
LineView ParseLine(std::string_view msg);

// An XEvent; `msg` holds its stats (field 4). offset_ps is 0 for an aggregated event.
struct EventView {
  int64_t metadata_id = 0, offset_ps = 0, duration_ps = 0;
  bool occurrences = false;  // data is num_occurrences (no time)
  std::string_view msg;
};
EventView ParseEvent(std::string_view msg);

// The name of an XPlane, without decoding the rest of it.
std::string_view PlaneName(std::string_view msg);

// Each name of an XPlane's event metadata (a map entry's value's name; repeats included).
template <typename F>
void ForEachEventMetadataName(std::string_view plane, F f) {
  ForEachMessage(plane, 4, [&](std::string_view entry) {
    ForEachMessage(entry, 2, [&](std::string_view md) { f(ParseEventMetadata(md).name); });
  });
}

// An XPlane with its metadata maps decoded (sorted by id, the last entry of an id kept, as
// the generated map does); lines and stats are visited from `msg`.
class PlaneView {
 public:
  explicit PlaneView(std::string_view msg);
  std::string_view name() const { return name_; }
  std::string_view msg() const { return msg_; }
  const EventMetadataView* EventMetadata(int64_t id) const;
  // The name of stat metadata `id`, null where the plane has none.
  const std::string_view* StatName(int64_t id) const;
  const std::vector<std::pair<int64_t, EventMetadataView>>& event_metadata() const {
    return events_;
  }
  const std::vector<std::pair<int64_t, std::string_view>>& stat_metadata() const {
    return stats_;
  }

 private:
  std::string_view msg_, name_;
  std::vector<std::pair<int64_t, EventMetadataView>> events_;
  std::vector<std::pair<int64_t, std::string_view>> stats_;
};

// Each non-empty XPlane of the (checked) XSpace `data`, to f(string_view) (empty planes hold
// nothing an import reads).
template <typename F>
void ForEachPlane(std::string_view data, F f) {
  ForEachMessage(data, 1, [&](std::string_view plane) {
    if (!plane.empty()) f(plane);
  });
}

// What CheckSpace measured: the bytes of the metadata an import holds beside the file.
struct SpaceShape {
  uint64_t plane_metadata_bytes = 0;  // the largest plane's decoded metadata maps
  uint64_t name_bytes = 0;            // every event metadata name, as a set of strings holds it
};

// Whether `data` parses as an XSpace (tensorflow.profiler.XSpace, format/proto/xplane.proto)
// as protobuf's generated parser decides: every field's wire type, every nested message and
// packed field whole, every string UTF-8, no field number 0, groups only in unknown fields.
bool CheckSpace(std::string_view data, SpaceShape* shape);

}  // namespace tt::xspace
