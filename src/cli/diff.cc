// `tensortrace diff A B` (or A1 A2... -- B1 B2...): what changed between two recordings, each
// of one or several directories (analysis/diff/diff.h).
#include "analysis/diff/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/human_table.h"
#include "cli/json_out.h"
#include "cli/option_groups.h"
#include "cli/pids.h"
#include "core/csv.h"
#include "core/human.h"
#include "model/model.h"

namespace tt::cli {

namespace {

using analysis::DiffResult;
using analysis::DiffRow;
using analysis::DiffSide;
using analysis::HumanBytes;
using analysis::HumanDuration;
using nlohmann::json;

const char kDiffHelp[] =
    R"(usage: tensortrace diff A B [--json | --csv] [--top N] [--include-warmup]
                         [--skip-warmup N] [--step-name NAME] [--rank R]
       tensortrace diff A1 A2... -- B1 B2... [options]

What changed from recording A to recording B (before and after a change, batch 32 against 64,
one rank against another), per step: each side's mean step time and its parts (input,
compile, runtime, communication, idle), every op type's share of the step, and each one's
contribution to the step-time difference, largest first. An op type's share is the step's
computing time divided among the op types by their self time (ops running at once on several
threads share the wall time), so on each side the shares and parts add up to the step time,
and the contributions add up to the difference. Then the op types, GPU kernels and
collectives found on one side only, and each allocator's memory peak on both.

A side recorded as several directories (one per rank or host) is given as all of them, the
sides split by `--`: each side is read as one job on one clock, as `tensortrace stats` reads it.
With --rank R, each side is only its rank R (one rank of two runs); memory peaks are paired by
allocator and rank.

Warm-up steps (those holding tracing or compilation, at the start of each process) are left
out unless --include-warmup.

)";

const OutputSpec kOutput{
    .schema = "docs/diff-json.md",
    .csv_rows = "one row per op type or part: name,kind,a_ns,b_ns,contribution_ns",
    .top_rows = "rows",
    .top_default = 15,
    .top_min = 1};
const SelectionSpec kSelection{
    .step_name = true, .rank_only = true, .skip_warmup = true, .warmup = WarmupDefault::kLeftOut};

std::string DiffHelp() { return kDiffHelp + SelectionHelp(kSelection) + OutputHelp(kOutput); }

struct DiffArgs {
  std::vector<std::string> dirs;  // A and B, or with `--`: A's directories, then B's
  size_t split = 1;               // where B's directories begin
  SelectionOptions sel;
  OutputOptions out{kOutput};
  analysis::DiffOptions opt;
};

bool ParseDiffArgs(const std::vector<std::string>& argv, DiffArgs* o) {
  ArgReader a("diff", argv);
  std::string v;
  bool split = false;
  while (!a.Done()) {
    if (a.Flag("--")) {
      if (split) throw Error("`--` given twice: it splits the directories of A from those of B");
      split = true;
      o->split = o->dirs.size();
    } else if (ParseOutputOption(a, kOutput, &o->out)) {
      if (!o->out.help) continue;
      std::cout << DiffHelp();
      return false;
    } else if (ParseSelectionOption(a, kSelection, &o->sel)) {
    } else if (!a.Peek().empty() && a.Peek()[0] != '-') {
      o->dirs.push_back(a.TakePositional());
    } else {
      a.Unknown();
    }
  }
  if (split && (o->split == 0 || o->split == o->dirs.size()))
    throw Error(std::string("no trace directory ") + (o->split == 0 ? "before" : "after") +
                " `--` (usage: tensortrace diff A1 A2... -- B1 B2...)");
  if (!split && o->dirs.size() != 2)
    throw Error("two trace directories are compared, " + std::to_string(o->dirs.size()) +
                " given (usage: tensortrace diff A B, or A1 A2... -- B1 B2... for recordings "
                "of several directories)");
  o->opt.include_warmup = o->sel.include_warmup;
  o->opt.skip_warmup = o->sel.SkipWarmup(kSelection);
  o->opt.step_names = o->sel.step_names;
  return true;
}

json SideJson(const DiffSide& s) {
  return {{"trace", s.path},
          {"steps", s.steps},
          {"step_ns", s.step_ns},
          {"parts_ns", s.parts},
          {"kernels", s.kernels},
          {"collectives", s.collectives},
          {"memory_peak_bytes", s.memory_peak}};
}

json DiffJson(const DiffResult& d) {
  json rows = json::array();
  for (const DiffRow& r : d.rows) {
    json row = {{"name", r.name},
                {"kind", r.op ? "op" : "part"},
                {"a_ns", r.a},
                {"b_ns", r.b},
                {"contribution_ns", r.contribution}};
    if (r.op) row.update({{"a_self_ns", r.a_self}, {"b_self_ns", r.b_self}});
    rows.push_back(row);
  }
  return {{"schema", "tensortrace.diff/1"},
          {"a", SideJson(d.a)},
          {"b", SideJson(d.b)},
          {"step_difference_ns", d.b.step_ns - d.a.step_ns},
          {"explained_ns", d.explained},
          {"rows", rows},
          {"only_in_a",
           {{"ops", d.only_a_ops},
            {"kernels", d.only_a_kernels},
            {"collectives", d.only_a_collectives}}},
          {"only_in_b",
           {{"ops", d.only_b_ops},
            {"kernels", d.only_b_kernels},
            {"collectives", d.only_b_collectives}}},
          {"notes", d.notes}};
}

std::string Signed(double ns) { return (ns < 0 ? "-" : "+") + HumanDuration(std::fabs(ns)); }

