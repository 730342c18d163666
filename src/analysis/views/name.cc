// The name view (tfprof's graph view, flat): framework ops by full op name.
#include "analysis/views/op_rows.h"

namespace tt::analysis {

namespace {
std::string FullName(const std::string& name) { return name; }
void Finish(Aggregates& a, Result* r) { FinishOpRows(a, r, FullName); }
}  // namespace

extern const ViewDef kNameView = OpLikeView("name", "by full op name", Finish);

}  // namespace tt::analysis
