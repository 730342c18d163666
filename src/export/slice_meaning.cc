#include "export/slice_meaning.h"

namespace tt::exporter {

using layout::Category;
using model::Meaning;

SliceMeaning::Closed SliceMeaning::End(const model::Slice& s) {
  Closed c;
  if (open_.empty()) {  // not announced (a selection that cut its start)
    c.meaning = open_.MeaningIn(s);
    c.self = s.Self();
  } else {
    model::OpenSlices::Frame f = open_.Pop(s);
    c.meaning = f.meaning;
    c.self = f.op_like ? model::OpenSlices::OpSelf(f, s) : s.Self();
  }
  bool op_category = s.category == Category::kFrameworkOp || s.category == Category::kUser;
  c.is_op = s.category != Category::kStep && op_category &&
            (c.meaning == Meaning::kOp || c.meaning == Meaning::kAnnotation);
  if (s.category == Category::kStep) c.meaning = Meaning::kStep;
  return c;
}

}  // namespace tt::exporter
