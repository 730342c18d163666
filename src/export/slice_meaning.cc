#include "export/slice_meaning.h"

namespace tt::exporter {

using layout::Category;
using model::Meaning;

void SliceMeaning::Begin(const model::Slice& s) {
  if (s.category == Category::kFrameworkOp)  // the eager ops around it run a graph
    for (size_t i = 0; i < open_.size(); ++i)
      holds_op_[i] |= open_.frames()[i].meaning == Meaning::kEagerOp;
  open_.Push(s);
  holds_op_.push_back(0);
}

bool SliceMeaning::CountedEager(const model::Slice& s, bool holds_op) const {
  Meaning parent = s.depth ? p_.MeaningOf(s.parent_category, s.parent) : Meaning::kStep;
  bool in_compile = !open_.empty() && open_.back().in_compile;
  return parent != Meaning::kEagerOp && !in_compile && !holds_op &&
         !model::OpTypeOf(p_.Name(s.name)).starts_with("__inference_");
}

SliceMeaning::Closed SliceMeaning::End(const model::Slice& s) {
  Closed c;
  if (open_.empty()) {  // not announced (a selection that cut its start)
    c.meaning = open_.MeaningIn(s);
    c.self = s.Self();
  } else {
    model::OpenSlices::Frame f = open_.Pop(s);
    bool holds_op = holds_op_.back();
    holds_op_.pop_back();
    c.meaning = f.meaning;
    c.self = f.op_like ? model::OpenSlices::OpSelf(f, s) : s.Self();
    bool op_category = s.category == Category::kFrameworkOp || s.category == Category::kUser;
    c.eager_line = op_category && c.meaning == Meaning::kEagerOp && CountedEager(s, holds_op);
  }
  bool op_category = s.category == Category::kFrameworkOp || s.category == Category::kUser;
  c.is_op = s.category != Category::kStep && op_category &&
            (c.meaning == Meaning::kOp || c.meaning == Meaning::kAnnotation);
  if (s.category == Category::kStep) c.meaning = Meaning::kStep;
  return c;
}

}  // namespace tt::exporter
