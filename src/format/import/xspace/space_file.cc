// Finding a profiler's XSpace files in its log directory, and reading one where it lies.
#include "format/import/xspace/space_file.h"

#include <algorithm>
#include <cstring>

#include "core/files.h"
#include "format/import/untrusted.h"
#include "format/import/xspace/import.h"

namespace tt {

std::vector<std::string> FindXSpaceFiles(const std::string& logdir,
                                         std::vector<std::string>* skipped) {
  std::vector<std::string> out;
  // The traced program made these directories: a link among them could lead anywhere.
  auto real_dir = [&](const std::string& d) {
    if (IsRealDirectory(d)) return true;
    if (skipped && EntryExists(d))
      skipped->push_back(ValidUtf8(d) + ": not a directory (a symbolic link?); not entered");
    return false;
  };
  std::string profile = logdir + "/plugins/profile";
  if (!EntryExists(profile) || !real_dir(logdir + "/plugins") || !real_dir(profile)) return out;
  for (const auto& run : ListDirectory(profile)) {
    std::string rd = profile + "/" + run;
    if (!real_dir(rd)) continue;
    for (const auto& f : ListDirectory(rd)) {
      // Whatever its type: reading refuses (and reports) what is not a regular file.
      if (f.size() > kXPlaneSuffix.size() && f.ends_with(kXPlaneSuffix))
        out.push_back(rd + "/" + f);
    }
  }
  return out;
}

namespace xspace {

namespace {

// protobuf's limit on nested groups and messages.
constexpr int kMaxDepth = 100;

// NextField, with an end tag (wire type 4) returned as a field for the group that reads it.
bool NextRaw(hlo_wire::Wire* w, Field* x, int depth) {
  uint64_t tag;
  if (!w->ok || w->p >= w->end || !w->Varint(&tag)) return false;
  if (tag > UINT32_MAX || (tag >> 3) == 0) return w->ok = false;
  x->number = static_cast<uint32_t>(tag >> 3);
  x->type = static_cast<uint32_t>(tag & 7);
  x->v = 0;
  x->bytes = {};
  switch (x->type) {
    case 0:
      return w->Varint(&x->v);
    case 1:
    case 5: {
      size_t n = x->type == 1 ? 8 : 4;
      if (static_cast<size_t>(w->end - w->p) < n) return w->ok = false;
      for (size_t i = 0; i < n; ++i) x->v |= uint64_t{w->p[i]} << (8 * i);
      w->p += n;
      return true;
    }
    case 2:
      if (!w->Varint(&x->v) || x->v > static_cast<uint64_t>(w->end - w->p)) return w->ok = false;
      x->bytes = std::string_view(reinterpret_cast<const char*>(w->p), x->v);
      w->p += x->v;
      return true;
    case 3: {
      if (depth >= kMaxDepth) return w->ok = false;
      Field inner;
      while (NextRaw(w, &inner, depth + 1))
        if (inner.type == 4) return inner.number == x->number || (w->ok = false);
      return w->ok = false;  // no end tag
    }
    case 4:
      return true;
    default:
      return w->ok = false;
  }
}

}  // namespace

bool NextField(hlo_wire::Wire* w, Field* x, int depth) {
  if (!NextRaw(w, x, depth)) return false;
  return x->type != 4 || (w->ok = false);
}

double StatView::double_value() const {
  if (value != kDouble) return 0;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

StatView ParseStat(std::string_view msg) {
  StatView s;
  ForEachField(msg, [&](const Field& x) {
    static constexpr StatView::Case kVarints[] = {StatView::kNone,   StatView::kNone,
                                                  StatView::kNone,   StatView::kUint64,
                                                  StatView::kInt64,  StatView::kNone,
                                                  StatView::kNone,   StatView::kRef};
    if (x.number == 1 && x.type == 0) {
      s.metadata_id = static_cast<int64_t>(x.v);
    } else if (x.number == 2 && x.type == 1) {
      s.value = StatView::kDouble;
      s.bits = x.v;
    } else if (x.number < 8 && x.type == 0 && kVarints[x.number] != StatView::kNone) {
      s.value = kVarints[x.number];
      s.bits = x.v;
    } else if ((x.number == 5 || x.number == 6) && x.type == 2) {
      s.value = x.number == 5 ? StatView::kStr : StatView::kBytes;
      s.s = x.bytes;
    }
  });
  return s;
}

EventMetadataView ParseEventMetadata(std::string_view msg) {
  EventMetadataView md;
  md.msg = msg;
  ForEachField(msg, [&](const Field& x) {
    if (x.type != 2) return;
    if (x.number == 2) md.name = x.bytes;
    if (x.number == 4) md.display_name = x.bytes;
  });
  return md;
}

LineView ParseLine(std::string_view msg) {
  LineView l;
  l.msg = msg;
  ForEachField(msg, [&](const Field& x) {
    if (x.type == 0 && x.number == 1) l.id = static_cast<int64_t>(x.v);
    if (x.type == 0 && x.number == 3) l.timestamp_ns = static_cast<int64_t>(x.v);
    if (x.type == 2 && x.number == 2) l.name = x.bytes;
    if (x.type == 2 && x.number == 11) l.display_name = x.bytes;
    if (x.type == 2 && x.number == 4) l.has_events = true;
  });
  return l;
}

EventView ParseEvent(std::string_view msg) {
  EventView e;
  e.msg = msg;
  ForEachField(msg, [&](const Field& x) {
    if (x.type != 0) return;
    if (x.number == 1) e.metadata_id = static_cast<int64_t>(x.v);
    if (x.number == 3) e.duration_ps = static_cast<int64_t>(x.v);
    if (x.number == 2 || x.number == 5) {  // the oneof: the last one set
      e.occurrences = x.number == 5;
      e.offset_ps = e.occurrences ? 0 : static_cast<int64_t>(x.v);
    }
  });
  return e;
}

std::string_view PlaneName(std::string_view msg) {
  std::string_view name;
  ForEachField(msg, [&](const Field& x) {
    if (x.number == 2 && x.type == 2) name = x.bytes;
  });
  return name;
}

namespace {

// A map field's entries (key 1, value 2: missing ones are 0 and empty), by key, the last of a
// key kept.
template <typename V, typename Parse>
void ReadMap(std::string_view plane, uint32_t number, Parse parse,
             std::vector<std::pair<int64_t, V>>* out) {
  size_t n = 0;
  ForEachMessage(plane, number, [&](std::string_view) { ++n; });
  out->reserve(n);
  ForEachMessage(plane, number, [&](std::string_view entry) {
    int64_t key = 0;
    std::string_view value;
    ForEachField(entry, [&](const Field& x) {
      if (x.number == 1 && x.type == 0) key = static_cast<int64_t>(x.v);
      if (x.number == 2 && x.type == 2) value = x.bytes;
    });
    out->emplace_back(key, parse(value));
  });
  std::stable_sort(out->begin(), out->end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t kept = 0;
  for (size_t i = 0; i < out->size(); ++i) {
    if (kept > 0 && (*out)[kept - 1].first == (*out)[i].first)
      (*out)[kept - 1] = (*out)[i];
    else
      (*out)[kept++] = (*out)[i];
  }
  out->resize(kept);
}

template <typename V>
const V* Find(const std::vector<std::pair<int64_t, V>>& map, int64_t id) {
  auto it = std::lower_bound(map.begin(), map.end(), id,
                             [](const auto& e, int64_t k) { return e.first < k; });
  return it != map.end() && it->first == id ? &it->second : nullptr;
}

}  // namespace

PlaneView::PlaneView(std::string_view msg) : msg_(msg), name_(PlaneName(msg)) {
  ReadMap(msg, 4, ParseEventMetadata, &events_);
  ReadMap(
      msg, 5,
      [](std::string_view md) {
        std::string_view name;
        ForEachField(md, [&](const Field& x) {
          if (x.number == 2 && x.type == 2) name = x.bytes;
        });
        return name;
      },
      &stats_);
}

const EventMetadataView* PlaneView::EventMetadata(int64_t id) const { return Find(events_, id); }

const std::string_view* PlaneView::StatName(int64_t id) const { return Find(stats_, id); }

}  // namespace xspace
}  // namespace tt
