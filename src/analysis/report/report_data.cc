#include "analysis/report/report_data.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "analysis/comm/comm_missing.h"
#include "analysis/job/job_clock.h"
#include "analysis/pass/aggregate.h"
#include "core/parallel.h"
#include "model/job/images.h"
#include "model/scan.h"

namespace tt::analysis {

namespace {

void AddVersion(RunSummary* run, std::pair<std::string, std::string> e) {
  if (std::find(run->versions.begin(), run->versions.end(), e) == run->versions.end())
    run->versions.push_back(std::move(e));
}

// "rank R of N (pid P)" where the launcher gave the process a rank, else "pid P".
std::string ProcessName(const ProcessMeta& m) {
  std::string pid = "pid " + std::to_string(m.pid);
  if (m.rank < 0) return pid;
  return "rank " + std::to_string(m.rank) +
         (m.world_size >= 0 ? " of " + std::to_string(m.world_size) : "") + " (" + pid + ")";
}

// A command line as the summary shows it: a long one (a framework's `python -c ...` helper)
// cut at 160 characters.
std::string Shortened(const std::string& cmd) {
  return cmd.size() <= 160 ? cmd : cmd.substr(0, 157) + "...";
}

// A process the summary lists: its events, its rank (-1: none) and its line.
struct Listed {
  uint64_t records = 0;
  int64_t rank = -1;
  std::string line;
};

// The processes' commands: the kShown busiest (most events) in full, ranks in rank order, then
// the others by events; the rest (torch.compile's and DataLoader's workers, a launcher's
// helpers) counted in one line.
void ListCommands(std::vector<Listed> listed, RunSummary* run) {
  constexpr size_t kShown = 4;
  std::stable_sort(listed.begin(), listed.end(),
                   [](const auto& a, const auto& b) { return a.records > b.records; });
  if (listed.size() > kShown) run->unlisted_processes = listed.size() - kShown;
  listed.resize(std::min(listed.size(), kShown));
  std::stable_sort(listed.begin(), listed.end(), [](const auto& a, const auto& b) {
    return a.rank >= 0 && (b.rank < 0 || a.rank < b.rank);
  });
  for (const auto& l : listed) run->commands.push_back(l.line);
}

RunSummary Summarise(const model::TraceModel& m, const model::TraceSummary& sum,
                     const ReportOptions& o) {
  RunSummary run;
  run.title = o.title;
  run.trace = m.path;
  std::set<std::string> hosts;
  // A chain of exec'ing shims (pyenv, env, wrapper scripts) is the one process it became, and
  // helpers that traced nothing are only counted.
  model::NewestImages images(sum.processes);
  std::vector<Listed> listed;
  for (const auto& p : sum.processes) {
    uint64_t records = 0;
    for (uint64_t n : p.by_category) records += n;
    if (records == 0 || !images.IsNewest(p.meta))
      run.quiet_processes++;
    else
      listed.push_back(
          {records, p.meta.rank, ProcessName(p.meta) + ": " + Shortened(p.meta.cmdline)});
    if (!p.meta.hostname.empty()) hosts.insert(p.meta.hostname);
    for (const auto& [src, details] : p.source_details)
      for (const auto& detail : details) AddVersion(&run, {src, detail});
  }
  ListCommands(std::move(listed), &run);
  run.hosts.assign(hosts.begin(), hosts.end());
  run.dropped = model::TotalDrops(sum);  // processes that could not write a trace included
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

// The timeline's window: the median step; with no steps, the first process's whole run (the
// longest slices of each of its threads stand in). False: no timeline.
struct TimelineWindow {
  size_t process = 0;
  uint64_t start = 0, end = 0;
  int64_t step = -1;
  uint64_t pid = 0;
};
bool ChooseTimeline(const model::TraceModel& m, const model::TraceSummary& sum,
                    const std::vector<Step>& steps, const std::vector<bool>& keep,
                    TimelineWindow* w) {
  if (const Step* s = MedianStep(steps, keep)) {
    *w = {s->process, s->start, s->end, s->number,
          static_cast<uint64_t>(m.processes[s->process].meta.pid)};
    return true;
  }
  if (!steps.empty() || sum.processes.empty()) return false;
  const model::ProcessSummary& p = sum.processes[0];
  size_t index = 0;
  for (size_t i = 0; i < m.processes.size(); ++i)
    if (m.processes[i].meta.pid == p.meta.pid &&
        m.processes[i].meta.exec_generation == p.meta.exec_generation)
      index = i;
  if (p.first_ns == UINT64_MAX || p.last_ns <= p.first_ns) return false;
  auto shift = static_cast<uint64_t>(m.processes[index].shift_ns);  // the job's clock
  *w = {index, p.first_ns + shift, p.last_ns + 1 + shift, -1, static_cast<uint64_t>(p.meta.pid)};
  return true;
}

// The facts, the timeline and the collectives ride along the views' scan of each track (one
// read for all).
class ReportRider : public TrackRider {
 public:
  FactsTrackScan* facts = nullptr;
  TimelineTrackScan* timeline = nullptr;
  CommScans* comm = nullptr;
  size_t track = 0;
  void OnSlice(const model::Slice& s) override {
    if (facts) facts->OnSlice(s);
    if (timeline) timeline->OnSlice(s);
    if (comm) comm->OnSlice(track, s);
  }
  void OnPoint(const model::Point& p) override {
    if (comm) comm->OnPoint(track, p);
  }
};

// The first read of the host tracks: the steps and memory over time, which depend on no
// selection, in one scan of each.
std::vector<Step> StepsAndMemory(const model::TraceModel& m, const Options& sel,
                                 MemoryResult* memory, std::vector<Problem>* problems) {
  StepScans steps(m, sel.step_names);
  MemoryScans mem(m);  // the same host tracks, in the same order
  std::vector<std::vector<Problem>> probs(steps.tracks.size());
  ParallelFor(steps.tracks.size(), DefaultThreads(sel.threads), [&](size_t i) {
    model::FanOut both(steps.tracks[i], mem.tracks[i]);
    model::ScanTrack(m, m.tracks[steps.track_index[i]], &probs[i], both);
  });
  for (auto& p : probs) problems->insert(problems->end(), p.begin(), p.end());
  *memory = mem.Fold(1000);
  return steps.Finish();
}

void ViewsFactsAndTimeline(const model::TraceModel& m, const model::TraceSummary& sum,
                           const std::vector<Step>& steps, const std::vector<bool>& keep,
                           const Windows& windows, const ReportOptions& o, ReportData* d,
                           TraceFacts* facts_out, std::vector<Problem>* problems) {
  FactsScans facts(m, windows);
  CommScans comm(m, true);  // with the collectives' overlap with compute
  TimelineWindow tw;
  std::optional<TimelineScans> timeline;
  if (ChooseTimeline(m, sum, steps, keep, &tw))
    timeline.emplace(m, tw.process, tw.start, tw.end, 4000);
  std::vector<ReportRider> riders(m.tracks.size());
  TrackRiders ptrs(m.tracks.size());
  for (size_t i = 0; i < m.tracks.size(); ++i) {
    riders[i].facts = &facts.tracks[i];
    riders[i].comm = &comm;
    riders[i].track = i;
    ptrs[i] = &riders[i];
  }
  if (timeline)
    for (auto& t : timeline->tracks) riders[t.track].timeline = &t;
  std::vector<Result> views = ComputeViews(m, {"step", "op", "kernel", "memcpy", "code"},
                                           o.selection, &steps, problems, &ptrs);
  d->steps = std::move(views[0]);
  d->ops = std::move(views[1]);
  d->kernels = std::move(views[2]);
  d->copies = std::move(views[3]);
  d->code = std::move(views[4]);
  *facts_out = facts.Finish();
  std::vector<CommRank> ranks = comm.Finish(&steps);
  if (!ranks.empty()) d->comm = MatchCollectives(std::move(ranks));
  ShowAppliedClocks(m, &d->comm);
  NoteMissingRanks(m, &d->comm);
  d->clocks = m.clocks;
  if (HasSocketCalls(m) || HasRendezvous(m)) d->p2p = AlignedPointToPoint(m);
  if (timeline) {
    d->timeline = timeline->Finish();
    d->timeline_step = tw.step;
    d->timeline_pid = tw.pid;
  }
}

}  // namespace

// Each stream file is opened once (model::TraceModel::files); each host track is scanned twice
// (steps and memory; then views, facts and timeline, which need the steps), each device track
// once.
ReportData BuildReport(const model::TraceModel& m, const model::TraceSummary& sum,
                       const ReportOptions& o) {
  std::vector<Problem> problems = m.problems;
  problems.insert(problems.end(), sum.problems.begin(), sum.problems.end());
  ReportData d;
  d.top = o.top;
  d.run = Summarise(m, sum, o);
  const Options& sel = o.selection;
  std::vector<Step> steps = StepsAndMemory(m, sel, &d.memory, &problems);
  // A selection that keeps no step fails here, before any progress line.
  Windows windows;
  if (!steps.empty() || sel.steps || sel.skip_warmup)
    windows = SelectWindows(m, steps, sel.steps, sel.skip_warmup);
  std::vector<bool> keep = SelectSteps(steps, sel.steps, sel.skip_warmup);
  d.run.steps_found = steps.size();
  for (bool k : keep) d.run.steps_selected += k;
  d.run.selection = SelectionText(sel);

  o.progress("step-time breakdown, ops, kernels, copies and the timeline");
  FindingInputs in;
  ViewsFactsAndTimeline(m, sum, steps, keep, windows, o, &d, &in.facts, &problems);
  if (!o.include_warmup) {
    // Warm-up steps (tracing, compilation) would flatten the chart and lead the findings.
    std::vector<StepBreakdown> kept;
    for (const auto& b : d.steps.steps) {
      if (!b.warmup) {
        kept.push_back(b);
        continue;
      }
      d.run.warmup_steps++;
      d.run.warmup_ns += b.Duration();
    }
    d.steps.steps = std::move(kept);
  }

  o.progress("what would help most (replay)");
  AddSuggestions(m, sel, 5, &d, &problems);
  o.progress("findings");
  in.steps = d.steps.steps;
  in.ops = d.ops.rows;
  in.op_total_ns = d.ops.total_ns;
  in.unlinked = d.kernels.unlinked;
  in.device_activities = d.kernels.device_activities;
  in.memory = &d.memory;
  in.dropped = d.run.dropped;
  in.comm = &d.comm;
  in.run_ns = d.run.duration_ns;
  d.findings = Findings(in);

  // Damage is met again by every pass: each place once.
  std::set<std::string> seen;
  for (const auto& p : problems)
    if (seen.insert(p.ToString()).second) d.problems.push_back(p.ToString());
  return d;
}

}  // namespace tt::analysis
