#include "analysis/diff/diff.h"

#include <algorithm>
#include <cmath>

#include "analysis/comm/comm.h"
#include "analysis/memory/memory.h"
#include "core/error.h"

namespace tt::analysis {

namespace {

// The number of steps each process starts with that are warm-up (tracing, compilation), the
// most over processes: the selection's skip_warmup.
uint64_t LeadingWarmup(const std::vector<Step>& steps) {
  std::map<size_t, uint64_t> leading;
  std::set<size_t> done;
  for (const Step& s : steps) {
    if (done.count(s.process)) continue;
    if (s.warmup)
      leading[s.process]++;
    else
      done.insert(s.process);
  }
  uint64_t most = 0;
  for (const auto& [p, n] : leading) most = std::max(most, n);
  return most;
}

// The parts of the step's host time (a partition: stats.h, StepBreakdown), per step.
void AddParts(const std::vector<StepBreakdown>& steps, DiffSide* s) {
  double n = static_cast<double>(steps.size());
  auto add = [&](const char* part, uint64_t ns) { s->parts[part] += static_cast<double>(ns) / n; };
  for (const StepBreakdown& b : steps) {
    s->step_ns += static_cast<double>(b.Duration()) / n;
    add("input", b.input);
    add("compile", b.compile);
    add("compute", b.host_compute);
    add("communication", b.host_comm);
    add("runtime", b.runtime);
    add("idle", b.host_idle);
  }
}

// Op types' self time per step, and their shares of the step's computing time.
void AddOps(const Result& op_view, size_t steps, DiffSide* s) {
  double total = 0;
  for (const Row& r : op_view.rows) {
    double self = static_cast<double>(r.self_ns) / static_cast<double>(steps);
    if (self <= 0) continue;
    s->op_self[r.name] += self;
    total += self;
  }
  double compute = s->parts["compute"];
  for (const auto& [name, self] : s->op_self) s->op_share[name] = compute * self / total;
  // Computing time with no op in it (Python, primitives outside ops) stays a part of its own.
  s->parts["compute outside ops"] = total > 0 ? 0 : compute;
}

void AddCollectivesAndMemory(const model::TraceModel& m, const DiffOptions& o, DiffSide* s,
                             std::vector<Problem>* problems) {
  for (const CommRank& r : CollectCollectives({&m}, o.threads, problems))
    for (const CommEvent& e : r.events) s->collectives.insert(e.collective);
  for (const AllocatorMemory& a : ComputeMemory(m, 2, o.threads, problems).allocators)
    s->memory_peak[a.name] = a.peak;
}

std::vector<std::string> OnlyIn(const std::set<std::string>& x, const std::set<std::string>& y) {
  std::vector<std::string> out;
  std::set_difference(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
  return out;
}

std::set<std::string> Keys(const std::map<std::string, double>& m) {
  std::set<std::string> k;
  for (const auto& [name, v] : m) k.insert(name);
  return k;
}

}  // namespace

DiffSide MeasureSide(const model::TraceModel& m, const DiffOptions& o,
                     std::vector<Problem>* problems) {
  DiffSide s;
  s.path = m.path;
  Options opt;
  opt.step_names = o.step_names;
  opt.threads = o.threads;
  std::vector<Step> steps = FindSteps(m, o.step_names, o.threads);
  if (steps.empty())
    throw Error(m.path +
                ": no steps in this trace (diff compares time per step; name the "
                "annotation that marks a step with --step-name NAME)");
  opt.skip_warmup = o.skip_warmup;
  if (!o.include_warmup && o.skip_warmup == 0)
    opt.skip_warmup = LeadingWarmup(steps);
  std::vector<Result> r = ComputeViews(m, {"step", "op", "kernel"}, opt, &steps, problems);
  if (r[0].steps.empty())
    throw Error(m.path + ": all " + std::to_string(steps.size()) +
                " steps are warm-up (tracing, compilation); give --include-warmup to compare "
                "them");
  s.steps = r[0].steps.size();
  AddParts(r[0].steps, &s);
  AddOps(r[1], s.steps, &s);
  for (const Row& k : r[2].rows) s.kernels.insert(k.name);
  AddCollectivesAndMemory(m, o, &s, problems);
  return s;
}

DiffResult CompareSides(DiffSide a, DiffSide b) {
  DiffResult d;
  std::set<std::string> aops = Keys(a.op_self), bops = Keys(b.op_self);
  d.only_a_ops = OnlyIn(aops, bops);
  d.only_b_ops = OnlyIn(bops, aops);
  d.only_a_kernels = OnlyIn(a.kernels, b.kernels);
  d.only_b_kernels = OnlyIn(b.kernels, a.kernels);
  d.only_a_collectives = OnlyIn(a.collectives, b.collectives);
  d.only_b_collectives = OnlyIn(b.collectives, a.collectives);
  auto get = [](const std::map<std::string, double>& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? 0.0 : it->second;
  };
  std::set<std::string> ops = aops;
  ops.insert(bops.begin(), bops.end());
  for (const std::string& name : ops)
    d.rows.push_back({name, true, get(a.op_share, name), get(b.op_share, name),
                      get(a.op_self, name), get(b.op_self, name)});
  for (const auto& [part, v] : a.parts)
    if (part != "compute")  // shared among the op types above
      d.rows.push_back({part, false, v, get(b.parts, part)});
  for (DiffRow& r : d.rows) {
    r.contribution = r.b - r.a;
    d.explained += r.contribution;
  }
  std::stable_sort(d.rows.begin(), d.rows.end(), [](const DiffRow& x, const DiffRow& y) {
    return std::fabs(x.contribution) > std::fabs(y.contribution);
  });
  for (const DiffSide* side : {&a, &b})
    if (side->op_self.empty())
      d.notes.push_back(side->path +
                        ": no framework op in its steps: its computing time is one "
                        "row, 'compute outside ops'");
  d.a = std::move(a);
  d.b = std::move(b);
  return d;
}

}  // namespace tt::analysis
