// `tensortrace stats`: tfprof-style views over a trace, as a table, JSON or CSV.
#include <cstdio>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "analysis/stats.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "model/model.h"

namespace tt::cli {

using analysis::Row;
using analysis::View;

namespace {

const char kStatsHelp[] = R"(usage: tensortrace stats DIR [--view V] [--select FIELDS] [--order-by FIELD] [--top N]
                         [--filter REGEX] [--exclude REGEX] [--min-micros X] [--max-depth D]
                         [--steps A:B] [--skip-warmup N] [--step-name NAME] [--json | --csv]

Statistics over the trace in DIR, one row per group, like tfprof's views.

views (--view, default op):
  op         framework ops (and annotated ranges) by op type ("node:OpType" -> OpType)
  name       by full op name
  scope      the op name hierarchy ("a/b/c:T") as a tree; --max-depth D cuts it
  kernel     GPU kernels: instances, times, share of GPU time, grid/block, registers, shared
             memory, and the op types that launched them
  api        CUDA runtime and driver API calls
  memcpy     copies by kind, and sets, with bytes and achieved bandwidth
  primitive  oneDNN primitives and the ops that ran them
  step       per step: host compute, device compute, copies, communication, device idle
             (host-bound or waiting)
  thread     busy time per thread and per GPU stream

fields (--select a,b,c; --order-by one of them):
  occurrence, micros (inclusive total), self_micros (exclusive), cpu_micros (host time),
  accelerator_micros (device time of the GPU work linked to it), bytes (allocated),
  peak_bytes, residual_bytes (allocated, not freed by the end), avg_micros, median_micros,
  min_micros, max_micros, stddev_micros, share (% of the view's total), and per view:
  kernel: grid, block, registers, static_shared, dynamic_shared, launched_by;
  memcpy: bandwidth_gbps; primitive: ops; thread: events, span_micros, busy_share;
  step: step, pid, duration_micros, host_compute_micros, device_compute_micros,
  copies_micros, communication_micros, device_idle_host_bound_micros,
  device_idle_waiting_micros

selection:
  --steps A:B       only steps A to B (inclusive; A:, :B and A also work), by step number
  --skip-warmup N   leave out each process's first N steps
  --step-name NAME  an annotation that marks one step (repeatable); framework step events
                    are found without it
  --filter REGEX / --exclude REGEX   rows whose name matches / does not match
  --min-micros X    rows with at least X microseconds (micros)
  --top N           the first N rows after ordering (default: all)
  --json, --csv     machine-readable output (schema: docs/stats-json.md)
  -h, --help        this help
)";

const std::vector<std::string> kCommon = {"occurrence",   "micros",        "self_micros",
                                          "cpu_micros",   "accelerator_micros", "bytes",
                                          "peak_bytes",   "residual_bytes", "avg_micros",
                                          "median_micros", "min_micros",   "max_micros",
                                          "stddev_micros", "share"};

std::vector<std::string> DefaultColumns(View v, bool any_memory) {
  switch (v) {
    case View::kOp:
    case View::kName:
    case View::kScope: {
      std::vector<std::string> c = {"name", "occurrence", "micros", "self_micros", "cpu_micros",
                                    "accelerator_micros", "avg_micros", "median_micros",
                                    "min_micros", "max_micros", "stddev_micros", "share"};
      if (any_memory) c.insert(c.begin() + 6, {"bytes", "peak_bytes", "residual_bytes"});
      return c;
    }
    case View::kKernel:
      return {"name", "occurrence", "micros", "avg_micros", "median_micros", "min_micros",
              "max_micros", "stddev_micros", "share", "grid", "block", "registers",
              "static_shared", "dynamic_shared", "launched_by"};
    case View::kApi:
      return {"name", "occurrence", "micros", "self_micros", "avg_micros", "median_micros",
              "min_micros", "max_micros", "stddev_micros", "share"};
    case View::kMemcpy:
      return {"name", "occurrence", "bytes", "micros", "avg_micros", "bandwidth_gbps", "share"};
    case View::kPrimitive:
      return {"name", "occurrence", "micros", "self_micros", "avg_micros", "median_micros",
              "min_micros", "max_micros", "share", "ops"};
    case View::kStep:
      return {"step", "pid", "duration_micros", "host_compute_micros", "device_compute_micros",
              "copies_micros", "communication_micros", "device_idle_host_bound_micros",
              "device_idle_waiting_micros"};
    case View::kThread:
      return {"name", "events", "micros", "span_micros", "busy_share"};
  }
  return {};
}

struct Cell {
  bool is_text = false;
  double num = 0;
  std::string text;
};

// A row's value for a field; false if the row has no such field.
bool Field(Row& r, const std::string& f, Cell* c) {
  auto num = [&](double x) {
    c->is_text = false;
    c->num = x;
    return true;
  };
  auto us = [](double ns) { return ns / 1e3; };
  if (f == "name") {
    c->is_text = true;
    c->text = r.name;
    return true;
  }
  if (f == "occurrence") return num(static_cast<double>(r.incl.count()));
  if (f == "micros")
    return num(us(static_cast<double>(r.incl.count() ? r.incl.total() : r.self_ns)));
  if (f == "self_micros") return num(us(static_cast<double>(r.self_ns)));
  if (f == "cpu_micros") return num(us(static_cast<double>(r.cpu_ns)));
  if (f == "accelerator_micros") return num(us(static_cast<double>(r.accel_ns)));
  if (f == "bytes") return num(static_cast<double>(r.bytes));
  if (f == "peak_bytes") return num(static_cast<double>(r.peak_bytes));
  if (f == "residual_bytes") return num(static_cast<double>(r.residual_bytes));
  if (f == "avg_micros") return num(us(r.incl.mean()));
  if (f == "median_micros") return num(us(r.incl.Median()));
  if (f == "min_micros") return num(us(static_cast<double>(r.incl.min())));
  if (f == "max_micros") return num(us(static_cast<double>(r.incl.max())));
  if (f == "stddev_micros") return num(us(r.incl.stddev()));
  if (f == "share") return num(r.share * 100);
  for (auto& [k, v] : r.numbers)
    if (k == f) return num(v);
  for (auto& [k, v] : r.text)
    if (k == f) {
      c->is_text = true;
      c->text = v;
      return true;
    }
  return false;
}

Row StepRow(const analysis::StepBreakdown& b, const model::TraceModel& m) {
  Row r;
  r.name = std::to_string(b.number);
  auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1e3; };
  r.self_ns = b.end - b.start;
  r.numbers = {{"step", static_cast<double>(b.number)},
               {"pid", static_cast<double>(m.processes[b.process].meta.pid)},
               {"start_ns", static_cast<double>(b.start)},
               {"duration_micros", us(b.end - b.start)},
               {"host_compute_micros", us(b.host_compute)},
               {"device_compute_micros", us(b.device_compute)},
               {"copies_micros", us(b.copies)},
               {"communication_micros", us(b.communication)},
               {"device_idle_host_bound_micros", us(b.device_idle_host_bound)},
               {"device_idle_waiting_micros", us(b.device_idle_waiting)}};
  return r;
}

std::string Format(const Cell& c, const std::string& field) {
  if (c.is_text) return c.text;
  char b[64];
  if (field == "occurrence" || field == "bytes" || field == "peak_bytes" ||
      field == "residual_bytes" || field == "events" || field == "step" || field == "pid" ||
      field == "registers" || field == "static_shared" || field == "dynamic_shared") {
    if (c.num < 0) return "-";
    std::snprintf(b, sizeof b, "%.0f", c.num);
  } else if (field == "share") {
    std::snprintf(b, sizeof b, "%.2f%%", c.num);
  } else if (field == "busy_share") {
    std::snprintf(b, sizeof b, "%.2f%%", c.num * 100);
  } else {
    std::snprintf(b, sizeof b, "%.3f", c.num);
  }
  return b;
}

std::string CsvQuote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char ch : s) o += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return o + "\"";
}

