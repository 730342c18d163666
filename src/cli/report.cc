// `tensortrace report`: one self-contained HTML page that explains a trace.
#include <algorithm>
#include <iostream>

#include "analysis/memory/memory.h"
#include "analysis/report/findings.h"
#include "analysis/report/timeline.h"
#include "analysis/views/stats.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/framework_capture.h"
#include "cli/memory.h"
#include "cli/option_groups.h"
#include "cli/pids.h"
#include "core/files.h"
#include "export/report_html.h"
#include "model/inventory.h"
#include "model/model.h"

namespace tt::cli {

using model::Drops;
using model::ProcessSummary;
using model::Summarise;
using model::ThreadSummary;
using model::TraceSummary;

namespace {

const char kReportHelp[] =
    R"(usage: tensortrace report DIR... -o PATH [--title TEXT] [--steps A:B] [--skip-warmup N]
                          [--step-name NAME] [--include-warmup] [--top N] [--pid P]...
                          [--all-frames]

Writes one self-contained HTML page about the trace in DIR to PATH: it loads nothing from the
network (inline styles and SVG charts, no script) and prints well. Several directories (one
recording per rank or host) are reported as one job.

  run summary        command, host, framework versions, duration, steps, processes, threads,
                     devices, dropped events
  what would help    replay's what-ifs (the critical path's heaviest ops twice as fast, no
                     input wait, faster or overlapped communication), each with the step time
                     replay predicts, best first (`tensortrace replay --suggest`)
  findings           plain-language statements with their numbers, each shown only when it
                     holds (device idle while the host computes, short kernels, synchronous
                     copies, the memory peak and the op at it, dropped events, slow steps, a
                     straggler rank, many small collectives, ...)
  step time          per step: host compute, device compute, copies, communication, device
                     idle (host-bound or waiting), as stacked bars
  top ops, kernels   as in `tensortrace stats --view op` and `--view kernel` (the ops' float_ops
                     and flops_per_second where some op's FLOPs are known)
  roofline           each op type whose FLOPs and bytes are known: arithmetic intensity
                     against achieved FLOP/s, under the recording host's FP32 peak
  hottest lines      op time by the innermost line of the program's own files behind each op
                     (`tensortrace stats --view code`; library frames folded)
  memory over time   bytes in use per allocator, the peak and the op running at it (with
                     no allocation event: why, and which option of record captures them)
  copies             as in `tensortrace stats --view memcpy`, with bandwidth
  communication      the collectives matched across ranks, as in `tensortrace comm`: per
                     collective (calls, bytes, time, wait), per rank, the instances that
                     waited longest with their straggler
  timeline           the step of median duration, one row per thread and GPU stream (with no
                     steps: the first process's whole run)

Warm-up steps (those holding tracing or compilation: a tf.function, XLA, torch.compile)
are left out of the step chart, averages and findings, with a note of their number and
time, unless --include-warmup; memory over time always covers the whole trace.

options:
  -o, --output PATH  the HTML file (required); it appears only when complete
  --title TEXT      the page's title (default: "tensortrace report")
  --all-frames      hottest lines: library frames count as lines too (not folded)
)";

const OutputSpec kOutput{.top_rows = "rows in the ops, lines, kernels and copies tables",
                         .top_default = 20,
                         .top_min = 1};
const SelectionSpec kSelection{.steps = true,
                               .step_name = true,
                               .pid = true,
                               .skip_warmup = true,
                               .warmup = WarmupDefault::kLeftOut};

std::string ReportHelp() { return kReportHelp + SelectionHelp(kSelection) + OutputHelp(kOutput); }

struct ReportArgs {
  std::string dir, path;          // DIR, and -o PATH
  std::vector<std::string> more;  // further directories: one job (a recording per rank)
  SelectionOptions sel;
  OutputOptions out{kOutput};
  analysis::ReportOptions ro;
};

// False when the help was asked for (and printed).
bool ParseReportArgs(const std::vector<std::string>& argv, ReportArgs* r) {
  ArgReader a("report", argv);
  std::string v;
  analysis::Options& opt = r->ro.selection;
  while (!a.Done()) {
    if (ParseOutputOption(a, kOutput, &r->out)) {
      if (!r->out.help) continue;
      std::cout << ReportHelp();
      return false;
    } else if (a.Option("-o", &r->path) || a.Option("--output", &r->path)) {
    } else if (a.Option("--title", &r->ro.title)) {
    } else if (ParseSelectionOption(a, kSelection, &r->sel)) {
    } else if (a.Flag("--all-frames")) {
      opt.all_frames = true;
    } else if (!a.Peek().empty() && a.Peek()[0] != '-') {
      (r->dir.empty() ? r->dir : r->more.emplace_back()) = a.TakePositional();
    } else {
      a.Unknown();
    }
  }
  opt.steps = r->sel.steps;
  opt.skip_warmup = r->sel.SkipWarmup(kSelection);
  opt.step_names = r->sel.step_names;
  r->ro.include_warmup = r->sel.include_warmup;
  r->ro.top = r->out.top;
  if (r->dir.empty())
    throw Error("no trace directory given (usage: tensortrace report DIR... -o PATH)");
  if (r->path.empty()) throw Error("no output given (-o PATH)");
  if (IsDirectory(r->path)) throw Error("-o: " + r->path + " is a directory; give a file name");
  return true;
}

// Framework versions from the profiler captures of the Python bootstrap.
std::vector<std::pair<std::string, std::string>> CaptureVersions(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> v;
  for (const auto& c : LoadFrameworkCaptures(dir)) {
    if (!c.capture.is_object() || !c.capture.value("framework", nlohmann::json()).is_string())
      continue;
    v.emplace_back(c.capture["framework"].get<std::string>(),
                   c.capture.value("version", nlohmann::json("")).is_string()
                       ? c.capture.value("version", std::string())
                       : std::string());
  }
  return v;
}

}  // namespace

int Report(const std::vector<std::string>& argv) {
  ReportArgs r;
  if (!ParseReportArgs(argv, &r)) return 0;
  const std::string& dir = r.dir;
  analysis::ReportOptions& ro = r.ro;
  RemoveTemporaryFilesOnSignal();  // killed part-way, report leaves no PATH.tmp<pid>.* behind
  // The model and the inventory from one read of each stream file (opened once: StreamFiles).
  TraceSummary sum;
  model::TraceModel m = LoadJob(DirList(dir, r.more), r.sel.Chosen(), &sum);
  // Names, thread names and clock records alone say nothing about the run.
  uint64_t records = 0;
  for (const auto& p : sum.processes)
    for (uint64_t n : p.by_category) records += n;
  if (records == 0)
    throw Error("empty trace: " + dir +
                " holds no slices, instants or counters, so there is nothing to report");
  // Created before the long work, so that an unwritable PATH fails at once; removed on error.
  exporter::Sink sink(r.path, false);
  for (const auto& d : DirList(dir, r.more))
    for (auto& v : CaptureVersions(d))
      if (std::find(ro.versions.begin(), ro.versions.end(), v) == ro.versions.end())
        ro.versions.push_back(std::move(v));
  ro.progress = [](const char* what) { std::cerr << "tensortrace report: " << what << "\n"; };
  analysis::ReportData d = analysis::BuildReport(m, sum, ro);
  if (d.memory.allocators.empty()) d.memory_note = MemoryMissingNote(dir, r.sel.pids);
  exporter::WriteReportHtml(d, sink);
  sink.Commit();
  std::cerr << "tensortrace report: wrote " << r.path << " (" << sink.bytes() << " bytes, "
            << d.findings.size() << " findings)\n";
  return 0;
}

}  // namespace tt::cli
