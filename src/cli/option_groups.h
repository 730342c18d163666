// The options several commands share, each declared and worded here once (DESIGN.md: options
// shared by commands are declared once):
//   output:    --json, --csv [--section S], --top N, -h/--help
//   selection: --steps A:B, --skip-warmup N, --include-warmup, --step-name NAME, --pid P,
//              --rank R[,R...]
// A command says which of them it takes, and its defaults, in an OutputSpec and a
// SelectionSpec; its ArgReader loop calls ParseOutputOption and ParseSelectionOption, and its
// --help includes OutputHelp and SelectionHelp, so that every command words them alike.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "model/job/load.h"

namespace tt::cli {

// ---- output ------------------------------------------------------------------------------

// One table of a command's CSV, chosen with --section (the first is the default).
struct CsvSection {
  const char* name;  // the JSON's key for the same rows, where it has one
  const char* rows;  // what a row is: "one row per allocator"
};

struct OutputSpec {
  const char* schema = nullptr;      // --json's schema page ("docs/stats-json.md"); null: none
  const char* csv_rows = nullptr;    // --csv: what a row is, without sections; null: no --csv
  std::vector<CsvSection> sections;  // --csv --section S: the tables; empty: one table
  const char* top_rows = nullptr;    // --top N: what it counts ("rows per table"); null: none
  size_t top_default = SIZE_MAX;     // SIZE_MAX: all
  size_t top_min = 0, top_max = SIZE_MAX;
  bool top_cuts_data = false;  // --top also cuts --json and --csv (else they list all)
};

struct OutputOptions {
  explicit OutputOptions(const OutputSpec& spec)
      : top(spec.top_default),
        section(spec.sections.empty() ? std::string() : spec.sections[0].name) {}
  bool json = false, csv = false;
  bool help = false;  // -h or --help: the command prints its help and exits 0
  size_t top;
  std::string section;  // with --csv: the table written (the first section unless --section)
};

// Consumes the next argument if it is an option of the output group that `spec` takes.
// Throws tt::Error (one line) on a bad value, or --json with --csv.
bool ParseOutputOption(ArgReader& a, const OutputSpec& spec, OutputOptions* o);
// After the loop: what only the whole command line shows (--section without --csv).
void CheckOutput(const OutputSpec& spec, const OutputOptions& o);
// The help lines of the options `spec` takes, -h/--help last.
std::string OutputHelp(const OutputSpec& spec);

// ---- selection ---------------------------------------------------------------------------

// What the command does with warm-up steps (those holding tracing or compilation) unless
// --include-warmup: the option is taken wherever --skip-warmup is.
enum class WarmupDefault {
  kKept,           // every step counts (stats, export): --include-warmup is the default
  kLeftOut,        // the warm-up steps found are left out (diff, report)
  kFirstStepsOut,  // each process's first --skip-warmup steps are left out (replay, optimize)
};

struct SelectionSpec {
  bool steps = false, step_name = false;
  bool pid = false;          // --pid P and --rank R: the command reads only those processes
  bool rank_only = false;    // --rank R alone (diff: its two sides' pids differ)
  bool skip_warmup = false;  // --skip-warmup N and --include-warmup
  uint64_t skip_default = 0;
  WarmupDefault warmup = WarmupDefault::kKept;
};

struct SelectionOptions {
  std::optional<analysis::StepRange> steps;
  std::optional<uint64_t> skip_warmup;  // as given
  bool include_warmup = false;
  std::vector<std::string> step_names;
  std::vector<int64_t> pids;
  std::vector<int64_t> ranks;  // --rank, in the order given
  // The processes --pid and --rank name (model/job/load.h), none: every process.
  model::ProcessChoice Chosen() const { return {pids, ranks}; }
  // The steps left out at each process's start: --skip-warmup N as given, else 0 with
  // --include-warmup, else the command's default.
  uint64_t SkipWarmup(const SelectionSpec& spec) const {
    return skip_warmup ? *skip_warmup : include_warmup ? 0 : spec.skip_default;
  }
};

// Consumes the next argument if it is an option of the selection group that `spec` takes.
bool ParseSelectionOption(ArgReader& a, const SelectionSpec& spec, SelectionOptions* o);
// The help lines of the options `spec` takes.
std::string SelectionHelp(const SelectionSpec& spec);

// One option's help line: "  OPTION" padded to the text's column, the text wrapped at 96
// columns with continuation lines indented to it. For a command's own options, so that they
// line up with the groups'.
std::string OptionHelp(const std::string& option, const std::string& text);

}  // namespace tt::cli
