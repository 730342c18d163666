// The output and selection groups (option_groups.h): parsed and worded here only.
#include "cli/option_groups.h"

#include <algorithm>
#include <climits>

#include "cli/human_table.h"

namespace tt::cli {

namespace {

constexpr size_t kTextColumn = 20;  // where an option's text starts
constexpr size_t kHelpWidth = 96;   // where it wraps

std::string Count(size_t n) { return n == SIZE_MAX ? "all" : std::to_string(n); }

std::string SectionList(const OutputSpec& spec) {
  std::string list;
  for (size_t i = 0; i < spec.sections.size(); ++i)
    list += std::string(i == 0                          ? ""
                        : i + 1 == spec.sections.size() ? " or "
                                                        : ", ") +
            spec.sections[i].name;
  return list;
}

bool ParseSection(ArgReader& a, const OutputSpec& spec, OutputOptions* o) {
  std::string v;
  if (spec.sections.empty() || !a.Option("--section", &v)) return false;
  for (const auto& s : spec.sections)
    if (v == s.name) {
      o->section = v;
      return true;
    }
  throw Error("--section: '" + v + "' is not " + SectionList(spec));
}

bool ParseTop(ArgReader& a, const OutputSpec& spec, OutputOptions* o) {
  std::string v;
  if (!spec.top_rows || !a.Option("--top", &v)) return false;
  o->top = ParseUint("--top", v, spec.top_max);
  if (o->top < spec.top_min) throw Error("--top: must be at least " + Count(spec.top_min));
  return true;
}

// --rank R[,R...]: each a rank, added to `ranks` once.
void ParseRanks(const std::string& v, std::vector<int64_t>* ranks) {
  size_t from = 0;
  while (true) {
    size_t comma = v.find(',', from);
    std::string one = v.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    if (one.empty()) throw Error("--rank: '" + v + "' is not a list of ranks (R or R,R,...)");
    auto r = static_cast<int64_t>(ParseUint("--rank", one, INT32_MAX));
    if (std::find(ranks->begin(), ranks->end(), r) == ranks->end()) ranks->push_back(r);
    if (comma == std::string::npos) return;
    from = comma + 1;
  }
}

}  // namespace

bool ParseOutputOption(ArgReader& a, const OutputSpec& spec, OutputOptions* o) {
  if (a.Flag("-h") || a.Flag("--help")) {
    o->help = true;
  } else if (spec.schema && a.Flag("--json")) {
    if (o->csv) throw Error("--json and --csv exclude each other");
    o->json = true;
  } else if (spec.csv_rows && a.Flag("--csv")) {
    if (o->json) throw Error("--json and --csv exclude each other");
    o->csv = true;
  } else if (!ParseSection(a, spec, o) && !ParseTop(a, spec, o)) {
    return false;
  }
  return true;
}

void CheckOutput(const OutputSpec& spec, const OutputOptions& o) {
  if (!spec.sections.empty() && o.section != spec.sections[0].name && !o.csv)
    throw Error("--section goes with --csv");
}

std::string OptionHelp(const std::string& option, const std::string& text) {
  std::string out = "  " + option;
  // The text at kTextColumn, on the next line where the option reaches it.
  out += out.size() + 1 > kTextColumn ? "\n" + std::string(kTextColumn, ' ')
                                      : std::string(kTextColumn - out.size(), ' ');
  return out + Wrap(text, kTextColumn, kTextColumn, kHelpWidth) + "\n";
}

std::string OutputHelp(const OutputSpec& spec) {
  std::string h;
  if (spec.schema)
    h += OptionHelp("--json",
                    std::string("machine-readable output, every field in its unit (schema: ") +
                        spec.schema + ")");
  if (spec.csv_rows) {
    std::string rows = spec.sections.empty() ? spec.csv_rows : spec.sections[0].rows;
    h += OptionHelp("--csv",
                    "the table as CSV: a header of the JSON's field names (units in "
                    "the names), then " +
                        rows);
  }
  if (!spec.sections.empty()) {
    std::string text = "with --csv, another table:";
    for (size_t i = 1; i < spec.sections.size(); ++i)
      text += std::string(i > 1 ? "," : "") + " `" + spec.sections[i].name + "` (" +
              spec.sections[i].rows + ")";
    h += OptionHelp("--section S", text + "; `" + spec.sections[0].name + "` is the default");
  }
  if (spec.top_rows)
    h += OptionHelp("--top N",
                    std::string("at most N ") + spec.top_rows + " (default " +
                        Count(spec.top_default) + ")" +
                        (spec.top_cuts_data || !spec.schema
                             ? ""
                             : "; --json" + std::string(spec.csv_rows ? " and --csv" : "") +
                                   " list every row"));
  return h + OptionHelp("-h, --help", "this help");
}

bool ParseSelectionOption(ArgReader& a, const SelectionSpec& spec, SelectionOptions* o) {
  std::string v;
  if (spec.steps && a.Option("--steps", &v)) {
    o->steps = ParseStepRange(v);
  } else if (spec.skip_warmup && a.Option("--skip-warmup", &v)) {
    o->skip_warmup = ParseUint("--skip-warmup", v);
  } else if (spec.skip_warmup && a.Flag("--include-warmup")) {
    o->include_warmup = true;
  } else if (spec.step_name && a.Option("--step-name", &v)) {
    o->step_names.push_back(v);
  } else if (spec.pid && a.Option("--pid", &v)) {
    o->pids.push_back(static_cast<int64_t>(ParseUint("--pid", v, INT32_MAX)));
  } else if ((spec.pid || spec.rank_only) && a.Option("--rank", &v)) {
    ParseRanks(v, &o->ranks);
  } else {
    return false;
  }
  return true;
}

namespace {

std::string IncludeWarmupHelp(const SelectionSpec& spec) {
  std::string text = "keep the warm-up steps (those holding tracing or compilation)";
  switch (spec.warmup) {
    case WarmupDefault::kKept:
      return text + ": the default here, where every step counts";
    case WarmupDefault::kLeftOut:
      return text + ", which are left out by default";
    case WarmupDefault::kFirstStepsOut:
      return text + ": by default each process's first " +
             (spec.skip_default == 1 ? std::string("step is")
                                     : std::to_string(spec.skip_default) + " steps are") +
             " left out as warm-up";
  }
  return text;
}

}  // namespace

std::string SelectionHelp(const SelectionSpec& spec) {
  std::string h;
  if (spec.steps)
    h += OptionHelp("--steps A:B",
                    "only steps A to B (inclusive; A:, :B and A also work), by step number");
  if (spec.skip_warmup) {
    std::string dflt =
        spec.skip_default ? " (default " + std::to_string(spec.skip_default) + ")" : "";
    h += OptionHelp("--skip-warmup N", "leave out each process's first N steps" + dflt);
    h += OptionHelp("--include-warmup", IncludeWarmupHelp(spec));
  }
  if (spec.step_name)
    h += OptionHelp("--step-name NAME",
                    "an annotation that marks one step (repeatable); framework step events are "
                    "found without it");
  if (spec.pid)
    h += OptionHelp("--pid P", "only process P (each of its exec images); repeat for several");
  if (spec.pid || spec.rank_only)
    h += OptionHelp("--rank R[,R...]",
                    std::string("only the processes of rank R (as their launcher numbered them: "
                                "RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID...); repeat or list "
                                "for several") +
                        (spec.pid ? "; with --pid, the processes of both" : ""));
  return h;
}

}  // namespace tt::cli
