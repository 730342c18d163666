// `tensortrace stats`: tfprof-style views over a trace, as a table, JSON or CSV. The views,
// their columns and how each prints come from the table in analysis/views/.
#include "analysis/views/stats.h"

#include <re2/re2.h>

#include <climits>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "analysis/job/job_clock.h"
#include "analysis/views/view.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/human_table.h"
#include "cli/option_groups.h"
#include "cli/pids.h"
#include "core/csv.h"
#include "model/model.h"

namespace tt::cli {

using analysis::Cell;
using analysis::Row;
using analysis::ViewDef;

namespace {

const char kStatsUsage[] =
    R"(usage: tensortrace stats DIR... [--view V] [--select FIELDS] [--order-by FIELD] [--top N]
                         [--filter REGEX] [--exclude REGEX] [--min-micros X] [--max-depth D]
                         [--steps A:B] [--skip-warmup N | --include-warmup]
                         [--step-name NAME]... [--pid P]... [--all-frames]
                         [--json | --csv]

Statistics over the trace in DIR, one row per group, like tfprof's views. Several
directories (one recording per rank or host) are read as one job.

)";

const char kStatsFields[] = R"(
fields (--select a,b,c; --order-by one of them):
  occurrence, micros (inclusive total), self_micros (exclusive), cpu_micros (host time),
  accelerator_micros (device time of the GPU work linked to it), bytes (allocated),
  peak_bytes, residual_bytes (allocated, not freed by the end), avg_micros, median_micros,
  min_micros, max_micros, stddev_micros, share (% of the view's total); the op views' float_ops
  (floating-point operations; "unknown", null in JSON, where neither the framework nor a shape
  formula gives them), flops_method (which did), flops_per_second, output_bytes,
  arithmetic_intensity (FLOPs per byte read and written); the scope view's params (an
  nn.Module's trainable parameters, a Keras layer's count_params()); the step view's mfu
  (against the recording host's peak); and per view:
)";

const OutputSpec kOutput{
    .schema = "docs/stats-json.md",
    .csv_rows = "one row per row of the table (the scope view's tree flattened to --max-depth)",
    .top_rows = "rows, the first after ordering",
    .top_cuts_data = true};
const SelectionSpec kSelection{.steps = true, .step_name = true, .pid = true, .skip_warmup = true};

// The options after the views and fields: selection, the rows, output.
std::string StatsOptionsHelp() {
  return "\nselection:\n" + SelectionHelp(kSelection) +
         OptionHelp("--filter REGEX", "rows whose name matches") +
         OptionHelp("--exclude REGEX", "rows whose name does not match") +
         OptionHelp("--min-micros X", "rows with at least X microseconds (micros)") +
         OptionHelp("--all-frames",
                    "the code view: every Python frame (library frames are folded by default)") +
         "\noutput:\n" +
         OptionHelp("--select FIELDS",
                    "the columns (default: the view's, those all zero and then the last ones "
                    "left out to fit 120 characters, each said in a note)") +
         OptionHelp("--order-by FIELD", "the order of the rows (default: the view's)") +
         OptionHelp("--max-depth D", "the scope view: D levels of the tree") + OutputHelp(kOutput);
}

// The help, with the views and their fields from the table.
std::string StatsHelp() {
  std::string h = kStatsUsage;
  h += "views (--view, default op):\n";
  for (const ViewDef* v : analysis::Views()) {
    std::string name = v->name;
    h += "  " + name + std::string(name.size() < 11 ? 11 - name.size() : 1, ' ');
    for (char ch : std::string(v->help))
      h += ch == '\n' ? "\n" + std::string(13, ' ') : std::string(1, ch);
    h += "\n";
  }
  h += kStatsFields;
  for (const ViewDef* v : analysis::Views()) {
    if (v->fields.empty()) continue;
    std::string list = std::string(v->name) + ":";
    for (size_t i = 0; i < v->fields.size(); ++i)
      list += std::string(i ? ", " : " ") + v->fields[i].name;
    h += "  " + Wrap(list, 2, 4) + "\n";
  }
  return h + StatsOptionsHelp();
}

struct StatsArgs {
  analysis::Options opt;
  const ViewDef* view = nullptr;
  std::string dir, select, order_by, filter, exclude;
  std::vector<std::string> more;  // further directories: one job (a recording per rank)
  SelectionOptions sel;
  OutputOptions out{kOutput};
  bool order_default = false;  // no --order-by: the view's own order
  double min_micros = -1;
  int max_depth = -1;
};

// False when the help was asked for (and printed).
bool ParseStatsArgs(const std::vector<std::string>& argv, StatsArgs* s) {
  ArgReader a("stats", argv);
  std::string v;
  while (!a.Done()) {
    if (ParseOutputOption(a, kOutput, &s->out)) {
      if (!s->out.help) continue;
      std::cout << StatsHelp();
      return false;
    } else if (a.Option("--view", &v)) {
      if (!analysis::FindView(v))
        throw Error("--view: unknown view '" + v + "' (views: " + analysis::ViewList() + ")");
      s->opt.view = v;
    } else if (a.Option("--select", &s->select) || a.Option("--order-by", &s->order_by) ||
               a.Option("--filter", &s->filter) || a.Option("--exclude", &s->exclude)) {
    } else if (a.Option("--min-micros", &v)) {
      s->min_micros = ParseNonNegativeDouble("--min-micros", v);
    } else if (a.Option("--max-depth", &v)) {
      s->max_depth = static_cast<int>(ParseUint("--max-depth", v, INT_MAX));
    } else if (ParseSelectionOption(a, kSelection, &s->sel)) {
    } else if (a.Flag("--all-frames")) {
      s->opt.all_frames = true;
    } else if (!a.Peek().empty() && a.Peek()[0] != '-') {
      (s->dir.empty() ? s->dir : s->more.emplace_back()) = a.TakePositional();
    } else {
      a.Unknown();
    }
  }
  if (s->dir.empty()) throw Error("no trace directory given (usage: tensortrace stats DIR)");
  s->opt.steps = s->sel.steps;
  s->opt.skip_warmup = s->sel.SkipWarmup(kSelection);
  s->opt.step_names = s->sel.step_names;
  s->view = analysis::FindView(s->opt.view);
  s->order_default = s->order_by.empty();
  if (s->order_by.empty()) s->order_by = s->view->order_by;
  return true;
}

// The columns to print: the view's defaults, or the selected ones after the key.
std::vector<std::string> Columns(const StatsArgs& s, bool any_memory, bool any_rank) {
  std::vector<std::string> cols = analysis::DefaultColumns(*s.view, any_memory, any_rank);
  std::vector<std::string> valid = analysis::ValidFields(*s.view, any_memory);
  auto known = [&](const std::string& f) {
    return std::find(valid.begin(), valid.end(), f) != valid.end();
  };
  if (!s.select.empty()) {
    cols.resize(1);
    size_t start = 0;
    while (start <= s.select.size()) {
      size_t comma = s.select.find(',', start);
      if (comma == std::string::npos) comma = s.select.size();
      std::string f = s.select.substr(start, comma - start);
      if (!f.empty() && f != cols[0]) {
        if (!known(f)) {
          std::string list;
          for (const auto& x : valid) list += (list.empty() ? "" : ", ") + x;
          throw Error("--select: unknown field '" + f + "' for the " + s.view->name +
                      " view (fields: " + list + ")");
        }
        cols.push_back(f);
      }
      start = comma + 1;
    }
  }
  if (!known(s.order_by) && s.order_by != "name")
    throw Error("--order-by: unknown field '" + s.order_by + "' for the " + s.view->name + " view");
  return cols;
}

// Filters, orders and cuts the rows; the scope tree at every level.
class Shaper {
 public:
  // RE2 matches in time linear in the name's length, so no pattern can make stats run away
  // (std::regex backtracks: "(a*)*b" against a long name ran for minutes).
  explicit Shaper(const StatsArgs& s)
      : s_(s), filter_(Compile("--filter", s.filter)), exclude_(Compile("--exclude", s.exclude)) {}
  void Shape(std::vector<Row>* v) const {
    std::vector<Row> kept;
    for (auto& r : *v) {
      if (Drop(r)) continue;
      if (exclude_ && RE2::PartialMatch(r.name, *exclude_)) continue;
      Cell c;
      if (s_.min_micros >= 0 && analysis::RowField(r, "micros", &c) && c.num < s_.min_micros)
        continue;
      Shape(&r.children);
      if (Drop(r)) continue;
      kept.push_back(std::move(r));
    }
    Order(&kept);
    *v = std::move(kept);
  }

