#include "analysis/views/stats.h"

#include "analysis/pass/aggregate.h"
#include "analysis/views/view.h"
#include "core/error.h"

namespace tt::analysis {

std::string ViewList() {
  std::string s;
  for (const ViewDef* v : Views()) s += (s.empty() ? "" : ", ") + std::string(v->name);
  return s;
}

std::vector<Result> ComputeViews(const model::TraceModel& m, const std::vector<std::string>& views,
                                 const Options& o, const std::vector<Step>* steps,
                                 std::vector<Problem>* problems, const TrackRiders* riders) {
  std::vector<const ViewDef*> defs;
  Needs needs;
  for (const auto& name : views) {
    const ViewDef* v = FindView(name);
    if (!v) throw Error("unknown view '" + name + "' (views: " + ViewList() + ")");
    defs.push_back(v);
    needs.Add(v->needs);
  }
  Selection sel{o.steps, o.skip_warmup, o.step_names, o.threads, o.all_frames, o.breakdowns_only};
  Aggregates a = Aggregate(m, needs, sel, steps, problems, riders);
  std::vector<Result> out;
  for (const ViewDef* v : defs) {
    Result& r = out.emplace_back();
    r.view = v->name;
    r.links = a.links;
    r.unlinked = a.unlinked;
    r.device_activities = a.device_activities;
    r.events = a.events;
    v->finish(a, &r);
  }
  return out;
}

Result Compute(const model::TraceModel& m, const Options& o, std::vector<Problem>* problems) {
  return std::move(ComputeViews(m, {o.view}, o, nullptr, problems)[0]);
}

}  // namespace tt::analysis
