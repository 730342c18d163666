#include "export/slice_meaning.h"

namespace tt::exporter {

using layout::Category;
using model::Meaning;

Meaning SliceMeaning::MeaningIn(const model::Slice& s) const {
  Meaning m = model::MeaningOfSlice(proc_, s.category, s.name, s.args);
  if (m != Meaning::kAnnotation) return m;
  if (!open_.empty() && open_.back().in_compile) return Meaning::kCompile;
  if (s.parent_category != Category::kFrameworkOp) return m;
  std::string_view name = proc_.Name(s.name), parent = proc_.Name(s.parent);
  bool own = parent.size() > name.size() && parent.starts_with(name) && parent[name.size()] == ':';
  return own ? Meaning::kRuntime : m;
}

void SliceMeaning::Begin(const model::Slice& s) {
  Meaning m = MeaningIn(s);
  bool op_like = model::IsOpLike(m);
  bool in_compile = m == Meaning::kCompile || (!open_.empty() && open_.back().in_compile);
  int32_t ancestor = -1;
  if (!open_.empty())
    ancestor =
        open_.back().op_like ? static_cast<int32_t>(open_.size() - 1) : open_.back().ancestor;
  open_.push_back({m, op_like, in_compile, ancestor, 0});
}

SliceMeaning::Closed SliceMeaning::End(const model::Slice& s) {
  Closed c;
  if (open_.empty()) {  // not announced (a selection that cut its start)
    c.meaning = MeaningIn(s);
    c.self = s.Self();
  } else {
    Open o = open_.back();
    open_.pop_back();
    c.meaning = o.meaning;
    // As the aggregation pass (analysis/pass/host_pass.cc) has it: a compilation, a collective
    // or the wait for one inside an op is not that op's own time.
    bool outer_compile =
        o.meaning == Meaning::kCompile && (open_.empty() || !open_.back().in_compile);
    bool comm = o.meaning == Meaning::kCommunication;
    if ((o.op_like || outer_compile || comm) && o.ancestor >= 0)
      open_[static_cast<size_t>(o.ancestor)].op_child += s.Duration();
    c.self = !o.op_like ? s.Self() : s.Duration() > o.op_child ? s.Duration() - o.op_child : 0;
  }
  bool op_category = s.category == Category::kFrameworkOp || s.category == Category::kUser;
  c.is_op = s.category != Category::kStep && op_category &&
            (c.meaning == Meaning::kOp || c.meaning == Meaning::kAnnotation);
  if (s.category == Category::kStep) c.meaning = Meaning::kStep;
  return c;
}

}  // namespace tt::exporter
