// Running independent per-track work on a few threads.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace tt {

// Runs fn(i) for every i in [0, n), each exactly once, on up to `threads` threads.
template <typename F>
void ParallelFor(size_t n, unsigned threads, F fn) {
  if (threads <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::min<size_t>(threads, n); ++t)
    pool.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
    });
  for (auto& th : pool) th.join();
}

inline unsigned DefaultThreads(unsigned asked) {
  return asked ? asked : std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace tt
