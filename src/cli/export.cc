// `tensortrace export`: the trace in formats other tools open.
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/files.h"
#include "export/chrome.h"
#include "export/csv.h"
#include "export/perfetto.h"
#include "export/xspace.h"
#include "model/model.h"

namespace tt::cli {

namespace {

const char kExportHelp[] =
    R"(usage: tensortrace export DIR --format perfetto|chrome|csv|xspace -o PATH
                          [--gzip] [--steps A:B] [--skip-warmup N] [--step-name NAME]
                          [--max-events N]

Writes the trace in DIR to PATH. Every format streams: memory does not grow with the number of
events (xspace holds the names and the steps, and sorts its events in a temporary file beside
its output, up to about 1.5 times the output's size, that nothing leaves behind).

formats:
  perfetto Perfetto's own protobuf trace: opens in ui.perfetto.dev and trace_processor, at any
           size. A track per process, thread, GPU stream and counter; slices with their
           arguments, instants, counters; a counter of allocator memory in use per process
           (MemoryAllocation bytes minus the ones freed, matched by addr); flows from each
           launch to its kernel or copy (correlation_id) and from each framework op to its
           device work (external_id, or a launch inside the op). Timestamps in ns as traced.
           Schema: src/export/proto/perfetto_trace.proto. Gzipped with --gzip or .gz.
  chrome   Chrome trace-event JSON: opens in Perfetto's UI (ui.perfetto.dev) and chrome://tracing.
           Slices, instants, counters, process and thread names, and a flow from each CUDA
           launch to the kernel or copy it started. Gzipped with --gzip or a PATH ending in .gz.
  csv      one row per slice, instant and counter sample, with every field
  xspace   the TensorFlow profiler's XSpace for TensorBoard's profile plugin (xprof): PATH is a
           log directory; writes PATH/plugins/profile/RUN/HOST.xplane.pb (RUN from the trace's
           start time). Host threads, GPU streams, ops, steps, kernels, copies, allocations.
           An existing, non-empty RUN is refused. protobuf (and so xprof) reads at most 2 GiB
           per file: a larger selection is refused (choose part with --steps or --max-events).

selection:
  --steps A:B, --skip-warmup N, --step-name NAME   as in `tensortrace stats`
  --max-events N   only the N earliest events (Chrome's viewer struggles past ~1.5 million)
  -h, --help       this help

The file appears only when complete; on any error nothing is left at PATH.
)";

constexpr uint64_t kChromeComfort = 1500000;

void WarnProblems(const std::vector<Problem>& problems) {
  if (!problems.empty())
    std::cerr << "tensortrace export: warning: " << problems.size()
              << " damaged part(s) skipped; the first: " << problems[0].ToString() << "\n";
}

int ExportXSpace(const std::string& dir, const std::string& logdir,
                 const exporter::Selection& sel) {
  model::TraceModel m = model::LoadModel(dir);
  std::vector<Problem> problems = m.problems;
  exporter::XSpaceResult r = exporter::WriteXSpace(m, sel, logdir, &problems);
  for (const auto& f : r.files) std::cerr << "tensortrace export: wrote " << f << "\n";
  std::cerr << "tensortrace export: " << r.walk.events << " events (" << r.op_events << " ops, "
            << r.steps << " steps, " << r.kernel_events << " kernels, " << r.memcpy_events
            << " copies), " << r.bytes << " bytes; open with: tensorboard --logdir " << logdir
            << "\n";
  if (r.walk.left_out)
    std::cerr << "tensortrace export: --max-events left out " << r.walk.left_out
              << " later events\n";
  WarnProblems(problems);
  return 0;
}

}  // namespace

int Export(const std::vector<std::string>& argv) {
  ArgReader a("export", argv);
  std::string dir, format, out, v;
  bool gzip = false;
  exporter::Selection sel;
  while (!a.Done()) {
    if (a.Flag("-h") || a.Flag("--help")) {
      std::cout << kExportHelp;
      return 0;
    } else if (a.Option("--format", &format) || a.Option("-f", &format)) {
    } else if (a.Option("-o", &out) || a.Option("--output", &out)) {
    } else if (a.Flag("--gzip")) {
      gzip = true;
    } else if (a.Option("--steps", &v)) {
      sel.steps = ParseStepRange(v);
    } else if (a.Option("--skip-warmup", &v)) {
      sel.skip_warmup = ParseUint("--skip-warmup", v);
    } else if (a.Option("--step-name", &v)) {
      sel.step_names.push_back(v);
    } else if (a.Option("--max-events", &v)) {
      sel.max_events = ParseUint("--max-events", v);
      if (sel.max_events == 0) throw Error("--max-events: must be at least 1");
    } else if (!a.Peek().empty() && a.Peek()[0] != '-' && dir.empty()) {
      dir = a.TakePositional();
    } else {
      a.Unknown();
    }
  }
  if (dir.empty()) throw Error("no trace directory given (usage: tensortrace export DIR ...)");
  if (format.empty()) throw Error("no --format given (formats: perfetto, chrome, csv, xspace)");
  if (format != "chrome" && format != "csv" && format != "perfetto" && format != "xspace")
    throw Error("--format: unknown format '" + format +
                "' (formats available: perfetto, chrome, csv, xspace)");
  if (out.empty()) throw Error("no output given (-o PATH)");
  if (format == "xspace" && gzip) throw Error("--gzip: not for xspace (xprof reads plain .pb)");
  if (format == "xspace") return ExportXSpace(dir, out, sel);
  if (IsDirectory(out)) throw Error("-o: " + out + " is a directory; give a file name");
  if (out.size() > 3 && out.compare(out.size() - 3, 3, ".gz") == 0) gzip = true;

  model::TraceModel m = model::LoadModel(dir);
  std::vector<Problem> problems = m.problems;
  exporter::Sink sink(out, gzip);
  exporter::WalkResult r;
  uint64_t flows = 0;
  std::string extra;
  if (format == "chrome") {
    r = exporter::WriteChrome(m, sel, sink, &problems, &flows);
    extra = " and " + std::to_string(flows) + " flows";
  } else if (format == "perfetto") {
    exporter::PerfettoCounts c;
    r = exporter::WritePerfetto(m, sel, sink, &problems, &c);
    extra = ", " + std::to_string(c.flows) + " flows and " + std::to_string(c.memory_samples) +
            " memory samples";
  } else {
    r = exporter::WriteCsv(m, sel, sink, &problems);
  }
  sink.Commit();
  std::cerr << "tensortrace export: wrote " << r.events << " events" << extra << " to " << out
            << " (" << sink.bytes() << " bytes before compression)\n";
  if (r.left_out)
    std::cerr << "tensortrace export: --max-events left out " << r.left_out << " later events\n";
  if (format == "chrome" && r.events > kChromeComfort)
    std::cerr << "tensortrace export: note: " << r.events
              << " events is more than Chrome's trace viewer handles well (about 1.5 million); "
                 "choose fewer with --steps A:B or --max-events N\n";
  if (!problems.empty())
    std::cerr << "tensortrace export: warning: " << problems.size()
              << " damaged part(s) skipped; the first: " << problems[0].ToString() << "\n";
  return 0;
}

}  // namespace tt::cli
