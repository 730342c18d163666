// A row's fields and how they print, shared by every view and every output (table, JSON, CSV,
// the report).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/views/view.h"

namespace tt::analysis {

namespace {

// How an op's FLOPs were found: "shape formula", "framework", "unknown", with the share of
// executions where only some had them ("shape formula, 3 of 4 executions").
std::string FlopsMethod(const Row& r) {
  const OpCosts& k = r.costs;
  if (!k.flops_known) return "unknown";
  std::string m = k.methods == kFlopsByFramework ? "framework"
                  : k.methods == kFlopsByShape   ? "shape formula"
                                                 : "framework and shape formula";
  uint64_t n = r.incl.count();
  if (n > k.flops_known)
    m += ", " + std::to_string(k.flops_known) + " of " + std::to_string(n) + " executions";
  return m;
}

// The cost fields (op_rows.h kOpCostColumns); achieved FLOP/s over the device's time where the
// op ran work there, else over its own inclusive time.
bool CostField(const Row& r, const std::string& f, Cell* c) {
  const OpCosts& k = r.costs;
  auto set = [&](bool known, double x) {
    c->is_text = false;
    c->unknown = !known;
    c->num = known ? x : -1;
    return true;
  };
  if (f == "float_ops") return set(k.flops_known > 0, static_cast<double>(k.float_ops));
  if (f == "output_bytes") return set(k.output_known > 0, static_cast<double>(k.output_bytes));
  if (f == "flops_per_second") {
    // (a step's row: its duration, its self_ns)
    double ns = static_cast<double>(r.accel_ns           ? r.accel_ns
                                    : r.incl.count() > 0 ? r.incl.total()
                                                         : r.self_ns);
    return set(k.flops_known > 0 && ns > 0, static_cast<double>(k.float_ops) / ns * 1e9);
  }
  if (f == "arithmetic_intensity")  // FLOPs per byte read or written: the roofline's x
    return set(k.moved_bytes > 0,
               static_cast<double>(k.moved_flops) / static_cast<double>(k.moved_bytes));
  if (f == "flops_method") {
    c->is_text = true;
    c->text = FlopsMethod(r);
    return true;
  }
  return false;
}

}  // namespace

bool RowField(Row& r, const std::string& f, Cell* c) {
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
  if (CostField(r, f, c)) return true;
  for (auto& [k, v] : r.numbers)
    if (k == f) {
      c->unknown = std::isnan(v);  // not known (a process's rank where none was given)
      return num(c->unknown ? -1 : v);
    }
  for (auto& [k, v] : r.text)
    if (k == f) {
      c->is_text = true;
      c->text = v;
      return true;
    }
  return false;
}

std::string FormatCell(const Cell& c, ColumnKind kind) {
  if (c.is_text) return c.text;
  if (c.unknown) return "unknown";
  char b[64];
  switch (kind) {
    case ColumnKind::kCount:
    case ColumnKind::kBytes:
      if (c.num < 0) return "-";
      std::snprintf(b, sizeof b, "%.0f", c.num);
      break;
    case ColumnKind::kPercent:
      std::snprintf(b, sizeof b, "%.2f%%", c.num);
      break;
    case ColumnKind::kRatio:
      std::snprintf(b, sizeof b, "%.2f%%", c.num * 100);
      break;
    case ColumnKind::kBool:
      return c.num != 0 ? "yes" : "";
    default:
      std::snprintf(b, sizeof b, "%.3f", c.num);
  }
  return b;
}

bool RowsNest(const std::vector<Row>& rows) {
  double incl = 0, self = 0;
  for (const auto& r : rows) {
    if (!r.children.empty()) return false;  // a tree (the code view) shows its nesting
    incl += static_cast<double>(r.incl.total());
    self += static_cast<double>(r.self_ns);
  }
  return incl > 1.1 * self;
}

void SetShares(std::vector<Row>* rows, uint64_t total, Result* r) {
  r->total_ns = total;
  for (auto& row : *rows) row.share = total ? static_cast<double>(row.self_ns) / total : 0;
}

Row MakeRow(const std::string& name, const Agg& g) {
  Row r;
  r.name = name;
  r.incl = g.incl;
  r.self_ns = g.self;
  r.cpu_ns = g.cpu;
  r.accel_ns = g.accel;
  r.bytes = g.bytes;
  r.peak_bytes = g.peak;
  r.residual_bytes = g.residual;
  r.costs = g.costs;
  return r;
}

std::map<std::string, Agg> HostAggsByName(const Aggregates& a, DenseAggs TrackAgg::*table,
                                          uint64_t* total_self) {
  std::map<std::string, Agg> by;
  *total_self = 0;
  for (const auto& t : a.host) {
    const model::Process& proc = a.m->processes[a.m->tracks[t.track].process];
    for (const auto& [id, g] : (t.*table).items()) {
      *total_self += g.self;
      by[std::string(proc.Name(id))].Merge(g);
    }
  }
  return by;
}

std::string TopBy(const std::map<std::string, uint64_t>& by, size_t n) {
  std::vector<std::pair<uint64_t, std::string>> v;
  for (const auto& [k, c] : by) v.push_back({c, k});
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  });
  std::string out;
  for (size_t i = 0; i < v.size() && i < n; ++i) out += (i ? ", " : "") + v[i].second;
  if (v.size() > n) out += ", +" + std::to_string(v.size() - n);
  return out;
}

}  // namespace tt::analysis
