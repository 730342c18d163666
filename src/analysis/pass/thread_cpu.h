// A thread's CPU time over time, as the Python sampler read it (python.cpu events,
// src/sources/python/native_sampler.cc): the CPU time the thread had used at each read, so that
// the CPU time it used during any interval its reads cover is
// bounded (replay's CPU sharing: how much of a core an op asked for while it ran). The same
// kind of total read at looks holds a thread's time holding the GIL (python.gil).
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
  // The time during [start, end] with each read interval's amount spread evenly over it (the
  // expected share where a read is a sample, as the GIL's holder at a look), or -1 where the
  // reads do not cover the interval: unbiased summed over many intervals, where During is an
  // upper bound.
  double Spread(uint64_t start, uint64_t end) const;
  bool Empty() const { return reads_.empty(); }

 private:
  // The sum over the read intervals that meet [start, end] of part(amount read in the interval,
  // its overlap with [start, end], its length); -1 where the reads do not cover [start, end].
  template <typename F>
  double Sum(uint64_t start, uint64_t end, F part) const;
  std::vector<std::pair<uint64_t, double>> reads_;  // (time, CPU time used), by time
};

}  // namespace tt::analysis
