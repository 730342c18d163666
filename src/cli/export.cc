// `tensortrace export`: the trace in formats other tools open.
#include <iostream>

#include "analysis/job/job_clock.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/pids.h"
#include "core/files.h"
#include "export/formats.h"
#include "model/model.h"

namespace tt::cli {

namespace {

const char kExportUsage[] =
    R"(usage: tensortrace export DIR... --format perfetto|chrome|csv|xspace -o PATH
                          [--gzip] [--steps A:B] [--skip-warmup N] [--step-name NAME]
                          [--max-events N] [--pid P]...

Writes the trace in DIR to PATH. Every format streams: memory does not grow with the number of
events (xspace holds the names and the steps, and sorts its events in a temporary file beside
its output, up to about 1.5 times the output's size, that nothing leaves behind). Several
directories (one recording per rank or host) are written as one job.

)";

const char kExportSelection[] = R"(
selection:
  --steps A:B, --skip-warmup N, --step-name NAME   as in `tensortrace stats`
  --max-events N   only the N earliest events (Chrome's viewer struggles past ~1.5 million)
  --pid P          only process P (each of its exec images); repeat for several
  -h, --help       this help

The file appears only when complete; on any error nothing is left at PATH.
)";

std::string ExportHelp() {
  std::string h = std::string(kExportUsage) + "formats:\n";
  for (const auto& f : exporter::ExportFormats()) {
    std::string name = f.name;
    h += "  " + name + std::string(name.size() < 9 ? 9 - name.size() : 1, ' ');
    for (char ch : std::string(f.help))
      h += ch == '\n' ? "\n" + std::string(11, ' ') : std::string(1, ch);
    h += "\n";
  }
  return h + kExportSelection;
}

struct ExportArgs {
  std::string dir, format, out;
  std::vector<std::string> more;  // further directories: one job (a recording per rank)
  std::vector<int64_t> pids;
  bool gzip = false;
  exporter::Selection sel;
};

// False when the help was asked for (and printed).
bool ParseExportArgs(const std::vector<std::string>& argv, ExportArgs* e) {
  ArgReader a("export", argv);
  std::string v;
  while (!a.Done()) {
    if (a.Flag("-h") || a.Flag("--help")) {
      std::cout << ExportHelp();
      return false;
    } else if (a.Option("--format", &e->format) || a.Option("-f", &e->format)) {
    } else if (a.Option("-o", &e->out) || a.Option("--output", &e->out)) {
    } else if (a.Flag("--gzip")) {
      e->gzip = true;
    } else if (ParsePidOption(a, &e->pids)) {
    } else if (a.Option("--steps", &v)) {
      e->sel.steps = ParseStepRange(v);
    } else if (a.Option("--skip-warmup", &v)) {
      e->sel.skip_warmup = ParseUint("--skip-warmup", v);
    } else if (a.Option("--step-name", &v)) {
      e->sel.step_names.push_back(v);
    } else if (a.Option("--max-events", &v)) {
      e->sel.max_events = ParseUint("--max-events", v);
      if (e->sel.max_events == 0) throw Error("--max-events: must be at least 1");
    } else if (!a.Peek().empty() && a.Peek()[0] != '-') {
      (e->dir.empty() ? e->dir : e->more.emplace_back()) = a.TakePositional();
    } else {
      a.Unknown();
    }
  }
  return true;
}

}  // namespace

int Export(const std::vector<std::string>& argv) {
  ExportArgs e;
  if (!ParseExportArgs(argv, &e)) return 0;
  std::string list = exporter::ExportFormatList();
  if (e.dir.empty()) throw Error("no trace directory given (usage: tensortrace export DIR ...)");
  if (e.format.empty()) throw Error("no --format given (formats: " + list + ")");
  const exporter::ExportFormat* f = exporter::FindExportFormat(e.format);
  if (!f)
    throw Error("--format: unknown format '" + e.format + "' (formats available: " + list + ")");
  if (e.out.empty()) throw Error("no output given (-o PATH)");
  if (!f->gzip && e.gzip) throw Error("--gzip: not for " + e.format + " (xprof reads plain .pb)");
  if (!f->directory) {
    if (IsDirectory(e.out)) throw Error("-o: " + e.out + " is a directory; give a file name");
    if (e.out.size() > 3 && e.out.compare(e.out.size() - 3, 3, ".gz") == 0) e.gzip = true;
  }
  RemoveTemporaryFilesOnSignal();  // killed part-way, export leaves no X.tmp<pid>.* behind
  model::TraceModel m = LoadJob(DirList(e.dir, e.more), e.pids);
  std::vector<Problem> problems = m.problems;
  for (const auto& n : analysis::ClockNotes(m)) std::cerr << "tensortrace export: " << n << "\n";
  exporter::ExportOutcome o = f->write(m, e.sel, e.out, e.gzip, &problems);
  for (const auto& line : o.lines) std::cerr << "tensortrace export: " << line << "\n";
  if (o.left_out)
    std::cerr << "tensortrace export: --max-events left out " << o.left_out << " later events\n";
  for (const auto& note : o.notes) std::cerr << "tensortrace export: " << note << "\n";
  if (!problems.empty())
    std::cerr << "tensortrace export: warning: " << problems.size()
              << " damaged part(s) skipped; the first: " << problems[0].ToString() << "\n";
  return 0;
}

}  // namespace tt::cli
