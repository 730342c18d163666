#include "analysis/live/live.h"

#include <algorithm>
#include <set>
#include <utility>

#include "analysis/memory/memory.h"
#include "analysis/views/view.h"
#include "core/files.h"

namespace tt::analysis {

namespace {

// The op view's rows in `stats --view op` order (by micros, descending; ties keep the view's
// order), the first `top` of them.
std::vector<LiveOp> TopOps(Result& r, size_t top) {
  std::vector<std::pair<double, size_t>> keys;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    Cell c;
    RowField(r.rows[i], "micros", &c);
    keys.push_back({c.num, i});
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<LiveOp> ops;
  for (const auto& [micros, i] : keys) {
    if (ops.size() >= top) break;
    const Row& row = r.rows[i];
    ops.push_back({row.name, row.incl.count(), static_cast<uint64_t>(micros * 1e3 + 0.5),
                   row.self_ns, row.share});
  }
  return ops;
}

// The mean parts of the steps that ended in the window (at least the last step's).
void MeanParts(const std::vector<const StepBreakdown*>& b, const Window& w, LiveSteps* s) {
  for (const auto* x : b) {
    if (x->end < w.start && x != b.back()) continue;
    ++s->window_steps;
    s->input += x->input, s->compile += x->compile, s->host_compute += x->host_compute;
    s->host_comm += x->host_comm, s->runtime += x->runtime, s->host_idle += x->host_idle;
    s->device_compute += x->device_compute, s->copies += x->copies;
    s->communication += x->communication;
    s->device_idle += x->device_idle_host_bound + x->device_idle_waiting;
    s->has_device |= x->has_device;
  }
  double n = static_cast<double>(s->window_steps);
  for (double* v :
       {&s->input, &s->compile, &s->host_compute, &s->host_comm, &s->runtime, &s->host_idle,
        &s->device_compute, &s->copies, &s->communication, &s->device_idle})
    *v /= n;
}

// Steps per second: the steps that ended in the window over the part of it since the first of
// them started, so a job that stops stepping falls to 0 once its last step leaves the window.
double StepRate(const std::vector<const StepBreakdown*>& b, const Window& w) {
  uint64_t n = 0, first = w.end;
  for (const auto* x : b)
    if (x->end >= w.start && x->end <= w.end) ++n, first = std::min(first, x->start);
  uint64_t from = std::max(w.start, first);
  return n && w.end > from ? static_cast<double>(n) * 1e9 / static_cast<double>(w.end - from) : 0;
}

// Count, mean step time, the last step, the rate and the window's mean parts; `b` in order of
// their ends.
LiveSteps SummariseSteps(const std::vector<const StepBreakdown*>& b, const Window& w) {
  LiveSteps s;
  s.count = b.size();
  for (const auto* x : b) s.warmup += x->warmup;
  // Warm-up steps (tracing, compilation) stay out of the mean unless every step is one.
  uint64_t sum = 0, kept = 0;
  for (const auto* x : b)
    if (!x->warmup || s.warmup == b.size()) sum += x->Duration(), ++kept;
  if (kept) s.mean_ns = static_cast<double>(sum) / static_cast<double>(kept);
  if (b.empty()) return s;
  s.last_ns = b.back()->Duration();
  s.last_number = b.back()->number;
  MeanParts(b, w, &s);
  s.steps_per_s = StepRate(b, w);
  return s;
}

std::vector<const StepBreakdown*> InOrder(const std::vector<StepBreakdown>& all,
                                          std::optional<size_t> process) {
  std::vector<const StepBreakdown*> v;
  for (const auto& b : all)
    if (!process || b.process == *process) v.push_back(&b);
  std::stable_sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->end < b->end; });
  return v;
}

// The complete steps: a step still open where the stream of a process still running ends is
// in progress. Any other step the scan closed is complete as stats counts it: one cut where a
// capture window closed (record --on-demand / --every), closed at max(gap start, its start),
// and one of a process that has ended, closed at its stream's last event.
std::vector<Step> CompleteSteps(const model::TraceModel& m, const LiveOptions& o) {
  std::vector<Step> steps = FindSteps(m, o.step_names, o.threads);
  auto in_progress = [&](const Step& s) {
    const model::Process& p = m.processes[s.process];
    if (!s.unclosed || p.meta.end_state != "running") return false;
    for (const auto& [gap_start, gap_end] : p.capture_gaps)
      if (s.end == std::max(gap_start, s.start)) return false;
    return true;
  };
  std::erase_if(steps, in_progress);
  return steps;
}

// The ops of the window's steps (at least the last step's): the op view with the steps
// numbered first..last selected.
void WindowOps(const model::TraceModel& m, const LiveOptions& o, const std::vector<Step>& steps,
               const std::vector<StepBreakdown>& b, const Window& w, LiveSnapshot* s) {
  if (b.empty()) return;
  const StepBreakdown* latest = &b[0];
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const auto& x : b) {
    if (x.end > latest->end) latest = &x;
    if (x.end < w.start) continue;
    first = std::min(first, x.number);
    last = std::max(last, x.number);
  }
  if (first > last) first = last = latest->number;
  Options opt;
  opt.steps = StepRange{first, last};
  opt.step_names = o.step_names;
  opt.threads = o.threads;
  std::vector<Problem> ignored;
  try {
    std::vector<Result> r = ComputeViews(m, {"op"}, opt, &steps, &ignored);
    s->window_ops = TopOps(r[0], o.top);
    s->window_first_step = first;
    s->window_last_step = last;
  } catch (const Error&) {
    // No step in the selection after all (numbers out of order): no window ops.
  }
}

