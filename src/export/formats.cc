#include "export/formats.h"

#include "export/chrome.h"
#include "export/csv.h"
#include "export/parquet.h"
#include "export/perfetto.h"
#include "export/sink.h"
#include "export/xspace.h"

namespace tt::exporter {

namespace {

// Past this many events Chrome's trace viewer struggles.
constexpr uint64_t kChromeComfort = 1500000;

// A file format written through a Sink: `write` fills it and returns the walk and any extra
// words for the line ("and 3 flows").
template <typename F>
ExportOutcome ToFile(const std::string& path, bool gzip, F write) {
  Sink sink(path, gzip);
  std::string extra;
  WalkResult r = write(sink, &extra);
  sink.Commit();
  ExportOutcome o{r.events, r.left_out, {}};
  o.lines.push_back("wrote " + std::to_string(r.events) + " events" + extra + " to " + path + " (" +
                    std::to_string(sink.bytes()) + " bytes before compression)");
  return o;
}

ExportOutcome Perfetto(const model::TraceModel& m, const Selection& sel, const std::string& path,
                       bool gzip, std::vector<Problem>* problems) {
  return ToFile(path, gzip, [&](Sink& sink, std::string* extra) {
    PerfettoCounts c;
    WalkResult r = WritePerfetto(m, sel, sink, problems, &c);
    *extra = ", " + std::to_string(c.flows) + " flows and " + std::to_string(c.memory_samples) +
             " memory samples";
    return r;
  });
}

ExportOutcome Chrome(const model::TraceModel& m, const Selection& sel, const std::string& path,
                     bool gzip, std::vector<Problem>* problems) {
  ExportOutcome o = ToFile(path, gzip, [&](Sink& sink, std::string* extra) {
    uint64_t flows = 0;
    WalkResult r = WriteChrome(m, sel, sink, problems, &flows);
    *extra = " and " + std::to_string(flows) + " flows";
    return r;
  });
  if (o.events > kChromeComfort)
    o.notes.push_back("note: " + std::to_string(o.events) +
                      " events is more than Chrome's trace viewer handles well (about 1.5 "
                      "million); choose fewer with --steps A:B or --max-events N");
  return o;
}

ExportOutcome Csv(const model::TraceModel& m, const Selection& sel, const std::string& path,
                  bool gzip, std::vector<Problem>* problems) {
  return ToFile(path, gzip,
                [&](Sink& sink, std::string*) { return WriteCsv(m, sel, sink, problems); });
}

ExportOutcome XSpace(const model::TraceModel& m, const Selection& sel, const std::string& logdir,
                     bool, std::vector<Problem>* problems) {
  XSpaceResult r = WriteXSpace(m, sel, logdir, problems);
  ExportOutcome o{r.walk.events, r.walk.left_out, {}};
  for (const auto& f : r.files) o.lines.push_back("wrote " + f);
  o.lines.push_back(std::to_string(r.walk.events) + " events (" + std::to_string(r.op_events) +
                    " ops, " + std::to_string(r.steps) + " steps, " +
                    std::to_string(r.kernel_events) + " kernels, " +
                    std::to_string(r.memcpy_events) + " copies), " + std::to_string(r.bytes) +
                    " bytes; open with: tensorboard --logdir " + logdir);
  return o;
}

}  // namespace

const std::vector<ExportFormat>& ExportFormats() {
  static const std::vector<ExportFormat> formats = {
      {"perfetto",
       R"(Perfetto's own protobuf trace: opens in ui.perfetto.dev and trace_processor, at any
size. A track per process, thread, GPU stream and counter; slices with their
arguments, instants, counters; a counter of allocator memory in use per process
(MemoryAllocation bytes minus the ones freed, matched by addr); flows from each
launch to its kernel or copy (correlation_id) and from each framework op to its
device work (external_id, or a launch inside the op). Timestamps in ns as traced.
Schema: src/export/proto/perfetto_trace.proto. Gzipped with --gzip or .gz.)",
       false, true, Perfetto},
      {"chrome",
       R"(Chrome trace-event JSON: opens in Perfetto's UI (ui.perfetto.dev) and chrome://tracing.
Slices, instants, counters, process and thread names, and a flow from each CUDA
launch to the kernel or copy it started. Gzipped with --gzip or a PATH ending in .gz.)",
       false, true, Chrome},
      {"csv", "one row per slice, instant and counter sample, with every field", false, true, Csv},
      {"xspace",
       R"(the TensorFlow profiler's XSpace for TensorBoard's profile plugin (xprof): PATH is a
log directory; writes PATH/plugins/profile/RUN/HOST.xplane.pb (RUN from the trace's
start time). Host threads, GPU streams, ops, steps, kernels, copies, allocations.
An existing, non-empty RUN is refused. protobuf (and so xprof) reads at most 2 GiB
per file: a larger selection is refused (choose part with --steps or --max-events).)",
       true, false, XSpace},
      {"parquet", ParquetHelp(), true, false, WriteParquetDataset},
  };
  return formats;
}

const ExportFormat* FindExportFormat(const std::string& name) {
  for (const auto& f : ExportFormats())
    if (name == f.name) return &f;
  return nullptr;
}

std::string ExportFormatList() {
  std::string s;
  for (const auto& f : ExportFormats()) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

}  // namespace tt::exporter
