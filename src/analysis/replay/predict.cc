// Replay's answer for a job (predict.h).
#include "analysis/replay/predict.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/replay/carry_over.h"
#include "analysis/replay/cpu_waits.h"
#include "analysis/replay/gil_waits.h"
#include "analysis/replay/input_waits.h"
#include "analysis/replay/simulate.h"
#include "analysis/replay/whatif_kind.h"
#include "core/error.h"

namespace tt::analysis::replay {

namespace {

struct Totals {
  std::map<std::string, PathItem> path;
  std::map<std::string, std::pair<double, size_t>> use;  // utilisation added, steps
};

// One step's nodes that precision= or op-fusion= changed (g.bounded) added to u.
void AddBounded(const Graph& g, RooflineUse* u) {
  if (g.bounded.empty()) return;
  ++u->steps;
  for (const Bounded& b : g.bounded) {
    double after = static_cast<double>(g.nodes[b.node].duration);
    u->nodes += 1;
    u->before_ns += static_cast<double>(b.before);
    u->after_ns += after;
    if (b.float_ops < 0) continue;
    u->with_flops += 1;
    u->float_ops += static_cast<double>(b.float_ops);
    u->flops_before_ns += static_cast<double>(b.before);
    u->flops_after_ns += after;
    u->roof_ns += static_cast<double>(b.roof);
    u->raised += b.raised;
    u->peak = std::max(u->peak, b.peak);
    u->bandwidth = std::max(u->bandwidth, b.bandwidth);
    u->no_peak |= b.peak <= 0;
  }
}

void MeanBounded(size_t steps, RooflineUse* u) {
  double n = static_cast<double>(steps);
  for (double* x : {&u->nodes, &u->with_flops, &u->float_ops, &u->before_ns, &u->after_ns,
                    &u->flops_before_ns, &u->flops_after_ns, &u->roof_ns, &u->raised})
    *x /= n;
}

// Adds one step's replay to p and t.
void AddStep(const StepGraph& sg, Prediction* p, Totals* t) {
  const Graph& g = sg.graph;
  Schedule s = Simulate(g);
  size_t slowest = 0;
  StepPrediction sp;
  sp.numbers = sg.numbers;
  // Participants (processes without steps, last in g.ranks) are replayed but are no rank.
  for (size_t r = 0; r < p->ranks.size(); ++r) {
    p->ranks[r].measured += static_cast<double>(g.ranks[r].measured);
    p->ranks[r].predicted += static_cast<double>(s.predicted[r]);
    if (s.predicted[r] > s.predicted[slowest]) slowest = r;
  }
  sp.predicted = s.predicted[slowest];
  sp.measured = sg.measured ? sg.measured : g.MeasuredStep();
  p->steps.push_back(sp);
  AddBounded(g, &p->roofline);
  CriticalPath cp = CriticalPathOf(g, s, slowest);
  p->path_gaps += static_cast<double>(cp.gaps);
  for (const PathShare& sh : cp.shares) {
    PathItem& it = t->path[g.Label(sh.label)];
    it.label = g.Label(sh.label);
    it.ns += static_cast<double>(sh.ns);
    it.count += static_cast<double>(sh.count);
  }
  for (uint32_t v : cp.nodes) {  // the kind of the label's (last) node counted on the path
    auto it = t->path.find(g.Label(g.nodes[v].label));
    if (it != t->path.end() && g.nodes[v].kind != NodeKind::kMarker)
      it->second.kind = g.nodes[v].kind;
  }
  std::vector<double> u = Utilisation(g, s);
  for (size_t i = 0; i < u.size(); ++i) {
    if (g.resources[i].markers) continue;
    auto& [sum, n] = t->use[g.resources[i].name];
    sum += u[i];
    ++n;
  }
}

template <typename F>
double Median(const std::vector<StepPrediction>& steps, F of) {
  std::vector<double> v;
  for (const auto& s : steps) v.push_back(static_cast<double>(of(s)));
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

Prediction Predict(const std::vector<StepGraph>& steps) {
  Prediction p;
  if (steps.empty()) return p;
  for (const RankStep& r : steps[0].graph.ranks)
    if (!r.participant) p.ranks.push_back({r.label, 0, 0, 0});
  Totals t;
  for (const StepGraph& sg : steps) AddStep(sg, &p, &t);
  double n = static_cast<double>(steps.size());
  for (auto& r : p.ranks) {
    r.measured /= n;
    r.predicted /= n;
    r.error = r.measured > 0 ? (r.predicted - r.measured) / r.measured : 0;
  }
  for (const auto& s : p.steps) {
    p.measured += static_cast<double>(s.measured) / n;
    p.predicted += static_cast<double>(s.predicted) / n;
  }
  p.error = p.measured > 0 ? (p.predicted - p.measured) / p.measured : 0;
  p.measured_median = Median(p.steps, [](const StepPrediction& s) { return s.measured; });
  p.predicted_median = Median(p.steps, [](const StepPrediction& s) { return s.predicted; });
  p.path_gaps /= n;
  MeanBounded(steps.size(), &p.roofline);
  for (auto& [label, it] : t.path) {
    it.ns /= n;
    it.count /= n;
    it.share = p.predicted > 0 ? it.ns / p.predicted : 0;
    p.path.push_back(it);
  }
  std::stable_sort(p.path.begin(), p.path.end(),
                   [](const PathItem& a, const PathItem& b) { return a.ns > b.ns; });
  for (auto& [name, su] : t.use) p.resources.push_back({name, su.first / su.second});
  std::stable_sort(
      p.resources.begin(), p.resources.end(),
      [](const ResourceUse& a, const ResourceUse& b) { return a.utilisation > b.utilisation; });
  return p;
}

std::vector<StepGraph> Changed(const std::vector<StepGraph>& steps, const std::vector<WhatIf>& ws) {
  std::vector<StepGraph> out = steps;
  std::vector<const Graph*> measured;
  for (const StepGraph& sg : steps) measured.push_back(&sg.graph);
  for (WhatIf w : ws) {
    if (w.kind->prepare) w.kind->prepare(measured, &w);
    size_t n = 0;
    for (StepGraph& sg : out) n += Apply(w, &sg.graph);
    if (n == 0) {
      throw Error("--what-if '" + w.spec + "' matches nothing: the replayed steps have " +
                  w.kind->nothing(w));
    }
  }
  std::vector<Graph*> changed;
  for (StepGraph& sg : out) changed.push_back(&sg.graph);
  ShortenInputWaits(measured, changed);
  CarriedOver carried = CarriedOverOf(measured, changed);
  ShortenGilWaits(measured, changed, carried.part);
  ShortenCpuWaits(measured, changed, carried.part);
  ShortenCarriedOver(carried, changed);
  return out;
}

std::vector<Moved> MovedOnPath(const Prediction& before, const Prediction& after, size_t n) {
  std::map<std::string, Moved> m;
  for (const auto& it : before.path) m[it.label] = {it.label, it.ns, 0};
  for (const auto& it : after.path) {
    Moved& x = m[it.label];
    x.label = it.label;
    x.after = it.ns;
  }
  std::vector<Moved> v;
  for (auto& [label, x] : m)
    if (std::llround(x.before) != std::llround(x.after)) v.push_back(x);
  std::stable_sort(v.begin(), v.end(), [](const Moved& a, const Moved& b) {
    return std::fabs(a.after - a.before) > std::fabs(b.after - b.before);
  });
  if (v.size() > n) v.resize(n);
  return v;
}

}  // namespace tt::analysis::replay