struct Printer {
  std::vector<std::string> cols;
  bool json = false, csv = false;
  int max_depth = -1;
  std::vector<std::vector<std::string>> table;  // text rows (table and csv)
  nlohmann::json rows = nlohmann::json::array();

  nlohmann::json ToJson(Row& r, int depth) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& f : cols) {
      Cell c;
      if (!Field(r, f, &c)) continue;
      if (c.is_text) j[f] = c.text;
      else j[f] = c.num;
    }
    if (!r.children.empty() && (max_depth < 0 || depth + 1 < max_depth)) {
      j["children"] = nlohmann::json::array();
      for (auto& ch : r.children) j["children"].push_back(ToJson(ch, depth + 1));
    }
    return j;
  }
  void Add(Row& r, int depth) {
    if (json) {
      rows.push_back(ToJson(r, depth));
      return;
    }
    std::vector<std::string> line;
    for (const auto& f : cols) {
      Cell c;
      if (!Field(r, f, &c)) {
        line.push_back("");
        continue;
      }
      std::string s = Format(c, f);
      if (f == "name" && !csv) s = std::string(static_cast<size_t>(depth) * 2, ' ') + s;
      line.push_back(s);
    }
    table.push_back(line);
  }
};

}  // namespace

int Stats(const std::vector<std::string>& argv) {
  ArgReader a("stats", argv);
  analysis::Options opt;
  std::string dir, v, select, order_by = "micros", filter, exclude;
  bool json = false, csv = false, order_given = false;
  size_t top = SIZE_MAX;
  double min_micros = -1;
  int max_depth = -1;
  while (!a.Done()) {
    if (a.Flag("-h") || a.Flag("--help")) {
      std::cout << kStatsHelp;
      return 0;
    } else if (a.Option("--view", &v)) {
      if (!analysis::ParseView(v, &opt.view))
        throw Error("--view: unknown view '" + v + "' (views: " + analysis::ViewList() + ")");
    } else if (a.Option("--select", &select)) {
    } else if (a.Option("--order-by", &order_by)) {
      order_given = true;
    } else if (a.Option("--top", &v)) {
      top = ParseUint("--top", v);
    } else if (a.Option("--filter", &filter)) {
    } else if (a.Option("--exclude", &exclude)) {
    } else if (a.Option("--min-micros", &v)) {
      min_micros = ParseNonNegativeDouble("--min-micros", v);
    } else if (a.Option("--max-depth", &v)) {
      max_depth = static_cast<int>(ParseUint("--max-depth", v, INT_MAX));
    } else if (a.Option("--steps", &v)) {
      opt.steps = ParseStepRange(v);
    } else if (a.Option("--skip-warmup", &v)) {
      opt.skip_warmup = ParseUint("--skip-warmup", v);
    } else if (a.Option("--step-name", &v)) {
      opt.step_names.push_back(v);
    } else if (a.Flag("--json")) {
      json = true;
    } else if (a.Flag("--csv")) {
      csv = true;
    } else if (!a.Peek().empty() && a.Peek()[0] != '-' && dir.empty()) {
      dir = a.TakePositional();
    } else {
      a.Unknown();
    }
  }
  if (dir.empty()) throw Error("no trace directory given (usage: tensortrace stats DIR)");
  if (json && csv) throw Error("--json and --csv exclude each other");
  std::regex filter_re, exclude_re;
  try {
    if (!filter.empty()) filter_re = std::regex(filter);
    if (!exclude.empty()) exclude_re = std::regex(exclude);
  } catch (const std::regex_error& e) {
    throw Error("--filter/--exclude: bad regular expression: " + std::string(e.what()));
  }
  if (opt.view == View::kStep && !order_given) order_by = "step";

  model::TraceModel m = model::LoadModel(dir);
  std::vector<Problem> problems = m.problems;
  analysis::Result res = analysis::Compute(m, opt, &problems);

  std::vector<Row> rows;
  if (opt.view == View::kStep)
    for (const auto& b : res.steps) rows.push_back(StepRow(b, m));
  else
    rows = std::move(res.rows);

  bool any_memory = false;
  for (const auto& r : rows) any_memory |= r.bytes != 0 || r.peak_bytes != 0;
  std::vector<std::string> cols = DefaultColumns(opt.view, any_memory);
  std::vector<std::string> valid = cols;
  if (opt.view != View::kStep && opt.view != View::kThread)
    for (const auto& f : kCommon)
      if (std::find(valid.begin(), valid.end(), f) == valid.end()) valid.push_back(f);
  if (!select.empty()) {
    cols = {opt.view == View::kStep ? "step" : "name"};
    size_t start = 0;
    while (start <= select.size()) {
      size_t comma = select.find(',', start);
      if (comma == std::string::npos) comma = select.size();
      std::string f = select.substr(start, comma - start);
      if (!f.empty() && f != cols[0]) {
        if (std::find(valid.begin(), valid.end(), f) == valid.end()) {
          std::string list;
          for (const auto& x : valid) list += (list.empty() ? "" : ", ") + x;
          throw Error("--select: unknown field '" + f + "' for the " +
                      analysis::ViewName(opt.view) + " view (fields: " + list + ")");
        }
        cols.push_back(f);
      }
      start = comma + 1;
    }
  }
  if (std::find(valid.begin(), valid.end(), order_by) == valid.end() && order_by != "name")
    throw Error("--order-by: unknown field '" + order_by + "' for the " +
                analysis::ViewName(opt.view) + " view");

  // Filter, order, cut. The scope tree is filtered and ordered at every level.
  std::function<void(std::vector<Row>&)> shape = [&](std::vector<Row>& v) {
    std::vector<Row> kept;
    for (auto& r : v) {
      if (!filter.empty() && !std::regex_search(r.name, filter_re) && r.children.empty()) continue;
      if (!exclude.empty() && std::regex_search(r.name, exclude_re)) continue;
      Cell c;
      if (min_micros >= 0 && Field(r, "micros", &c) && c.num < min_micros) continue;
      shape(r.children);
      if (!filter.empty() && !std::regex_search(r.name, filter_re) && r.children.empty()) continue;
      kept.push_back(std::move(r));
    }
    bool asc = order_by == "name" || order_by == "step";
    std::vector<std::pair<Cell, size_t>> keys;
    for (size_t i = 0; i < kept.size(); ++i) {
      Cell c;
      Field(kept[i], order_by, &c);
      keys.push_back({c, i});
    }
    std::stable_sort(keys.begin(), keys.end(), [&](const auto& x, const auto& y) {
      if (x.first.is_text || y.first.is_text)
        return asc ? x.first.text < y.first.text : x.first.text > y.first.text;
      return asc ? x.first.num < y.first.num : x.first.num > y.first.num;
    });
    std::vector<Row> out;
    for (auto& [c, i] : keys) out.push_back(std::move(kept[i]));
    v = std::move(out);
  };
  shape(rows);
  if (rows.size() > top) rows.resize(top);

  Printer pr;
  pr.cols = cols;
  pr.json = json;
  pr.csv = csv;
  pr.max_depth = max_depth;
  std::function<void(std::vector<Row>&, int)> emit = [&](std::vector<Row>& v, int depth) {
    for (auto& r : v) {
      pr.Add(r, depth);
      if (!json && (max_depth < 0 || depth + 1 < max_depth)) emit(r.children, depth + 1);
    }
  };
  emit(rows, 0);

  std::vector<std::string> notes = res.notes;
  if (rows.empty() && notes.empty()) notes.push_back("no rows match the selection");
  if (json) {
    nlohmann::json j = {{"schema", "tensortrace.stats/1"},
                        {"trace", m.path},
                        {"view", analysis::ViewName(opt.view)},
                        {"columns", cols},
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
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (csv) {
    std::string line;
    for (size_t i = 0; i < cols.size(); ++i) line += (i ? "," : "") + cols[i];
    std::cout << line << "\n";
    for (const auto& row : pr.table) {
      line.clear();
      for (size_t i = 0; i < row.size(); ++i) line += (i ? "," : "") + CsvQuote(row[i]);
      std::cout << line << "\n";
    }
  } else {
    for (auto& row : pr.table)
      for (auto& cell : row) cell = TerminalSafe(cell);  // names reach a terminal here
    std::vector<size_t> width(cols.size());
    for (size_t i = 0; i < cols.size(); ++i) width[i] = cols[i].size();
    for (const auto& row : pr.table)
      for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    auto print = [&](const std::vector<std::string>& row) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) {
        bool left = cols[i] == "name" || cols[i] == "launched_by" || cols[i] == "ops" ||
                    cols[i] == "grid" || cols[i] == "block";
        std::string cell = row[i];
        std::string pad(width[i] - std::min(width[i], cell.size()), ' ');
        line += (i ? "  " : "") + (left ? cell + (i + 1 < row.size() ? pad : "") : pad + cell);
      }
      std::cout << line << "\n";
    };
    if (!pr.table.empty()) {
      print(cols);
      for (const auto& row : pr.table) print(row);
    }
    if (!res.links.empty() || res.unlinked) {
      // Shares of the device activities (kernels, copies, sets) each method linked.
      uint64_t device = res.device_activities;
      std::cout << "\nlinks (share of device activities):";
      for (const auto& [method, n] : res.links) {
        // Primitives are host work: a count, not a share of the device's activities.
        if (method.starts_with("primitive->")) {
          std::cout << " " << method << " " << n << ";";
          continue;
        }
        char pct[32];
        std::snprintf(pct, sizeof pct, "%.1f%%", device ? 100.0 * n / device : 0.0);
        std::cout << " " << method << " " << n << " (" << pct << ");";
      }
      std::cout << " unlinked " << res.unlinked << "\n";
    }
    for (const auto& n : notes) std::cout << "note: " << n << "\n";
  }
  if (!problems.empty())
    std::cerr << "tensortrace stats: warning: " << problems.size()
              << " damaged part(s) skipped; the first: " << problems[0].ToString() << "\n";
  return 0;
}

}  // namespace tt::cli