std::string Percent(double part, double whole) {
  if (whole <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * part / whole);
  return buf;
}

void PrintOnly(const char* what, const std::vector<std::string>& a,
               const std::vector<std::string>& b) {
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size() && i < 10; ++i) s += (i ? ", " : "") + v[i];
    if (v.size() > 10) s += ", ... (" + std::to_string(v.size()) + " in all)";
    return s;
  };
  if (!a.empty()) std::printf("%s only in A: %s\n", what, list(a).c_str());
  if (!b.empty()) std::printf("%s only in B: %s\n", what, list(b).c_str());
}

void PrintMemory(const DiffResult& d) {
  std::map<std::string, std::pair<int64_t, int64_t>> peaks;
  for (const auto& [n, v] : d.a.memory_peak) peaks[n].first = v;
  for (const auto& [n, v] : d.b.memory_peak) peaks[n].second = v;
  if (peaks.empty()) return;
  std::printf("\nmemory peak per allocator:\n");
  for (const auto& [n, p] : peaks)
    std::printf("  %-30s %12s %12s %s%s\n", n.c_str(), HumanBytes(p.first).c_str(),
                HumanBytes(p.second).c_str(), p.second >= p.first ? "+" : "-",
                HumanBytes(std::llabs(p.second - p.first)).c_str());
}

// The rows the table shows: at most `top`, none that neither side has; *hidden: the others.
std::vector<const DiffRow*> Shown(const DiffResult& d, size_t top, size_t* hidden) {
  std::vector<const DiffRow*> rows;
  *hidden = 0;
  for (const DiffRow& r : d.rows) {
    if (r.a == 0 && r.b == 0) continue;  // a part neither side has
    if (rows.size() == top)
      ++*hidden;
    else
      rows.push_back(&r);
  }
  return rows;
}

// The rows through the table renderer: each side's time and the contribution in
// microseconds (milliseconds from 1 ms up), the share of the difference, then the sum.
void PrintRows(const DiffResult& d, size_t top) {
  using K = analysis::ColumnKind;
  double diff = d.b.step_ns - d.a.step_ns;
  size_t hidden = 0;
  HumanTable t;
  t.cols = {{"op type or (part)", K::kText},
            {"a_micros", K::kMicros},
            {"b_micros", K::kMicros},
            {"contribution_micros", K::kMicros},
            {"of_difference", K::kRatio}};
  for (const DiffRow* r : Shown(d, top, &hidden))
    t.rows.push_back({TextCell(r->op ? r->name.substr(0, 70) : "(" + r->name + ")"),
                      NumberCell(r->a / 1e3), NumberCell(r->b / 1e3),
                      NumberCell(r->contribution / 1e3),
                      diff != 0 ? NumberCell(r->contribution / std::fabs(diff)) : TextCell("-")});
  t.rows.push_back({TextCell("all rows"), NumberCell(d.a.step_ns / 1e3),
                    NumberCell(d.b.step_ns / 1e3), NumberCell(d.explained / 1e3), TextCell("")});
  std::printf("per step, by contribution to the difference:\n");
  PrintHumanTable(std::move(t), false);
  if (hidden) std::printf("... %zu more rows (--top N, or --json)\n", hidden);
  std::printf("\n");
}

void PrintText(const DiffResult& d, size_t top) {
  double diff = d.b.step_ns - d.a.step_ns;
  std::printf("A: %s (%zu steps)\nB: %s (%zu steps)\n\n", d.a.path.c_str(), d.a.steps,
              d.b.path.c_str(), d.b.steps);
  std::printf("step time: %s -> %s, %s (%s)\n\n", HumanDuration(d.a.step_ns).c_str(),
              HumanDuration(d.b.step_ns).c_str(), Signed(diff).c_str(),
              Percent(diff, d.a.step_ns).c_str());
  PrintRows(d, top);
  PrintOnly("op types", d.only_a_ops, d.only_b_ops);
  PrintOnly("kernels", d.only_a_kernels, d.only_b_kernels);
  PrintOnly("collectives", d.only_a_collectives, d.only_b_collectives);
  PrintMemory(d);
  for (const auto& n : d.notes) std::printf("note: %s\n", n.c_str());
}

void PrintCsv(const DiffResult& d) {
  std::printf("name,kind,a_ns,b_ns,contribution_ns\n");
  for (const DiffRow& r : d.rows)
    std::printf("%s,%s,%.0f,%.0f,%.0f\n", CsvQuote(r.name).c_str(), r.op ? "op" : "part", r.a, r.b,
                r.contribution);
}

}  // namespace

int Diff(const std::vector<std::string>& args) {
  DiffArgs o;
  if (!ParseDiffArgs(args, &o)) return 0;
  std::vector<analysis::DiffSide> sides;
  auto split = o.dirs.begin() + static_cast<long>(o.split);
  for (auto dirs : {std::vector<std::string>(o.dirs.begin(), split),
                    std::vector<std::string>(split, o.dirs.end())}) {
    model::TraceModel m = LoadJob(dirs, o.sel.Chosen());  // several: one job on one clock
    std::vector<Problem> problems = m.problems;
    sides.push_back(analysis::MeasureSide(m, o.opt, &problems));
  }
  DiffResult d = analysis::CompareSides(std::move(sides[0]), std::move(sides[1]));
  if (o.out.json)
    PrintCommandJson(DiffJson(d));
  else if (o.out.csv)
    PrintCsv(d);
  else
    PrintText(d, o.out.top);
  return 0;
}

}  // namespace tt::cli
