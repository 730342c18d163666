// Correlation: which host work caused each device activity. Exact where the source gives an
// id (CUPTI's correlation id from launch to activity, the external id from an op to the
// activities it caused), else by nesting (the launch ran inside an op on its thread). Every
// consumer (views, report, exports, replay) reads the ids, the rules and the links made here
// and the method of each: what a launch is, what an op naming its device work is, which id
// wins, and the tables that resolve device work to its launch and op.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/pass/id_index.h"
#include "model/model.h"
#include "model/scan.h"

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

// The interned ids of the argument keys correlation reads, per process (0: never interned).
struct LinkKeys {
  uint32_t correlation = 0, external = 0;
};
LinkKeys LinkKeysOf(const model::Process& p);

// The ids one event carries: a correlation id, an external id; -1 for none. An id is an
// integer argument >= 0 (model::ArgInt); a string, a negative number or a huge double is none.
struct LinkIds {
  int64_t corr = -1, ext = -1;
};
LinkIds IdsOf(const LinkKeys& k, const model::ArgsView& a);

// A launch: a runtime API call with a correlation id; the device work it launched carries the
// same id.
inline bool IsLaunch(const model::Slice& s, const LinkIds& ids) {
  return s.category == layout::Category::kRuntimeApi && ids.corr >= 0;
}
// An op (framework op or user range) that names the device work it caused by an external id.
inline bool IsExternalOp(const model::Slice& s, const LinkIds& ids) {
  return model::IsOpCategory(s.category) && ids.ext >= 0;
}
// How device work with these ids is linked to its op: the external id wins over the op around
// its launch (found by the correlation id).
inline LinkMethod OpMethodOf(const LinkIds& device) {
  return device.ext >= 0    ? LinkMethod::kExternalId
         : device.corr >= 0 ? LinkMethod::kNesting
                            : LinkMethod::kNone;
}

// How many device activities of process `process` carry each external id, for the ids that
// more than one carries, sorted by id: one scan of the process's device tracks (memory: 8 bytes
// per activity with an external id during the scan). Damage is not reported (the caller's own
// scan of those tracks reports it).
std::vector<std::pair<uint64_t, uint32_t>> SharedExternalIds(const model::TraceModel& m,
                                                             size_t process);

struct DeviceLink {
  bool launched = false;   // its launch was found by correlation id
  uint32_t api = 0;        // the launching API's name id (when launched)
  uint32_t launch_op = 0;  // the op around its launch (when launched; 0: none)
  uint32_t op = 0;         // the op it belongs to (0: none)
  LinkMethod op_method = LinkMethod::kNone;
};

// corr, ext: the activity's correlation and external ids, < 0 when it has none. The external
// id wins over the launch's enclosing op.
inline DeviceLink LinkDevice(const LinkTables& t, int64_t corr, int64_t ext) {
  DeviceLink l;
  uint64_t launch = corr >= 0 ? t.launches.Find(static_cast<uint64_t>(corr)) : IdIndex::kMissing;
  uint64_t by_ext = ext >= 0 ? t.externals.Find(static_cast<uint64_t>(ext)) : IdIndex::kMissing;
  l.launched = launch != IdIndex::kMissing;
  if (l.launched) {
    l.api = static_cast<uint32_t>(launch >> 32);
    l.launch_op = static_cast<uint32_t>(launch);
  }
  if (by_ext != IdIndex::kMissing) {
    l.op = static_cast<uint32_t>(by_ext);
    l.op_method = LinkMethod::kExternalId;
  } else if (l.launched && static_cast<uint32_t>(launch)) {
    l.op = static_cast<uint32_t>(launch);
    l.op_method = LinkMethod::kNesting;
  }
  return l;
}
inline DeviceLink LinkDevice(const LinkTables& t, const LinkIds& ids) {
  return LinkDevice(t, ids.corr, ids.ext);
}

}  // namespace tt::analysis
