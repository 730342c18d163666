// A thread's CPU time over time, as the Python sampler read it (python.cpu events,
// src/sources/python/native_sampler.cc): the CPU time the thread had used at each read, so that
// the CPU time it used during any interval its reads cover is
// bounded (replay's CPU sharing: how much of a core an op asked for while it ran).
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace tt::analysis {

class ThreadCpu {
 public:
  // A read, in time order: `cpu_ns` used by `at`; the previous look `since` (0: none) still read
  // the previous value (the thread used no CPU from its previous read to then).
  void Add(uint64_t at, uint64_t since, int64_t cpu_ns);
  // The most CPU time (ns) the thread can have used during [start, end], or -1 where its reads
  // do not cover the interval: each read interval's CPU time, at most the part of it that lies
  // in [start, end]. Exact where [start, end] spans read intervals whole; for work shorter
  // than the sampler's period, at most its own length (an op between two reads of a busy
  // thread: all of it), so that only what the reads resolve (a sleep over several reads) asks
  // for less than a core.
  double During(uint64_t start, uint64_t end) const;
  bool Empty() const { return reads_.empty(); }

 private:
  std::vector<std::pair<uint64_t, double>> reads_;  // (time, CPU time used), by time
};

}  // namespace tt::analysis
