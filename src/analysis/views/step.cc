// The step view: per step, host compute, device compute, copies, communication and device idle
// (host-bound or waiting), from the union of each kind's intervals within the step; the host's
// idle time (its gaps) by the Python line the sampler saw in them.
#include <algorithm>

#include "analysis/views/view.h"
#include "format/hardware.h"

namespace tt::analysis {

namespace {

// One process's intervals by kind.
struct ProcessIntervals {
  SortedIntervals host, comm, device, copy, busy;
  // Cumulative unions for the host's precedence: input, + compile, + compute, + communication,
  // + runtime.
  SortedIntervals i, ic, ich, ichm, ichmr;
  bool has_device = false;
  std::vector<FlopsAt> flops;  // by start
};

// The FLOPs of the ops that started in [from, to).
void AddFlops(const std::vector<FlopsAt>& v, uint64_t from, uint64_t to, OpCosts* c) {
  auto it = std::lower_bound(v.begin(), v.end(), from,
                             [](const FlopsAt& f, uint64_t t) { return f.start < t; });
  for (; it != v.end() && it->start < to; ++it) {
    c->float_ops += it->float_ops;
    c->flops_known++;
    c->methods |= it->methods;
  }
}

std::vector<ProcessIntervals> Gather(const Aggregates& a) {
  std::vector<ProcessIntervals> v(a.m->processes.size());
  auto add = [](SortedIntervals* to, const std::vector<Interval>& from) {
    to->v.insert(to->v.end(), from.begin(), from.end());
  };
  for (auto& t : a.host) {
    ProcessIntervals& p = v[a.m->tracks[t.track].process];
    add(&p.host, t.host);
    add(&p.comm, t.comm);
    add(&p.i, t.input);
    add(&p.ic, t.compile);
    add(&p.ichmr, t.runtime_iv);
    p.flops.insert(p.flops.end(), t.flops.begin(), t.flops.end());
  }
  for (auto& t : a.device) {
    ProcessIntervals& p = v[a.m->tracks[t.track].process];
    p.has_device = true;
    add(&p.device, t.device);
    add(&p.copy, t.copy);
    add(&p.comm, t.comm);
  }
  for (auto& p : v) {
    std::sort(p.flops.begin(), p.flops.end(),
              [](const FlopsAt& x, const FlopsAt& y) { return x.start < y.start; });
    // The device is busy with kernels, copies or communication (built once per process).
    if (p.has_device) {
      p.busy.v = p.device.v;
      add(&p.busy, p.copy.v);
      add(&p.busy, p.comm.v);
    }
    add(&p.ic, p.i.v);
    p.ich.v = p.ic.v;
    add(&p.ich, p.host.v);
    p.ichm.v = p.ich.v;
    add(&p.ichm, p.comm.v);
    add(&p.ichmr, p.ichm.v);
    for (auto* s :
         {&p.host, &p.comm, &p.device, &p.copy, &p.busy, &p.i, &p.ic, &p.ich, &p.ichm, &p.ichmr})
      s->Build();
  }
  return v;
}

// The breakdown of one part of a step's time (added to b).
void AddPart(const Window& w, const ProcessIntervals& p, StepBreakdown* b) {
  uint64_t from = w.start, to = w.end;
  uint64_t i = UnionLength(p.i, from, to), ic = UnionLength(p.ic, from, to);
  uint64_t ich = UnionLength(p.ich, from, to), ichm = UnionLength(p.ichm, from, to);
  uint64_t ichmr = UnionLength(p.ichmr, from, to);
  b->duration += to - from;
  b->input += i;
  b->compile += ic - i;
  b->host_compute += ich - ic;
  b->host_comm += ichm - ich;
  b->runtime += ichmr - ichm;
  b->host_idle += (to - from) - ichmr;
  b->device_compute += UnionLength(p.device, from, to);
  b->copies += UnionLength(p.copy, from, to);
  b->communication += UnionLength(p.comm, from, to);
  if (!p.has_device) return;
  uint64_t dev_busy = UnionLength(p.busy, from, to);
  uint64_t idle = (to - from) - dev_busy;
  uint64_t host = UnionLength(p.host, from, to);
  uint64_t busy_and_host = OverlapLength(p.busy, p.host, from, to);
  uint64_t host_during_idle = host - std::min(host, busy_and_host);
  uint64_t host_bound = std::min(idle, host_during_idle);
  b->device_idle_host_bound += host_bound;
  b->device_idle_waiting += idle - host_bound;
}

// The gaps of one part of a step (host time that no interval of any kind covers) by the stack
// the sampler saw then (added to `stacks`).
void AddGapStacks(const Window& w, const ProcessIntervals& p, const ProcessCode& pc,
                  std::map<uint32_t, uint64_t>* stacks) {
  auto add = [&](uint64_t from, uint64_t to) {
    for (const auto& [stack, ns] : StacksDuring(pc, from, to)) (*stacks)[stack] += ns;
  };
  uint64_t at = w.start;
  for (const Interval& iv : p.ichmr.Merged(w.start, w.end)) {
    if (iv.start > at) add(at, iv.start);
    at = std::max(at, iv.end);
  }
  if (w.end > at) add(at, w.end);
}

// The gaps' stacks as lines, most time first.
std::vector<std::pair<std::string, uint64_t>> GapLines(const ProcessCode& pc,
                                                       const std::map<uint32_t, uint64_t>& stacks) {
  std::map<std::string, uint64_t> lines;
  for (const auto& [stack, ns] : stacks) {
    std::string line = LineOfStack(pc, stack);
    lines[line.empty() ? "(no Python stack)" : line] += ns;
  }
  std::vector<std::pair<std::string, uint64_t>> out(lines.begin(), lines.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  return out;
}

// A step's breakdown over its parts: [start, end], or a JAX step's call and the execution it
// caused (not the other steps' calls the host made between them).
StepBreakdown Breakdown(const Step& s, const ProcessIntervals& p, const ProcessCode* pc) {
  StepBreakdown b;
  b.number = s.number;
  b.process = s.process;
  b.start = s.start;
  b.end = s.end;
  b.has_device = p.has_device;
  std::map<uint32_t, uint64_t> gaps;
  for (const Window& w : StepParts(s)) {
    AddPart(w, p, &b);
    if (pc && !pc->samples.empty()) AddGapStacks(w, p, *pc, &gaps);
    // A JAX step's FLOPs are its execution's: its call may overlap the previous step's
    // execution (asynchronous dispatch), whose ops are that step's.
    if (!s.exec_end) AddFlops(p.flops, w.start, w.end, &b.costs);
  }
  if (s.exec_end) AddFlops(p.flops, s.exec_start, s.exec_end, &b.costs);
  if (pc) b.gap_lines = GapLines(*pc, gaps);
  b.warmup = s.warmup;  // the job's (model/job/warmup.h)
  return b;
}

// Model FLOP utilisation: the step's FLOP/s over the recording host's FP32 peak (hardware.json).
void AddUtilisation(const StepBreakdown& b, const CpuPeak& peak, Row* r) {
  if (peak.fp32 <= 0) return;
  r->numbers.push_back({"peak_flops_per_second", peak.fp32});
  if (b.costs.flops_known && b.Duration())
    r->numbers.push_back(
        {"mfu", static_cast<double>(b.costs.float_ops) / (b.Duration() / 1e9) / peak.fp32});
}

Row StepRow(const StepBreakdown& b, const Step& s, const model::TraceModel& m) {
  Row r;
  r.name = std::to_string(b.number);
  r.text = {{"source", StepSourceName(s.source)}};
  auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1e3; };
  r.self_ns = b.Duration();
  r.costs = b.costs;
  r.numbers = {{"step", static_cast<double>(b.number)},
               {"pid", static_cast<double>(m.processes[b.process].meta.pid)},
               {"rank", RankNumber(m.processes[b.process])},
               {"start_ns", static_cast<double>(b.start)},
               {"duration_micros", us(b.Duration())},
               {"warmup", b.warmup ? 1.0 : 0.0},
               {"input_micros", us(b.input)},
               {"compile_micros", us(b.compile)},
               {"host_compute_micros", us(b.host_compute)},
               {"runtime_micros", us(b.runtime)},
               {"host_idle_micros", us(b.host_idle)},
               {"device_compute_micros", us(b.device_compute)},
               {"copies_micros", us(b.copies)},
               {"communication_micros", us(b.communication)},
               {"device_idle_host_bound_micros", us(b.device_idle_host_bound)},
               {"device_idle_waiting_micros", us(b.device_idle_waiting)}};
  if (!b.gap_lines.empty()) {
    r.text.push_back({"gap_line", b.gap_lines[0].first});
    r.numbers.push_back({"gap_line_micros", us(b.gap_lines[0].second)});
  }
  return r;
}

// The peak a process's steps are measured against: its recording's GPU's where it ran device
// work and the recording names the GPU, else the CPU's (hardware.json); and a note per process
// whose steps did floating-point work.
std::vector<CpuPeak> Peaks(const Aggregates& a, const std::vector<ProcessIntervals>& iv,
                           std::vector<std::string>* notes) {
  std::map<std::string, std::pair<CpuPeak, GpuPeak>> by_recording;
  std::vector<CpuPeak> peaks;
  for (size_t p = 0; p < a.m->processes.size(); ++p) {
    const std::string& dir = a.m->processes[p].recording;
    auto it = by_recording.find(dir);
    if (it == by_recording.end())
      it = by_recording.emplace(dir, std::pair(ReadHardwareFile(dir), ReadGpuPeak(dir))).first;
    const GpuPeak& gpu = it->second.second;
    peaks.push_back(iv[p].has_device && gpu.fp32 > 0 ? CpuPeak{gpu.fp32, gpu.bf16, gpu.source}
                                                     : it->second.first);
    if (iv[p].flops.empty()) continue;
    std::string pid = std::to_string(a.m->processes[p].meta.pid);
    notes->push_back(peaks.back().fp32 > 0
                         ? "process " + pid + ": mfu against " + peaks.back().source + " (FP32)"
                         : "process " + pid +
                               ": no mfu (the recording names no peak: "
                               "recorded before hardware.json)");
  }
  return peaks;
}

// The steps' indices, each process's in rank order (the processes without one first, in the
// job's order), so that the rows of one step number list the ranks in order.
std::vector<size_t> InRankOrder(const model::TraceModel& m, const std::vector<Step>& steps) {
  std::vector<size_t> order(steps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return m.processes[steps[x].process].meta.rank < m.processes[steps[y].process].meta.rank;
  });
  return order;
}

void Finish(Aggregates& a, Result* r) {
  std::vector<ProcessIntervals> iv = Gather(a);
  std::vector<std::string> peak_notes;
  std::vector<CpuPeak> peaks = Peaks(a, iv, &peak_notes);
  std::vector<bool> keep = SelectSteps(a.steps, a.sel.steps, a.sel.skip_warmup);
  for (size_t i : InRankOrder(*a.m, a.steps))
    if (keep[i]) {
      size_t p = a.steps[i].process;
      r->steps.push_back(Breakdown(a.steps[i], iv[p],
                                   p < a.code.processes.size() ? &a.code.processes[p] : nullptr));
      r->steps.back().rank = a.m->processes[a.steps[i].process].meta.rank;
      if (a.sel.breakdowns_only) continue;  // a row is 1.1 KB: the tables' export has millions
      r->rows.push_back(StepRow(r->steps.back(), a.steps[i], *a.m));
      AddUtilisation(r->steps.back(), peaks[a.steps[i].process], &r->rows.back());
    }
  if (r->steps.empty())
    r->notes.push_back(a.steps.empty() ? "no steps in this trace (name the annotation that marks "
                                         "a step with --step-name NAME)"
                                       : "no step matches the selection");
  // The peaks, then how each process's steps were found, last (after the reason for none,
  // which the report shows first).
  r->notes.insert(r->notes.end(), peak_notes.begin(), peak_notes.end());
  std::vector<std::string> how = DescribeStepSources(*a.m, a.steps);
  for (size_t p = 0; p < how.size(); ++p)
    if (!how[p].empty())
      r->notes.push_back("process " + std::to_string(a.m->processes[p].meta.pid) + ": " + how[p]);
}

}  // namespace

