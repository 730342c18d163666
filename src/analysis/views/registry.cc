// The table of views: the one place that lists them.
#include <algorithm>

#include "analysis/views/view.h"

namespace tt::analysis {

extern const ViewDef kOpView, kNameView, kScopeView, kKernelView, kApiView, kMemcpyView,
    kPrimitiveView, kStepView, kThreadView, kRuntimeView, kCodeView;

namespace {

std::vector<const ViewDef*>& Table() {
  static std::vector<const ViewDef*> views = {
      &kOpView,     &kNameView,      &kScopeView, &kKernelView, &kApiView,
      &kMemcpyView, &kPrimitiveView, &kStepView,  &kThreadView, &kRuntimeView, &kCodeView};
  return views;
}

}  // namespace

const std::vector<const ViewDef*>& Views() { return Table(); }

const ViewDef* FindView(const std::string& name) {
  for (const ViewDef* v : Table())
    if (name == v->name) return v;
  return nullptr;
}

void RegisterView(const ViewDef* v) {
  if (!FindView(v->name)) Table().push_back(v);
}

const std::vector<Column>& CommonColumns() {
  static const std::vector<Column> common = {
      {"occurrence", ColumnKind::kCount},          {"micros", ColumnKind::kMicros},
      {"self_micros", ColumnKind::kMicros},        {"cpu_micros", ColumnKind::kMicros},
      {"accelerator_micros", ColumnKind::kMicros}, {"bytes", ColumnKind::kBytes},
      {"peak_bytes", ColumnKind::kBytes},          {"residual_bytes", ColumnKind::kBytes},
      {"avg_micros", ColumnKind::kMicros},         {"median_micros", ColumnKind::kMicros},
      {"min_micros", ColumnKind::kMicros},         {"max_micros", ColumnKind::kMicros},
      {"stddev_micros", ColumnKind::kMicros},      {"share", ColumnKind::kPercent}};
  return common;
}

ColumnKind KindOf(const ViewDef& v, const std::string& field) {
  for (const Column& c : v.fields)
    if (field == c.name) return c.kind;
  for (const Column& c : CommonColumns())
    if (field == c.name) return c.kind;
  return ColumnKind::kText;
}

std::vector<std::string> DefaultColumns(const ViewDef& v, bool any_memory, bool any_rank) {
  std::vector<std::string> cols(v.columns.begin(), v.columns.end());
  bool has_rank = std::any_of(v.fields.begin(), v.fields.end(),
                              [](const Column& c) { return std::string(c.name) == "rank"; });
  if (any_rank && has_rank && !cols.empty() &&
      std::find(cols.begin(), cols.end(), "rank") == cols.end())
    cols.insert(cols.begin() + 1, "rank");
  if (any_memory && !v.memory_columns.empty())
    cols.insert(cols.begin() + static_cast<long>(v.memory_at), v.memory_columns.begin(),
                v.memory_columns.end());
  return cols;
}

bool AnyRank(std::vector<Row>& rows) {
  Cell c;
  for (auto& r : rows)
    if (RowField(r, "rank", &c) && !c.unknown) return true;
  return false;
}

std::vector<std::string> ValidFields(const ViewDef& v, bool any_memory) {
  std::vector<std::string> valid = DefaultColumns(v, any_memory);
  for (const Column& c : v.fields)
    if (std::find(valid.begin(), valid.end(), c.name) == valid.end()) valid.push_back(c.name);
  if (v.common_fields)
    for (const Column& c : CommonColumns())
      if (std::find(valid.begin(), valid.end(), c.name) == valid.end()) valid.push_back(c.name);
  return valid;
}

}  // namespace tt::analysis
