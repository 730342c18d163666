// Rows of the framework ops (and annotated ranges) of every process, grouped by a key of the op
// name: shared by the op, name and scope views.
#pragma once
#include <string>

#include "analysis/views/view.h"

namespace tt::analysis {

// key: the group of an op's full name (its type, or the name itself).
void FinishOpRows(Aggregates& a, Result* r, std::string (*key)(const std::string&));

// The columns of the op-like views.
inline const std::vector<const char*> kOpColumns = {
    "name",       "occurrence",         "micros",        "self_micros",
    "cpu_micros", "accelerator_micros", "avg_micros",    "median_micros",
    "min_micros", "max_micros",         "stddev_micros", "share"};
inline const std::vector<const char*> kOpMemoryColumns = {"bytes", "peak_bytes", "residual_bytes"};
inline constexpr Needs kOpNeeds = {.op_samples = true};
// What each op cost, where known (fields.cc): selectable, not shown by default.
inline const std::vector<Column> kOpCostColumns = {{"float_ops", ColumnKind::kCount},
                                                   {"flops_per_second", ColumnKind::kCount},
                                                   {"flops_method", ColumnKind::kText},
                                                   {"output_bytes", ColumnKind::kBytes},
                                                   {"arithmetic_intensity", ColumnKind::kNumber}};

// The definition of an op-like view: the op columns (memory ones when rows have memory).
inline ViewDef OpLikeView(const char* name, const char* help,
                          void (*finish)(Aggregates&, Result*)) {
  return {.name = name,
          .help = help,
          .fields = kOpCostColumns,
          .columns = kOpColumns,
          .memory_columns = kOpMemoryColumns,
          .memory_at = 6,
          .needs = kOpNeeds,
          .finish = finish};
}

}  // namespace tt::analysis
