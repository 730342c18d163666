// `tensortrace report`: one self-contained HTML page that explains a trace.
#include <iostream>
#include <set>

#include "analysis/findings.h"
#include "analysis/memory.h"
#include "analysis/stats.h"
#include "analysis/timeline.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/framework_capture.h"
#include "cli/summary.h"
#include "core/files.h"
#include "export/report_html.h"
#include "model/model.h"

namespace tt::cli {

namespace {

const char kReportHelp[] =
    R"(usage: tensortrace report DIR -o PATH [--title TEXT] [--steps A:B] [--skip-warmup N]
                          [--step-name NAME] [--top N]

Writes one self-contained HTML page about the trace in DIR to PATH: it loads nothing from the
network (inline styles and SVG charts, no script) and prints well.

  run summary        command, host, framework versions, duration, steps, processes, threads,
                     devices, dropped events
  findings           plain-language statements with their numbers, each shown only when it
                     holds (device idle while the host computes, short kernels, synchronous
                     copies, the memory peak and the op at it, dropped events, slow steps, ...)
  step time          per step: host compute, device compute, copies, communication, device
                     idle (host-bound or waiting), as stacked bars
  top ops, kernels   as in `tensortrace stats --view op` and `--view kernel`
  memory over time   bytes in use per allocator, the peak and the op running at it
  copies             as in `tensortrace stats --view memcpy`, with bandwidth
  timeline           the step of median duration, one row per thread and GPU stream (with no
                     steps: the first process's whole run)

options:
  -o, --output PATH  the HTML file (required); it appears only when complete
  --title TEXT       the page's title (default: "tensortrace report")
  --steps A:B, --skip-warmup N, --step-name NAME   which steps count, as in `tensortrace stats`
                     (memory over time always covers the whole trace)
  --top N            rows in the ops, kernels and copies tables (default 20)
  -h, --help         this help
)";

void Progress(const char* what) { std::cerr << "tensortrace report: " << what << "\n"; }

}  // namespace

int Report(const std::vector<std::string>& argv) {
  ArgReader a("report", argv);
  std::string dir, out, title, v;
  analysis::Options opt;
  size_t top = 20;
  while (!a.Done()) {
    if (a.Flag("-h") || a.Flag("--help")) {
      std::cout << kReportHelp;
      return 0;
    } else if (a.Option("-o", &out) || a.Option("--output", &out)) {
    } else if (a.Option("--title", &title)) {
    } else if (a.Option("--steps", &v)) {
      opt.steps = ParseStepRange(v);
    } else if (a.Option("--skip-warmup", &v)) {
      opt.skip_warmup = ParseUint("--skip-warmup", v);
    } else if (a.Option("--step-name", &v)) {
      opt.step_names.push_back(v);
    } else if (a.Option("--top", &v)) {
      top = ParseUint("--top", v);
      if (top == 0) throw Error("--top: must be at least 1");
    } else if (!a.Peek().empty() && a.Peek()[0] != '-' && dir.empty()) {
      dir = a.TakePositional();
    } else {
      a.Unknown();
    }
  }
  if (dir.empty()) throw Error("no trace directory given (usage: tensortrace report DIR -o PATH)");
  if (out.empty()) throw Error("no output given (-o PATH)");
  if (IsDirectory(out)) throw Error("-o: " + out + " is a directory; give a file name");

  TraceSummary sum = Summarise(OpenTrace(dir));
  // Names, thread names and clock records alone say nothing about the run.
  uint64_t records = 0;
  for (const auto& p : sum.processes)
    for (uint64_t n : p.by_category) records += n;
  if (records == 0)
    throw Error("empty trace: " + dir +
                " holds no slices, instants or counters, so there is nothing to report");
  model::TraceModel m = model::LoadModel(dir);
  // Created before the long work, so that an unwritable PATH fails at once; removed on error.
  exporter::Sink sink(out, false);
  std::vector<Problem> problems = m.problems;
  problems.insert(problems.end(), sum.problems.begin(), sum.problems.end());

  exporter::ReportData d;
  d.top = top;
  exporter::RunSummary& run = d.run;
  run.title = title;
  run.trace = m.path;
  std::set<std::string> hosts;
  for (const auto& p : sum.processes) {
    run.commands.push_back("pid " + std::to_string(p.meta.pid) + ": " + p.meta.cmdline);
    if (!p.meta.hostname.empty()) hosts.insert(p.meta.hostname);
    for (const auto& [src, details] : p.source_details)
      for (const auto& detail : details) {
        auto e = std::make_pair(src, detail);
        if (std::find(run.versions.begin(), run.versions.end(), e) == run.versions.end())
          run.versions.push_back(e);
      }
    run.dropped += Drops(p);
  }
  run.hosts.assign(hosts.begin(), hosts.end());
  // Framework versions from the profiler captures of the Python bootstrap.
  for (const auto& c : LoadFrameworkCaptures(dir)) {
    if (!c.capture.is_object() || !c.capture.value("framework", nlohmann::json()).is_string())
      continue;
    auto e = std::make_pair(c.capture["framework"].get<std::string>(),
                            c.capture.value("version", nlohmann::json("")).is_string()
                                ? c.capture.value("version", std::string())
                                : std::string());
    if (std::find(run.versions.begin(), run.versions.end(), e) == run.versions.end())
      run.versions.push_back(e);
  }
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

  std::vector<analysis::Step> steps = analysis::FindSteps(m, opt.step_names, 0);
  // A selection that keeps no step fails here, before any progress line.
  analysis::Windows windows;
  if (!steps.empty() || opt.steps || opt.skip_warmup)
    windows = analysis::SelectWindows(m, steps, opt.steps, opt.skip_warmup);
  std::vector<bool> keep = analysis::SelectSteps(steps, opt.steps, opt.skip_warmup);
  run.steps_found = steps.size();
  for (bool k : keep) run.steps_selected += k;
  if (opt.steps)
    run.selection = "steps " + std::to_string(opt.steps->first) + ":" +
                    (opt.steps->last == INT64_MAX ? "" : std::to_string(opt.steps->last));
  if (opt.skip_warmup)
    run.selection += (run.selection.empty() ? "" : ", ") + std::string("first ") +
                     std::to_string(opt.skip_warmup) + " skipped";

  auto view = [&](analysis::View vw, const char* what) {
    Progress(what);
    analysis::Options o = opt;
    o.view = vw;
    return analysis::Compute(m, o, &problems);
  };
  d.steps = view(analysis::View::kStep, "step-time breakdown");
  d.ops = view(analysis::View::kOp, "ops");
  d.kernels = view(analysis::View::kKernel, "kernels");
  d.copies = view(analysis::View::kMemcpy, "copies");
  Progress("memory over time");
  d.memory = analysis::ComputeMemory(m, 1000, 0, &problems);
  if (const analysis::Step* s = analysis::MedianStep(steps, keep)) {
    Progress("timeline of the median step");
    d.timeline = analysis::ComputeTimeline(m, s->process, s->start, s->end, 4000, 0, &problems);
    d.timeline_step = s->number;
    d.timeline_pid = static_cast<uint64_t>(m.processes[s->process].meta.pid);
  } else if (steps.empty() && !sum.processes.empty()) {
    // No steps: the first process's whole run stands in (the longest slices of each thread).
    Progress("timeline of the first process");
    const ProcessSummary& p = sum.processes[0];
    size_t index = 0;
    for (size_t i = 0; i < m.processes.size(); ++i)
      if (m.processes[i].meta.pid == p.meta.pid &&
          m.processes[i].meta.exec_generation == p.meta.exec_generation)
        index = i;
    if (p.first_ns != UINT64_MAX && p.last_ns > p.first_ns) {
      d.timeline =
          analysis::ComputeTimeline(m, index, p.first_ns, p.last_ns + 1, 4000, 0, &problems);
      d.timeline_pid = static_cast<uint64_t>(p.meta.pid);
    }
  }
  Progress("findings");
  analysis::FindingInputs in;
  in.steps = d.steps.steps;
  in.ops = d.ops.rows;
  in.op_total_ns = d.ops.total_ns;
  in.unlinked = d.kernels.unlinked;
  in.device_activities = d.kernels.device_activities;
  in.facts = analysis::ScanFacts(m, windows, 0, &problems);
  in.memory = &d.memory;
  in.dropped = run.dropped;
  d.findings = analysis::Findings(in);

  // Damage is met again by every pass: each place once.
  std::set<std::string> seen;
  for (const auto& p : problems)
    if (seen.insert(p.ToString()).second) d.problems.push_back(p.ToString());

  exporter::WriteReportHtml(d, sink);
  sink.Commit();
  std::cerr << "tensortrace report: wrote " << out << " (" << sink.bytes() << " bytes, "
            << d.findings.size() << " findings)\n";
  if (!d.problems.empty())
    std::cerr << "tensortrace report: warning: " << d.problems.size()
              << " damaged part(s) skipped; the first: " << d.problems[0] << "\n";
  return 0;
}

}  // namespace tt::cli
