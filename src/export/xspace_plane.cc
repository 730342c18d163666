#include "export/xspace_plane.h"

#include "core/error.h"
#include "format/keys.h"

namespace tt::exporter::xspace {

uint64_t LineKey(size_t host, size_t plane, size_t line) {
  if (host >= (size_t{1} << (64 - kLineBits - kPlaneBits)) || plane >= (size_t{1} << kPlaneBits) ||
      line >= (size_t{1} << kLineBits))
    throw Error("too many hosts, devices or threads for one XSpace export");
  return uint64_t{host} << (kLineBits + kPlaneBits) | uint64_t{plane} << kLineBits | line;
}

uint64_t PlaneHead(const Plane& pl, std::string* out) {
  out->clear();
  if (pl.id()) wire::Int(*out, plane::kId, pl.id());
  if (!pl.name().empty()) wire::String(*out, plane::kName, pl.name());
  return out->size();
}
void LineHead(const Line& l, std::string* out) {
  out->clear();
  if (l.id) wire::Int(*out, line::kId, l.id);
  if (!l.name.empty()) wire::String(*out, line::kName, l.name);
  if (l.timestamp) wire::Int(*out, line::kTimestampNs, l.timestamp);
}
void LineTail(const Line& l, std::string* out) {
  out->clear();
  int64_t duration_ps = l.events ? (l.end - l.first) * 1000 : 0;
  if (duration_ps) wire::Int(*out, line::kDurationPs, duration_ps);
  if (!l.name.empty()) wire::String(*out, line::kDisplayName, l.name);
}
uint64_t LineSize(const Line& l, std::string* scratch) {
  LineHead(l, scratch);
  uint64_t n = scratch->size() + l.event_bytes;
  LineTail(l, scratch);
  return n + scratch->size();
}

std::string TaskEnvironment(int64_t start, int64_t stop) {
  Plane env(0, "Task Environment");
  std::string o;
  PlaneHead(env, &o);
  int64_t start_id = env.StatMeta(keys::xstat::kProfileStartTime),
          stop_id = env.StatMeta(keys::xstat::kProfileStopTime);
  std::string scratch, entry;
  env.Metadata(scratch, entry, [&](const std::string& e) { o += e; });
  EncodeStat(o, start_id, stat::kUint64, static_cast<uint64_t>(start), 0, plane::kStats);
  EncodeStat(o, stop_id, stat::kUint64, static_cast<uint64_t>(stop), 0, plane::kStats);
  return o;
}

}  // namespace tt::exporter::xspace
