// The line of the program behind each op, as the code view (views/code.cc) gives it: one rule
// for the aggregation pass (host_pass.cc, which sums each stack's op time) and the tables'
// per-op `line` and `stack` columns (export/parquet_slices.cc).
//
// The ops inside a framework op ran within the same call from Python as it did, so they go to
// the stack of the outermost one, with its interval (code_index.h's OpStacks). A framework's
// Python tracer (Kineto's with --python-tracer) puts the program's function calls on the ops'
// own track: then the ones open around that op are its exact stack.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/pass/code_index.h"
#include "model/model.h"
#include "model/scan.h"

namespace tt::analysis {

// A node of the code view's tree: a frame as the view shows it ("train.py:12:step", with its
// file, function and line), a run of library frames folded into "[package]", or a phase.
struct CodeNode {
  std::string name, file, function;
  int64_t line = 0;
};

// The nodes of a stack, outermost first: every frame with all_frames, else a run of library
// frames folded into one "[package]" node (a library's layer method, `Class.forward` or
// `Class.call`, stays). A sampled stack index (kNoStack: "(no Python stack)"), or a tracer's
// exact stack (OpSites::Site::exact: its frames' slice names, each ended by '\n').
std::vector<CodeNode> SampledPath(const ProcessCode& pc, uint32_t stack, bool all_frames);
std::vector<CodeNode> ExactPath(const ProcessCode& pc, const std::string& key, bool all_frames);

// One track's ops, scanned in order: Begin at each slice's open, End at its close; when
// Flushes() says so after a close, the ops closed since the last flush take Of(that slice).
class OpSites {
 public:
  // stacks: the process's sampled stacks (nullptr or empty: none; a tracer's still count).
  OpSites(const ProcessCode* stacks, const model::Process& proc, uint64_t tid);
  void Begin(const model::Slice& s);
  void End(const model::Slice& s);
  // Whether the ops closed until now are to be attributed (no framework op is open).
  bool Flushes() const { return fw_open_ == 0; }
  bool InFrameworkOp() const { return fw_open_ > 0; }
  struct Site {
    bool none = true;           // neither a tracer's frames nor sampled stacks: not counted
    std::string exact;          // a tracer's stack (ExactPath), when not empty
    uint32_t stack = kNoStack;  // else the sampled stack
  };
  // The site of the ops flushed at `outer`'s close (the outermost framework op around them, or
  // the op itself).
  Site Of(const model::Slice& outer);
  // The process's sampled stacks' lookup (nullptr: none), for the code view's phases.
  OpStacks* stacks() { return stacks_ ? &*stacks_ : nullptr; }

 private:
  bool IsPythonFrame(const model::Slice& s) const;
  const model::Process& proc_;
  uint64_t tid_;
  std::optional<OpStacks> stacks_;
  uint32_t fw_open_ = 0;           // framework-op slices open now
  std::vector<uint32_t> py_open_;  // Python function slices open now (outermost first)
};

}  // namespace tt::analysis