 private:
  bool Drop(const Row& r) const {
    return filter_ && !RE2::PartialMatch(r.name, *filter_) && r.children.empty();
  }
  void Order(std::vector<Row>* rows) const {
    bool asc = s_.order_by == "name" || s_.order_by == "step";
    std::vector<std::pair<Cell, size_t>> keys;
    for (size_t i = 0; i < rows->size(); ++i) {
      Cell c;
      analysis::RowField((*rows)[i], s_.order_by, &c);
      keys.push_back({c, i});
    }
    std::stable_sort(keys.begin(), keys.end(), [&](const auto& x, const auto& y) {
      if (x.first.is_text || y.first.is_text)
        return asc ? x.first.text < y.first.text : x.first.text > y.first.text;
      return asc ? x.first.num < y.first.num : x.first.num > y.first.num;
    });
    std::vector<Row> out;
    for (auto& [c, i] : keys) out.push_back(std::move((*rows)[i]));
    *rows = std::move(out);
  }
  static std::unique_ptr<RE2> Compile(const char* option, const std::string& pattern) {
    if (pattern.empty()) return nullptr;
    RE2::Options o;
    o.set_log_errors(false);
    auto re = std::make_unique<RE2>(pattern, o);
    if (!re->ok()) throw Error(std::string(option) + ": bad regular expression: " + re->error());
    return re;
  }
  const StatsArgs& s_;
  std::unique_ptr<RE2> filter_, exclude_;
};

// The rows as text cells (table and CSV) or JSON objects, the scope tree flattened to
// max_depth.
struct Printer {
  const ViewDef& view;
  std::vector<std::string> cols;
  const StatsArgs& s;
  std::vector<std::vector<std::string>> table;  // CSV
  HumanTable human;
  nlohmann::json rows = nlohmann::json::array();

