#include "model/open_slices.h"

#include <string_view>

namespace tt::model {

Meaning OpenSlices::MeaningIn(const Slice& s) const {
  Meaning m = MeaningOfSlice(proc_, s.category, s.name, s.args);
  if (m != Meaning::kAnnotation) return m;
  if (!open_.empty() && open_.back().in_compile) return Meaning::kCompile;
  if (s.parent_category != layout::Category::kFrameworkOp) return m;
  std::string_view name = proc_.Name(s.name), parent = proc_.Name(s.parent);
  bool own = parent.size() > name.size() && parent.starts_with(name) && parent[name.size()] == ':';
  return own ? Meaning::kRuntime : m;
}

const OpenSlices::Frame& OpenSlices::Push(const Slice& s) {
  Frame f;
  f.meaning = MeaningIn(s);
  f.op_like = IsOpLike(f.meaning);
  f.in_compile = f.meaning == Meaning::kCompile || (!open_.empty() && open_.back().in_compile);
  if (!open_.empty())
    f.ancestor =
        open_.back().op_like ? static_cast<int32_t>(open_.size() - 1) : open_.back().ancestor;
  open_.push_back(f);
  return open_.back();
}

OpenSlices::Frame OpenSlices::Pop(const Slice& s) {
  Frame f = open_.back();
  open_.pop_back();
  // A compilation inside an op (torch.compile's backward compiled on its first call) is not
  // the op's own time, nor a collective or the wait for one inside a range (a library's
  // "FSDP::all_gather" inside its "FSDP::pre_forward").
  bool outer_compile = f.meaning == Meaning::kCompile && (open_.empty() || !open_.back().in_compile);
  bool comm = f.meaning == Meaning::kCommunication;
  if ((f.op_like || outer_compile || comm) && f.ancestor >= 0)
    open_[static_cast<size_t>(f.ancestor)].op_child += s.Duration();
  return f;
}

}  // namespace tt::model