extern const ViewDef kStepView = {
    .name = "step",
    .help =
        "per step: waiting for input, compilation, host compute, framework runtime, host\n"
        "idle; device compute, copies, communication, device idle (host-bound or waiting);\n"
        "warm-up steps (holding tracing or compilation) marked; gap_line: the Python line\n"
        "the sampler saw most in the host idle time (gap_line_micros of it)",
    .fields = {{"step", ColumnKind::kCount},
               {"pid", ColumnKind::kCount},
               {"rank", ColumnKind::kCount},
               {"source", ColumnKind::kText},
               {"warmup", ColumnKind::kBool},
               {"duration_micros", ColumnKind::kMicros},
               {"input_micros", ColumnKind::kMicros},
               {"compile_micros", ColumnKind::kMicros},
               {"host_compute_micros", ColumnKind::kMicros},
               {"runtime_micros", ColumnKind::kMicros},
               {"host_idle_micros", ColumnKind::kMicros},
               {"device_compute_micros", ColumnKind::kMicros},
               {"copies_micros", ColumnKind::kMicros},
               {"communication_micros", ColumnKind::kMicros},
               {"device_idle_host_bound_micros", ColumnKind::kMicros},
               {"device_idle_waiting_micros", ColumnKind::kMicros},
               {"gap_line", ColumnKind::kText},
               {"gap_line_micros", ColumnKind::kMicros},
               {"float_ops", ColumnKind::kCount},
               {"flops_per_second", ColumnKind::kCount},
               {"flops_method", ColumnKind::kText},
               {"peak_flops_per_second", ColumnKind::kCount},
               {"mfu", ColumnKind::kRatio}},
    .columns = {"step", "pid", "source", "warmup", "duration_micros", "input_micros",
                "compile_micros", "host_compute_micros", "runtime_micros", "host_idle_micros",
                "device_compute_micros", "copies_micros", "communication_micros",
                "device_idle_host_bound_micros", "device_idle_waiting_micros", "mfu", "gap_line"},
    .common_fields = false,
    .order_by = "step",
    .needs = {.intervals = true, .steps = true, .samples = true},
    .finish = Finish,
};

}  // namespace tt::analysis