  nlohmann::json ToJson(Row& r, int depth) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& f : cols) {
      Cell c;
      if (!analysis::RowField(r, f, &c)) continue;
      analysis::ColumnKind kind = analysis::KindOf(view, f);
      if (c.is_text)
        j[f] = c.text;
      else if (c.unknown)
        j[f] = nullptr;
      else if (kind == analysis::ColumnKind::kBool)
        j[f] = c.num != 0;
      else if (kind == analysis::ColumnKind::kCount || kind == analysis::ColumnKind::kBytes)
        j[f] = static_cast<int64_t>(c.num);  // counts are integers in the schema
      else
        j[f] = c.num;
    }
    if (!r.children.empty() && (s.max_depth < 0 || depth + 1 < s.max_depth)) {
      j["children"] = nlohmann::json::array();
      for (auto& ch : r.children) j["children"].push_back(ToJson(ch, depth + 1));
    }
    return j;
  }
  void Add(std::vector<Row>& v, int depth) {
    for (auto& r : v) {
      if (s.out.json) {
        rows.push_back(ToJson(r, depth));
        continue;
      }
      std::vector<std::string> line;
      std::vector<Cell>& cells = human.rows.emplace_back();
      for (const auto& f : cols) {
        Cell c;
        std::string cell;
        if (analysis::RowField(r, f, &c)) {
          cell = analysis::FormatCell(c, analysis::KindOf(view, f));
        } else {
          c.is_text = true;  // no value: an empty cell
        }
        if (f == "name") c.text = std::string(static_cast<size_t>(depth) * 2, ' ') + c.text;
        line.push_back(cell);
        cells.push_back(std::move(c));
      }
      table.push_back(line);
      if (s.max_depth < 0 || depth + 1 < s.max_depth) Add(r.children, depth + 1);
    }
  }
};

