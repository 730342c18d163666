// The slices open on a track, and the rule every op view and table shares for what each one is
// where it runs and for an op's own time (analysis/pass/host_pass.cc, export/slice_meaning.cc):
// an annotation named after the op it runs in ("a/b/conv" in "a/b/conv:Conv2D", which
// TensorFlow's oneDNN kernels write) is that op's runtime, a range inside a compilation is
// compilation, and an op-like slice's own time is its duration less its nearest op-like
// descendants' and the compilations and collectives inside it (runtime ranges nested in an op,
// a thread pool's ParallelFor, are its own time, as xprof counts it). Told every slice of one
// track in order: Push when it opens, Pop when it closes.
#pragma once
#include <cstdint>
#include <vector>

#include "model/meaning.h"
#include "model/model.h"
#include "model/scan.h"

namespace tt::model {

class OpenSlices {
 public:
  struct Frame {
    Meaning meaning = Meaning::kAnnotation;  // decided once, when it opened (MeaningIn)
    bool op_like = false;
    bool in_compile = false;  // it, or a slice around it, is compilation
    int32_t ancestor = -1;    // index of the nearest op-like open slice around it, -1: none
    uint64_t op_child = 0;    // what its descendants took of its time (the rule above)
  };

  explicit OpenSlices(const Process& p) : proc_(p) {}
  // What `s` is where it opens, on top of the slices open now.
  Meaning MeaningIn(const Slice& s) const;
  // Opens `s`; returns its frame.
  const Frame& Push(const Slice& s);
  // Closes the innermost open slice, `s`, charging its time to the nearest op-like slice around
  // it where the rule says so; returns its frame.
  Frame Pop(const Slice& s);
  // An op-like slice's own time from its closed frame.
  static uint64_t OpSelf(const Frame& f, const Slice& s) {
    return s.Duration() > f.op_child ? s.Duration() - f.op_child : 0;
  }
  bool empty() const { return open_.empty(); }
  size_t size() const { return open_.size(); }
  const Frame& back() const { return open_.back(); }
  const std::vector<Frame>& frames() const { return open_; }

 private:
  const Process& proc_;
  std::vector<Frame> open_;
};

}  // namespace tt::model
