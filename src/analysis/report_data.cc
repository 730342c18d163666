#include "analysis/report_data.h"

#include <algorithm>
#include <map>
#include <set>

namespace tt::analysis {

namespace {

void AddVersion(RunSummary* run, std::pair<std::string, std::string> e) {
  if (std::find(run->versions.begin(), run->versions.end(), e) == run->versions.end())
    run->versions.push_back(std::move(e));
}

RunSummary Summarise(const model::TraceModel& m, const model::TraceSummary& sum,
                     const ReportOptions& o) {
  RunSummary run;
  run.title = o.title;
  run.trace = m.path;
  std::set<std::string> hosts;
  // A chain of exec'ing shims (pyenv, env, wrapper scripts) is the one process it became, and
  // helpers that traced nothing are only counted.
  std::map<int64_t, uint32_t> last_image;
  for (const auto& p : sum.processes)
    last_image[p.meta.pid] = std::max(last_image[p.meta.pid], p.meta.exec_generation);
  for (const auto& p : sum.processes) {
    uint64_t records = 0;
    for (uint64_t n : p.by_category) records += n;
    if (records == 0 || p.meta.exec_generation != last_image[p.meta.pid])
      run.quiet_processes++;
    else
      run.commands.push_back("pid " + std::to_string(p.meta.pid) + ": " + p.meta.cmdline);
    if (!p.meta.hostname.empty()) hosts.insert(p.meta.hostname);
    for (const auto& [src, details] : p.source_details)
      for (const auto& detail : details) AddVersion(&run, {src, detail});
    run.dropped += model::Drops(p);
  }
  run.hosts.assign(hosts.begin(), hosts.end());
  for (const auto& v : o.versions) AddVersion(&run, v);
  run.duration_ns = sum.last_ns - sum.first_ns;
  run.events = sum.events;
  run.processes = sum.processes.size();
  run.threads = sum.threads;
  std::set<std::pair<size_t, uint64_t>> devices;
  for (const auto& t : m.tracks)
    if (t.kind == layout::TrackKind::kDevice) {
      devices.insert({t.process, t.id >> 32});
      run.device_streams++;
    }
  run.devices = devices.size();
  return run;
}

std::string SelectionText(const Options& s) {
  std::string text;
  if (s.steps)
    text = "steps " + std::to_string(s.steps->first) + ":" +
           (s.steps->last == INT64_MAX ? "" : std::to_string(s.steps->last));
  if (s.skip_warmup)
    text += (text.empty() ? "" : ", ") + std::string("first ") + std::to_string(s.skip_warmup) +
            " skipped";
  return text;
}

// The timeline of the median step; with no steps, the first process's whole run.
void AddTimeline(const model::TraceModel& m, const model::TraceSummary& sum,
                 const std::vector<Step>& steps, const std::vector<bool>& keep,
                 const ReportOptions& o, ReportData* d, std::vector<Problem>* problems) {
  if (const Step* s = MedianStep(steps, keep)) {
    o.progress("timeline of the median step");
    d->timeline = ComputeTimeline(m, s->process, s->start, s->end, 4000, 0, problems);
    d->timeline_step = s->number;
    d->timeline_pid = static_cast<uint64_t>(m.processes[s->process].meta.pid);
    return;
  }
  if (!steps.empty() || sum.processes.empty()) return;
  // The longest slices of each thread of the first process stand in.
  o.progress("timeline of the first process");
  const model::ProcessSummary& p = sum.processes[0];
  size_t index = 0;
  for (size_t i = 0; i < m.processes.size(); ++i)
    if (m.processes[i].meta.pid == p.meta.pid &&
        m.processes[i].meta.exec_generation == p.meta.exec_generation)
      index = i;
  if (p.first_ns != UINT64_MAX && p.last_ns > p.first_ns) {
    d->timeline = ComputeTimeline(m, index, p.first_ns, p.last_ns + 1, 4000, 0, problems);
    d->timeline_pid = static_cast<uint64_t>(p.meta.pid);
  }
}

}  // namespace

ReportData BuildReport(const model::TraceModel& m, const model::TraceSummary& sum,
                       const ReportOptions& o) {
  std::vector<Problem> problems = m.problems;
  problems.insert(problems.end(), sum.problems.begin(), sum.problems.end());
  ReportData d;
  d.top = o.top;
  d.run = Summarise(m, sum, o);
  const Options& sel = o.selection;
  std::vector<Step> steps = FindSteps(m, sel.step_names, 0);
  // A selection that keeps no step fails here, before any progress line.
  Windows windows;
  if (!steps.empty() || sel.steps || sel.skip_warmup)
    windows = SelectWindows(m, steps, sel.steps, sel.skip_warmup);
  std::vector<bool> keep = SelectSteps(steps, sel.steps, sel.skip_warmup);
  d.run.steps_found = steps.size();
  for (bool k : keep) d.run.steps_selected += k;
  d.run.selection = SelectionText(sel);

  o.progress("step-time breakdown, ops, kernels and copies");
  std::vector<Result> views =
      ComputeViews(m, {"step", "op", "kernel", "memcpy"}, sel, &steps, &problems);
  d.steps = std::move(views[0]);
  if (!o.include_warmup) {
    // Warm-up steps (tracing, compilation) would flatten the chart and lead the findings.
    std::vector<StepBreakdown> kept;
    for (const auto& b : d.steps.steps) {
      if (!b.warmup) {
        kept.push_back(b);
        continue;
      }
      d.run.warmup_steps++;
      d.run.warmup_ns += b.end - b.start;
    }
    d.steps.steps = std::move(kept);
  }
  d.ops = std::move(views[1]);
  d.kernels = std::move(views[2]);
  d.copies = std::move(views[3]);
  o.progress("memory over time");
  d.memory = ComputeMemory(m, 1000, 0, &problems);
  AddTimeline(m, sum, steps, keep, o, &d, &problems);

  o.progress("findings");
  FindingInputs in;
  in.steps = d.steps.steps;
  in.ops = d.ops.rows;
  in.op_total_ns = d.ops.total_ns;
  in.unlinked = d.kernels.unlinked;
  in.device_activities = d.kernels.device_activities;
  in.facts = ScanFacts(m, windows, 0, &problems);
  in.memory = &d.memory;
  in.dropped = d.run.dropped;
  d.findings = Findings(in);

  // Damage is met again by every pass: each place once.
  std::set<std::string> seen;
  for (const auto& p : problems)
    if (seen.insert(p.ToString()).second) d.problems.push_back(p.ToString());
  return d;
}

}  // namespace tt::analysis
