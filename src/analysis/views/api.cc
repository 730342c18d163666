// The api view: CUDA runtime and driver API calls on the host threads.
#include "analysis/views/view.h"

namespace tt::analysis {

namespace {

void Finish(Aggregates& a, Result* r) {
  uint64_t total = 0;
  std::map<std::string, Agg> by = HostAggsByName(a, &TrackAgg::apis, &total);
  for (auto& [n, g] : by) r->rows.push_back(MakeRow(n, g));
  SetShares(&r->rows, total, r);
  if (r->rows.empty()) r->notes.push_back("no runtime or driver API calls in this trace");
}

}  // namespace

extern const ViewDef kApiView = {
    .name = "api",
    .help = "CUDA runtime and driver API calls",
    .columns = {"name", "occurrence", "micros", "self_micros", "avg_micros", "median_micros",
                "min_micros", "max_micros", "stddev_micros", "share"},
    .needs = {.api_samples = true},
    .finish = Finish,
};

}  // namespace tt::analysis