// The latest imported event of each process, and whether a capture waits to be imported.
void FrameworkData(const model::ProcessSummary& ps, uint64_t now, LiveFramework* f) {
  for (const auto& t : ps.threads) {
    if (!t.imported) continue;
    std::string base = t.file.substr(t.file.find_last_of('/') + 1);
    if (f->name.empty()) f->name = base.starts_with("kineto") ? "kineto" : "xspace";
    f->imported_last_ns = std::max(f->imported_last_ns, t.last_ns);
  }
  // Captures wait in the trace directory, beside the process's own directory.
  std::string trace = ps.dir.substr(0, ps.dir.find_last_of('/'));
  std::string capture = trace + "/xspace/" + std::to_string(ps.meta.pid);
  f->pending = IsDirectory(capture) && !PathExists(capture + "/import.json");
  // How far behind they are: since the last imported event, else (a capture not imported yet)
  // since the process started, the time its profile will cover from.
  uint64_t covered = f->imported_last_ns ? f->imported_last_ns : f->pending ? ps.first_ns : 0;
  if (covered && covered != UINT64_MAX && now >= covered)
    f->age_s = static_cast<double>(now - covered) / 1e9;
}

LiveProcess ProcessRow(const model::TraceModel& m, const model::ProcessSummary& ps,
                       const std::vector<StepBreakdown>& b, const Window& w) {
  LiveProcess p;
  p.pid = ps.meta.pid;
  p.rank = ps.meta.rank;
  p.world_size = ps.meta.world_size;
  p.command = ps.meta.cmdline;
  p.host = ps.meta.hostname;
  p.state = ps.meta.end_state;
  p.events = ps.events;
  p.dropped = model::Drops(ps);
  p.threads = ps.thread_count;
  p.last_event_ns = ps.last_ns;
  for (size_t i = 0; i < m.processes.size(); ++i)
    if (m.processes[i].meta.pid == ps.meta.pid &&
        m.processes[i].meta.exec_generation == ps.meta.exec_generation &&
        m.processes[i].meta.trace_uuid == ps.meta.trace_uuid) {
      p.process = i;
      p.steps = SummariseSteps(InOrder(b, i), w);
    }
  FrameworkData(ps, w.end, &p.framework);
  return p;
}

// Bytes in use at the end of what is written, per process and in all.
void Memory(const model::TraceModel& m, const LiveOptions& o, LiveSnapshot* s) {
  std::vector<Problem> ignored;
  MemoryResult r = ComputeMemory(m, 2, o.threads, &ignored);
  for (const auto& a : r.allocators) {
    s->memory_bytes += a.final_bytes;
    s->has_memory = true;
    for (auto& p : s->processes)
      if (p.process == a.process) {
        p.memory_bytes += a.final_bytes;
        p.has_memory = true;
      }
  }
}

}  // namespace

LiveSnapshot TakeSnapshot(const model::TraceModel& m, const model::TraceSummary& inv,
                          const LiveOptions& o) {
  LiveSnapshot s;
  s.path = m.path;
  s.recording = o.recording;
  s.first_ns = inv.first_ns == UINT64_MAX ? 0 : inv.first_ns;
  s.last_ns = inv.last_ns;
  s.now_ns = o.now_ns && o.now_ns > s.last_ns ? o.now_ns : s.last_ns;
  s.events = inv.events;
  s.window_s = o.window_s;
  s.dropped = model::TotalDrops(inv);
  std::vector<Step> steps = CompleteSteps(m, o);
  Options opt;
  opt.step_names = o.step_names;
  opt.threads = o.threads;
  std::vector<Problem> problems = m.problems;
  std::vector<std::string> views = {"op"};
  if (!steps.empty()) views.push_back("step");
  std::vector<Result> r = ComputeViews(m, views, opt, &steps, &problems);
  s.top_ops = TopOps(r[0], o.top);
  std::vector<StepBreakdown> b = steps.empty() ? std::vector<StepBreakdown>{} : r[1].steps;
  uint64_t window = static_cast<uint64_t>(o.window_s * 1e9);
  Window w{s.now_ns > window ? s.now_ns - window : 0, s.now_ns};
  s.steps = SummariseSteps(InOrder(b, std::nullopt), w);
  WindowOps(m, o, steps, b, w, &s);
  double rates = 0, stepping = 0;
  for (const auto& ps : inv.processes) {
    s.processes.push_back(ProcessRow(m, ps, b, w));
    if (s.processes.back().steps.count) rates += s.processes.back().steps.steps_per_s, ++stepping;
  }
  // Ranks step together: the job's rate is a process's (their mean), not their sum.
  if (stepping > 1) s.steps.steps_per_s = rates / stepping;
  Memory(m, o, &s);
  if (steps.empty()) {
    // A framework's steps and ops come with its profiler's capture, imported only at record's
    // end: say so rather than let 0 steps read as a job that does not step.
    bool pending = false;
    for (const LiveProcess& p : s.processes) pending |= p.framework.pending;
    s.notes.push_back(
        pending ? "no complete step yet: the framework's steps and ops are in its profiler's "
                  "captures, imported when record ends (`tensortrace info` lists the windows)"
                : "no complete step yet (framework step markers, or name the annotation "
                  "that marks one with --step-name)");
  }
  // The inventory read every stream whole (its damage is there); the passes may meet the same.
  std::set<std::string> seen;
  for (const std::vector<Problem>* list : {&inv.problems, &std::as_const(problems)})
    for (const auto& p : *list)
      if (seen.insert(p.ToString()).second && s.first_problem.empty())
        s.first_problem = p.ToString();
  s.problems = seen.size();
  return s;
}

}  // namespace tt::analysis
