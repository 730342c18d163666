// `tensortrace export`: the trace in formats other tools open.
#include <iostream>

#include "analysis/job/job_clock.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/option_groups.h"
#include "cli/pids.h"
#include "core/files.h"
#include "export/formats.h"
#include "model/model.h"

namespace tt::cli {

namespace {

const char kExportUsage[] =
    R"(usage: tensortrace export DIR... --format perfetto|chrome|csv|xspace|parquet -o PATH
                          [--gzip] [--steps A:B] [--skip-warmup N | --include-warmup]
                          [--step-name NAME]... [--max-events N] [--pid P]...

Writes the trace in DIR to PATH. Every format streams: memory does not grow with the number of
events (xspace holds the names and the steps, and sorts its events in a temporary file beside
its output, up to about 1.5 times the output's size, that nothing leaves behind). Several
directories (one recording per rank or host) are written as one job.

)";

const SelectionSpec kSelection{.steps = true, .step_name = true, .pid = true, .skip_warmup = true};
const OutputSpec kOutput{};  // --help

const char kExportEnd[] =
    "\nThe file appears only when complete; on any error nothing is left at PATH.\n";

std::string ExportHelp() {
  std::string h = std::string(kExportUsage) + "formats:\n";
  for (const auto& f : exporter::ExportFormats()) {
    std::string name = f.name;
    h += "  " + name + std::string(name.size() < 9 ? 9 - name.size() : 1, ' ');
    for (char ch : std::string(f.help))
      h += ch == '\n' ? "\n" + std::string(11, ' ') : std::string(1, ch);
    h += "\n";
  }
  return h + "\nselection:\n" + SelectionHelp(kSelection) +
         OptionHelp("--max-events N",
                    "only the N earliest events (Chrome's viewer struggles past ~1.5 million)") +
         OutputHelp(kOutput) + kExportEnd;
}

struct ExportArgs {
  std::string dir, format, path;  // DIR, --format F, -o PATH
  std::vector<std::string> more;  // further directories: one job (a recording per rank)
  SelectionOptions chosen;
  OutputOptions out{kOutput};
  bool gzip = false;
  exporter::Selection sel;
};

// False when the help was asked for (and printed).
bool ParseExportArgs(const std::vector<std::string>& argv, ExportArgs* e) {
  ArgReader a("export", argv);
  std::string v;
  while (!a.Done()) {
    if (ParseOutputOption(a, kOutput, &e->out)) {
      if (!e->out.help) continue;
      std::cout << ExportHelp();
      return false;
    } else if (a.Option("--format", &e->format) || a.Option("-f", &e->format)) {
    } else if (a.Option("-o", &e->path) || a.Option("--output", &e->path)) {
    } else if (a.Flag("--gzip")) {
      e->gzip = true;
    } else if (ParseSelectionOption(a, kSelection, &e->chosen)) {
    } else if (a.Option("--max-events", &v)) {
      e->sel.max_events = ParseUint("--max-events", v);
      if (e->sel.max_events == 0) throw Error("--max-events: must be at least 1");
    } else if (!a.Peek().empty() && a.Peek()[0] != '-') {
      (e->dir.empty() ? e->dir : e->more.emplace_back()) = a.TakePositional();
    } else {
      a.Unknown();
    }
  }
  e->sel.steps = e->chosen.steps;
  e->sel.skip_warmup = e->chosen.SkipWarmup(kSelection);
  e->sel.step_names = e->chosen.step_names;
  e->sel.reuse_recorded_tables = e->chosen.pids.empty() && e->chosen.ranks.empty() &&
                                 !e->sel.steps && !e->sel.skip_warmup &&
                                 e->sel.step_names.empty() && !e->sel.max_events;
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
  if (e.path.empty()) throw Error("no output given (-o PATH)");
  if (!f->gzip && e.gzip) throw Error("--gzip: not for " + e.format + " (xprof reads plain .pb)");
  if (!f->directory) {
    if (IsDirectory(e.path)) throw Error("-o: " + e.path + " is a directory; give a file name");
    if (e.path.size() > 3 && e.path.compare(e.path.size() - 3, 3, ".gz") == 0) e.gzip = true;
  }
  RemoveTemporaryFilesOnSignal();  // killed part-way, export leaves no X.tmp<pid>.* behind
  model::TraceModel m = LoadJob(DirList(e.dir, e.more), e.chosen.Chosen());
  std::vector<Problem> problems = m.problems;
  for (const auto& n : analysis::ClockNotes(m)) std::cerr << "tensortrace export: " << n << "\n";
  exporter::ExportOutcome o = f->write(m, e.sel, e.path, e.gzip, &problems);
  for (const auto& line : o.lines) std::cerr << "tensortrace export: " << line << "\n";
  if (o.left_out)
    std::cerr << "tensortrace export: --max-events left out " << o.left_out << " later events\n";
  for (const auto& note : o.notes) std::cerr << "tensortrace export: " << note << "\n";
  return 0;
}

}  // namespace tt::cli
