// Correlation: which host work caused each device activity. Exact where the source gives an
// id (CUPTI's correlation id from launch to activity, the external id from an op to the
// activities it caused), else by nesting (the launch ran inside an op on its thread). Every
// consumer (views, report, replay) reads the links made here and the method of each.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/id_index.h"

namespace tt::analysis {

enum class LinkMethod { kNone, kExternalId, kNesting };

// The names under which a result counts its links (stats' "links" object and table line).
inline constexpr const char kLinkByCorrelation[] = "launch->device: correlation_id";
inline constexpr const char kLinkByExternal[] = "op->device: external_id";
inline constexpr const char kLinkByNesting[] = "op->device: launch inside op on its thread";
inline constexpr const char kLinkPrimitiveNesting[] = "primitive->op: nesting on its thread";

// One process's ids, built once from its host tracks.
struct LinkTables {
  IdIndex launches;   // correlation id -> launching API's name id << 32 | enclosing op's id
  IdIndex externals;  // external id -> op's name id
  void Build(std::vector<std::pair<uint64_t, uint64_t>>&& launch_pairs,
             std::vector<std::pair<uint64_t, uint64_t>>&& external_pairs) {
    launches.Build(std::move(launch_pairs));
    externals.Build(std::move(external_pairs));
  }
};

struct DeviceLink {
  bool launched = false;  // its launch was found by correlation id
  uint32_t api = 0;       // the launching API's name id (when launched)
  uint32_t op = 0;        // the op it belongs to (0: none)
  LinkMethod op_method = LinkMethod::kNone;
};

// corr, ext: the activity's correlation and external ids, < 0 when it has none. The external
// id wins over the launch's enclosing op.
inline DeviceLink LinkDevice(const LinkTables& t, int64_t corr, int64_t ext) {
  DeviceLink l;
  uint64_t launch =
      corr >= 0 ? t.launches.Find(static_cast<uint64_t>(corr)) : IdIndex::kMissing;
  uint64_t by_ext =
      ext >= 0 ? t.externals.Find(static_cast<uint64_t>(ext)) : IdIndex::kMissing;
  l.launched = launch != IdIndex::kMissing;
  if (l.launched) l.api = static_cast<uint32_t>(launch >> 32);
  if (by_ext != IdIndex::kMissing) {
    l.op = static_cast<uint32_t>(by_ext);
    l.op_method = LinkMethod::kExternalId;
  } else if (l.launched && static_cast<uint32_t>(launch)) {
    l.op = static_cast<uint32_t>(launch);
    l.op_method = LinkMethod::kNesting;
  }
  return l;
}

}  // namespace tt::analysis
