#include "analysis/pass/op_sites.h"

namespace tt::analysis {

using layout::Category;

namespace {

std::string Base(const std::string& file) { return file.substr(file.rfind('/') + 1); }

// A model's layer in a library: a method `Class.forward` (torch.nn.Module's) or `Class.call`
// (a Keras layer's). Shown among folded library frames, so that a program whose loop runs in
// a library (Hugging Face's trainer.train()) shows the model's forward methods under that line,
// not one [transformers] node holding all its time.
bool IsLayerMethod(const std::string& function) {
  size_t dot = function.rfind('.');
  if (dot == std::string::npos || dot == 0) return false;
  std::string_view m = std::string_view(function).substr(dot + 1);
  return m == "forward" || m == "call";
}

std::vector<CodeNode> PathOf(const std::vector<const CodeFrame*>& frames, bool all_frames) {
  std::vector<CodeNode> path;
  bool in_library = false;
  for (const CodeFrame* f : frames) {
    const CodeFrame& fr = *f;
    if (fr.library && !all_frames && !IsLayerMethod(fr.function)) {
      if (!in_library) path.push_back({"[" + LibraryPackage(fr.file) + "]", "", "", 0});
      in_library = true;
      continue;
    }
    in_library = false;
    path.push_back({Base(fr.file) + ":" + std::to_string(fr.line) + ":" + fr.function, fr.file,
                    fr.function, fr.line});
  }
  if (path.empty()) path.push_back({"(empty stack)", "", "", 0});
  return path;
}

}  // namespace

std::vector<CodeNode> SampledPath(const ProcessCode& pc, uint32_t stack, bool all_frames) {
  if (stack == kNoStack) return {{"(no Python stack)", "", "", 0}};
  std::vector<const CodeFrame*> frames;
  for (uint32_t f : pc.stacks[stack]) frames.push_back(&pc.frames[f]);
  return PathOf(frames, all_frames);
}

std::vector<CodeNode> ExactPath(const ProcessCode& pc, const std::string& key, bool all_frames) {
  std::vector<CodeFrame> parsed;
  for (size_t i = 0; i < key.size();) {
    size_t nl = key.find('\n', i);
    parsed.push_back(FrameOfSlice(std::string_view(key).substr(i, nl - i)));
    pc.Resolve(&parsed.back());
    i = nl + 1;
  }
  std::vector<const CodeFrame*> frames;
  for (const auto& f : parsed) frames.push_back(&f);
  return PathOf(frames, all_frames);
}

OpSites::OpSites(const ProcessCode* stacks, const model::Process& proc, uint64_t tid)
    : proc_(proc), tid_(tid) {
  if (stacks && !stacks->Empty()) stacks_.emplace(*stacks, proc_);
}

bool OpSites::IsPythonFrame(const model::Slice& s) const {
  return s.category == Category::kPython && IsPythonFrameName(proc_.Name(s.name));
}

void OpSites::Begin(const model::Slice& s) {
  if (s.category == Category::kFrameworkOp) ++fw_open_;
  if (IsPythonFrame(s)) py_open_.push_back(s.name);
}

void OpSites::End(const model::Slice& s) {
  if (s.category == Category::kFrameworkOp && fw_open_ > 0) --fw_open_;
  if (IsPythonFrame(s) && !py_open_.empty()) py_open_.pop_back();
}

OpSites::Site OpSites::Of(const model::Slice& outer) {
  Site site;
  if (!py_open_.empty()) {
    site.none = false;
    for (uint32_t f : py_open_) site.exact.append(proc_.Name(f)).push_back('\n');
  } else if (stacks_) {
    site.none = false;
    site.stack = stacks_->Of(outer.name, tid_, outer.start, outer.end);
  }
  return site;
}

}  // namespace tt::analysis
