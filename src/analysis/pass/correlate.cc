#include "analysis/pass/correlate.h"

#include <algorithm>

#include "format/keys.h"
#include "model/args.h"

namespace tt::analysis {

LinkKeys LinkKeysOf(const model::Process& p) {
  auto [corr, ext] = model::KeyIds(p, {keys::kCorrelationId, keys::kExternalId});
  return {corr, ext};
}

LinkIds IdsOf(const LinkKeys& k, const model::ArgsView& a) {
  LinkIds ids;
  if (k.correlation) ids.corr = std::max<int64_t>(-1, model::ArgInt(a, k.correlation).value_or(-1));
  if (k.external) ids.ext = std::max<int64_t>(-1, model::ArgInt(a, k.external).value_or(-1));
  return ids;
}

namespace {

struct ExternalIdVisitor {
  LinkKeys keys;
  std::vector<uint64_t>* ids;
  void OnBegin(const model::Slice& s) {
    if (int64_t ext = IdsOf(keys, s.args).ext; ext >= 0) ids->push_back(static_cast<uint64_t>(ext));
  }
  void OnSlice(const model::Slice&) {}
  void OnPoint(const model::Point&) {}
};

}  // namespace

std::vector<std::pair<uint64_t, uint32_t>> SharedExternalIds(const model::TraceModel& m,
                                                             size_t process) {
  std::vector<std::pair<uint64_t, uint32_t>> shared;
  const model::Process& p = m.processes[process];
  ExternalIdVisitor v{LinkKeysOf(p), nullptr};
  if (!v.keys.external) return shared;
  std::vector<uint64_t> ids;
  v.ids = &ids;
  for (size_t ti : p.tracks) {
    const model::Track& t = m.tracks[ti];
    if (t.kind != layout::TrackKind::kDevice) continue;
    model::ScanTrack(m, t, nullptr, v);
  }
  std::sort(ids.begin(), ids.end());
  for (size_t i = 0, j; i < ids.size(); i = j) {
    for (j = i + 1; j < ids.size() && ids[j] == ids[i];) ++j;
    if (j - i > 1) shared.push_back({ids[i], static_cast<uint32_t>(j - i)});
  }
  return shared;
}

}  // namespace tt::analysis
