// The tables' `line` and `stack` of each op: the line of the program behind it and the path to
// it, as the code view gives them (analysis/pass/op_sites.h: the same rule, the same tree's
// names). One per process; told every slice of a track in order.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "analysis/pass/op_sites.h"

namespace tt::exporter {

class SliceLines {
 public:
  // code: the process's Python stacks (nullptr: no code index, every line null).
  SliceLines(const analysis::ProcessCode* code, const model::Process& p) : code_(code), p_(p) {}
  void BeginTrack(uint64_t tid);
  void Begin(const model::Slice& s) {
    if (sites_) sites_->Begin(s);
  }
  void End(const model::Slice& s) {
    if (sites_) sites_->End(s);
  }
  // Whether the ops closed until now wait for the outermost framework op around them.
  bool Holding() const { return sites_ && sites_->InFrameworkOp(); }
  // The line ("train.py:12:step", the innermost frame the code view shows that is a source
  // line; null: none) and the code view's path, outermost first, joined by ';' (null: the code
  // view does not count it) of the ops that closed since the last flush, flushed at `outer`.
  struct Text {
    const std::string* line = nullptr;
    const std::string* stack = nullptr;
  };
  Text Of(const model::Slice& outer);
  // An eager op's (SliceMeaning::Closed::eager_line), at its close: the line that called it, as
  // the code view gives its time to (the sampled stack over its interval); null where the code
  // view does not count it (inside a framework op, or no Python stacks).
  Text OfEager(const model::Slice& s);

 private:
  using Strings = std::pair<std::optional<std::string>, std::string>;
  const Strings& Cached(const analysis::OpSites::Site& site);
  const analysis::ProcessCode* code_;
  const model::Process& p_;
  std::optional<analysis::OpSites> sites_;
  uint64_t tid_ = 0;
  std::unordered_map<uint32_t, Strings> by_stack_;
  std::unordered_map<std::string, Strings> by_exact_;
};

}  // namespace tt::exporter
