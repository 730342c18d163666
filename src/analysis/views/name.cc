// The name view (tfprof's graph view, flat): framework ops by full op name.
#include "analysis/views/op_rows.h"

namespace tt::analysis {

namespace {
std::string FullName(const std::string& name) { return name; }
void Finish(Aggregates& a, Result* r) { FinishOpRows(a, r, FullName); }
}  // namespace

extern const ViewDef kNameView = {
    .name = "name",
    .help = "by full op name",
    .columns = kOpColumns,
    .memory_columns = kOpMemoryColumns,
    .memory_at = 6,
    .needs = kOpNeeds,
    .finish = Finish,
};

}  // namespace tt::analysis
