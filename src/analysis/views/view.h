// A statistics view (tfprof's op, scope, ... views): its name and help line, its columns, what
// it needs from the aggregation pass, and how it finishes its rows. One file per view in this
// folder, listed once in registry.cc; the table drives `stats --view` parsing, its --help,
// --select validation, default columns and formatting, and the report's tables.
//
// To add a view: write views/<name>.cc defining a `const ViewDef k<Name>View` (see thread.cc
// for a small one) and add it to the list in registry.cc (docs/views.md walks through it).
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "analysis/pass/aggregate.h"
#include "analysis/views/stats.h"

namespace tt::analysis {

// How a column's values print.
enum class ColumnKind {
  kText,     // left-aligned text
  kCount,    // a whole number; negative means "not known" and prints "-"
  kBytes,    // a number of bytes, printed whole and without separators
  kMicros,   // microseconds, three decimals
  kPercent,  // a percentage already scaled to 0..100 ("12.34%")
  kRatio,    // a ratio 0..1 printed as a percentage
  kBool,     // 1 or 0: "yes" or "" in tables, true or false in JSON
  kNumber,   // any other number, three decimals
};

struct Column {
  const char* name;
  ColumnKind kind;
};

struct ViewDef {
  const char* name;
  // The --help line; continuation lines ("\n") are indented under the first.
  const char* help;
  // The view's own fields (beyond the common ones) and how each prints.
  std::vector<Column> fields;
  // The columns shown by default, in order; the first is the row's key.
  std::vector<const char*> columns;
  // Inserted before columns[memory_at] when some row has memory (allocated bytes).
  std::vector<const char*> memory_columns;
  size_t memory_at = 0;
  // Whether the common fields (occurrence, micros, ... share) may also be selected.
  bool common_fields = true;
  // The default --order-by.
  const char* order_by = "micros";
  Needs needs;
  // Fills r (rows, total_ns, notes, steps) from the pass; may take (move from) what it uses.
  void (*finish)(Aggregates& a, Result* r);
};

// Every view, in --help order.
const std::vector<const ViewDef*>& Views();
const ViewDef* FindView(const std::string& name);
// Adds a view to the table (tests register their own).
void RegisterView(const ViewDef* v);

// The fields every row-per-name view has, and how each prints.
const std::vector<Column>& CommonColumns();
// How a field of view v prints ("name" and unknown fields: text).
ColumnKind KindOf(const ViewDef& v, const std::string& field);
// The default columns; with memory columns when any_memory, and with "rank" after the key when
// any_rank and the view has a rank field (a row per process's step or thread).
std::vector<std::string> DefaultColumns(const ViewDef& v, bool any_memory, bool any_rank = false);
// The fields --select and --order-by accept.
std::vector<std::string> ValidFields(const ViewDef& v, bool any_memory);

// A row's value for a field; false if the row has no such field.
struct Cell {
  bool is_text = false;
  double num = 0;
  std::string text;
  // Not known (an op's FLOPs where no execution's were found): "unknown" in tables and CSV,
  // null in JSON, and num -1, so that it orders below every known value.
  bool unknown = false;
};
bool RowField(Row& r, const std::string& field, Cell* c);
std::string FormatCell(const Cell& c, ColumnKind kind);

// Whether the rows nest in one another (PyTorch's aten::conv2d holds aten::convolution, which
// holds aten::_convolution...): their inclusive time is over a tenth more than their self
// time, so that by inclusive time one piece of work would lead several rows. False for a tree
// (rows with children), which shows the nesting itself.
bool RowsNest(const std::vector<Row>& rows);
// A row's "rank": the process's rank from its launcher; NaN where none was given (not known:
// "unknown" in tables and CSV, null in JSON).
inline double RankNumber(const model::Process& p) {
  return p.meta.rank >= 0 ? static_cast<double>(p.meta.rank) : std::nan("");
}
// Whether some row has a known rank.
bool AnyRank(std::vector<Row>& rows);

// Sets each row's share of total and the result's denominator.
void SetShares(std::vector<Row>* rows, uint64_t total, Result* r);
// A row from a name's numbers.
Row MakeRow(const std::string& name, const Agg& g);
// A per-track table of the host tracks (TrackAgg::apis, ::runtime) merged by name.
std::map<std::string, Agg> HostAggsByName(const Aggregates& a, DenseAggs TrackAgg::*table,
                                          uint64_t* total_self);
// The n most frequent keys of by ("a, b, +3").
std::string TopBy(const std::map<std::string, uint64_t>& by, size_t n);

}  // namespace tt::analysis
