// The framework ops of one host thread gathered from every track of that thread (the runtime's
// own stream and the streams imported from a framework's profiler for the same tid), to find
// the innermost op whose interval contains a span on another of its tracks: a oneDNN primitive
// written by the ITT collector into the thread's stream runs inside a TensorFlow op that the
// XSpace import wrote into an imported stream of the same thread.
#pragma once
#include <cstdint>
#include <vector>

namespace tt::analysis {

class ThreadOps {
 public:
  void Add(uint64_t start, uint64_t end, uint32_t op) { v_.push_back({start, end, op, 0}); }
  // Append another track's ops (its vector is freed).
  void Take(ThreadOps* other);
  // Sorts and links each op to its enclosing one: N log N, once, before Innermost.
  void Build();
  // The innermost op containing [start, end] (0: none). O(log N + nesting depth).
  uint32_t Innermost(uint64_t start, uint64_t end) const;
  bool empty() const { return v_.empty(); }

 private:
  struct Span {
    uint64_t start, end;
    uint32_t op;
    uint32_t parent;  // index + 1 of the enclosing span, 0: none
  };
  std::vector<Span> v_;
};

}  // namespace tt::analysis