void PrintJson(const StatsArgs& s, const model::TraceModel& m, const analysis::Result& res,
               const Printer& pr, const std::vector<std::string>& notes,
               const std::vector<Problem>& problems) {
  nlohmann::json j = {{"schema", "tensortrace.stats/1"},
                      {"trace", m.path},
                      {"view", s.view->name},
                      {"columns", pr.cols},
                      {"rows", pr.rows},
                      {"total_micros", static_cast<double>(res.total_ns) / 1e3},
                      {"events", res.events},
                      {"links", res.links},
                      {"unlinked_device_activities", res.unlinked},
                      {"device_activities", res.device_activities},
                      {"notes", notes}};
  nlohmann::json probs = nlohmann::json::array();
  for (const auto& p : problems)
    probs.push_back({{"file", p.file}, {"offset", p.offset}, {"what", p.what}});
  j["problems"] = probs;
  nlohmann::json clocks = nlohmann::json::array();
  for (const auto& c : m.clocks)
    clocks.push_back({{"trace", c.recording},
                      {"offset_ns", c.offset_ns},
                      {"recorded_ns", c.recorded_ns},
                      {"uncertainty_ns", c.uncertainty_ns},
                      {"constraints", c.constraints},
                      {"pairs", c.pairs},
                      {"tensor_pairs", c.tensor_pairs},
                      {"method", c.method}});
  j["clocks"] = clocks;
  std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void PrintCsv(const Printer& pr) {
  std::string line;
  for (size_t i = 0; i < pr.cols.size(); ++i) line += (i ? "," : "") + pr.cols[i];
  std::cout << line << "\n";
  for (const auto& row : pr.table) {
    line.clear();
    for (size_t i = 0; i < row.size(); ++i) line += (i ? "," : "") + CsvQuote(row[i]);
    std::cout << line << "\n";
  }
}

// The links line under the table: the share of the device activities each method linked,
// wrapped to the terminal's width.
void PrintLinks(const analysis::Result& res) {
  if (res.links.empty() && !res.unlinked) return;
  uint64_t device = res.device_activities;
  std::string line = "links (share of device activities):";
  for (const auto& [method, n] : res.links) {
    // Primitives are host work: a count, not a share of the device's activities.
    if (method.starts_with("primitive->")) {
      line += " " + method + " " + std::to_string(n) + ";";
      continue;
    }
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", device ? 100.0 * n / device : 0.0);
    line += " " + method + " " + std::to_string(n) + " (" + pct + ");";
  }
  line += " unlinked " + std::to_string(res.unlinked);
  std::cout << "\n" << Wrap(line, 0, 2, kTerminalWidth) << "\n";
}

}  // namespace

int Stats(const std::vector<std::string>& argv) {
  StatsArgs s;
  if (!ParseStatsArgs(argv, &s)) return 0;
  Shaper shaper(s);
  model::TraceModel m = LoadJob(DirList(s.dir, s.more), s.sel.Chosen());
  std::vector<Problem> problems = m.problems;
  analysis::Result res = analysis::Compute(m, s.opt, &problems);
  std::vector<Row> rows = std::move(res.rows);
  if (s.order_default && s.order_by == "micros" && analysis::RowsNest(rows)) {
    s.order_by = "self_micros";
    res.notes.push_back(
        "ordered by self time: these rows nest in one another, so by inclusive time one piece "
        "of work would lead several of them (--order-by micros orders them so)");
  }

  bool any_memory = false;
  for (const auto& r : rows) any_memory |= r.bytes != 0 || r.peak_bytes != 0;
  Printer pr{*s.view, Columns(s, any_memory, analysis::AnyRank(rows)), s};
  shaper.Shape(&rows);
  if (rows.size() > s.out.top) rows.resize(s.out.top);
  pr.Add(rows, 0);

  std::vector<std::string> notes = res.notes;
  for (auto& n : analysis::ClockNotes(m)) notes.push_back(std::move(n));
  if (rows.empty() && notes.empty()) notes.push_back("no rows match the selection");
  if (s.out.json) {
    PrintJson(s, m, res, pr, notes, problems);
  } else if (s.out.csv) {
    PrintCsv(pr);
  } else {
    for (const auto& c : pr.cols) pr.human.cols.push_back({c, analysis::KindOf(pr.view, c)});
    std::vector<std::string> fitted = PrintHumanTable(std::move(pr.human), s.select.empty());
    notes.insert(notes.begin(), fitted.begin(), fitted.end());
    PrintLinks(res);
    // Like the table, the lines under it fit the terminal.
    for (const auto& n : notes) std::cout << "note: " << Wrap(n, 6, 6, kTerminalWidth) << "\n";
  }
  return 0;
}

}  // namespace tt::cli
