// A small timing harness shared by the runtime benchmark and its LTTng-UST reference, so both
// are measured in exactly the same way.
//
// Measure() runs `threads` fresh threads. Each thread builds its own loop body, runs a warm-up
// (its first events attach a stream, map buffers, register names), then `reps` timed repetitions
// of `iters` iterations, all threads starting each repetition together at a barrier. For every
// repetition it takes the thread's CPU time (CLOCK_THREAD_CPUTIME_ID, which ignores time the
// thread spent preempted by other processes) and its wall time. The result of a repetition is the
// mean over threads of the per-event cost; the reported value is the median over repetitions.
#pragma once
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ttb {

inline uint64_t ReadNs(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

struct Config {
  std::vector<int> threads{1, 2};
  uint64_t iters = 1000000;  // loop iterations per thread and repetition
  int reps = 7;
  uint64_t warmup = 0;  // iterations before the first repetition; 0: iters / 10
  int pause_ms = 0;     // sleep between repetitions (lets a consumer drain its buffers)
};

struct Timing {
  double cpu_ns = 0;       // per event, per thread (median over repetitions)
  double wall_ns = 0;      // same, wall clock
  double cpu_min = 0;      // fastest repetition, CPU time
  double proc_cpu_ns = 0;  // the whole process's CPU time per event (median repetition)
  double sys_ns = 0;       // kernel part of cpu_ns, averaged over all repetitions (coarse)
  // Context switches of a measuring thread per repetition (thread average): voluntary (it
  // waited) and involuntary (another thread took its CPU). Either makes wall time exceed CPU.
  double vcsw = 0, ivcsw = 0;
  uint64_t events = 0;  // events produced (warm-up included), all threads
};

// Keeps results alive so the compiler cannot drop the work that produced them.
inline volatile uint64_t g_sink = 0;

// Kernel time of the calling thread (page faults, system calls), from getrusage.
inline uint64_t SysNs() {
  rusage ru;
  getrusage(RUSAGE_THREAD, &ru);
  return static_cast<uint64_t>(ru.ru_stime.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ru.ru_stime.tv_usec) * 1000ull;
}

// The calling thread's voluntary and involuntary context switches so far.
inline std::pair<uint64_t, uint64_t> CtxSwitches() {
  rusage ru;
  getrusage(RUSAGE_THREAD, &ru);
  return {static_cast<uint64_t>(ru.ru_nvcsw), static_cast<uint64_t>(ru.ru_nivcsw)};
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  if (n == 0) return 0;
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A compiler barrier for the loops of disabled calls: the call then sits among memory effects,
// as in a real program, and the compiler cannot test the state once for the whole loop (at -O3
// it did, and the loop measured nothing).
inline void Barrier() { asm volatile("" ::: "memory"); }

// `make(t)` returns the loop body of thread t: a callable taking the iteration index and
// returning a value that is summed into g_sink. `events_per_iter` converts to per-event cost.
template <typename Make>
Timing Measure(const Config& c, int nthreads, double events_per_iter, Make make) {
  const uint64_t warmup = c.warmup ? c.warmup : std::max<uint64_t>(c.iters / 10, 1000);
  std::vector<std::vector<uint64_t>> cpu(nthreads, std::vector<uint64_t>(c.reps));
  std::vector<std::vector<uint64_t>> wall(nthreads, std::vector<uint64_t>(c.reps));
  std::vector<uint64_t> sys(nthreads), vcsw(nthreads), ivcsw(nthreads);
  // The whole process's CPU time per repetition (thread 0 reads it between the barriers):
  // it includes work done for the workers by other threads (tensortrace's packet preparer).
  std::vector<uint64_t> proc(c.reps);
  std::barrier sync(nthreads);
  auto worker = [&](int t) {
    auto body = make(t);
    uint64_t sink = 0;
    for (uint64_t i = 0; i < warmup; ++i) sink += body(i);
    for (int r = 0; r < c.reps; ++r) {
      sync.arrive_and_wait();
      uint64_t p0 = t == 0 ? ReadNs(CLOCK_PROCESS_CPUTIME_ID) : 0;
      uint64_t s0 = SysNs();
      auto x0 = CtxSwitches();
      uint64_t w0 = ReadNs(CLOCK_MONOTONIC), c0 = ReadNs(CLOCK_THREAD_CPUTIME_ID);
      for (uint64_t i = 0; i < c.iters; ++i) sink += body(i);
      uint64_t c1 = ReadNs(CLOCK_THREAD_CPUTIME_ID), w1 = ReadNs(CLOCK_MONOTONIC);
      cpu[t][r] = c1 - c0;
      wall[t][r] = w1 - w0;
      sys[t] += SysNs() - s0;
      auto x1 = CtxSwitches();
      vcsw[t] += x1.first - x0.first;
      ivcsw[t] += x1.second - x0.second;
      sync.arrive_and_wait();
      if (t == 0) proc[r] = ReadNs(CLOCK_PROCESS_CPUTIME_ID) - p0;
      if (t == 0 && c.pause_ms > 0) usleep(static_cast<useconds_t>(c.pause_ms) * 1000);
    }
    g_sink = g_sink + sink;
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < nthreads; ++t) pool.emplace_back(worker, t);
  for (auto& th : pool) th.join();

  const double per = static_cast<double>(c.iters) * events_per_iter;
  std::vector<double> rc, rw, rp;
  for (int r = 0; r < c.reps; ++r) {
    rp.push_back(static_cast<double>(proc[r]) / (per * nthreads));
    double sc = 0, sw = 0;
    for (int t = 0; t < nthreads; ++t) {
      sc += static_cast<double>(cpu[t][r]) / per;
      sw += static_cast<double>(wall[t][r]) / per;
    }
    rc.push_back(sc / nthreads);
    rw.push_back(sw / nthreads);
  }
  Timing out;
  out.cpu_ns = Median(rc);
  out.wall_ns = Median(rw);
  out.cpu_min = *std::min_element(rc.begin(), rc.end());
  out.proc_cpu_ns = Median(rp);
  for (int t = 0; t < nthreads; ++t) out.sys_ns += static_cast<double>(sys[t]) / (per * c.reps);
  out.sys_ns /= nthreads;
  for (int t = 0; t < nthreads; ++t) {
    out.vcsw += static_cast<double>(vcsw[t]) / (c.reps * nthreads);
    out.ivcsw += static_cast<double>(ivcsw[t]) / (c.reps * nthreads);
  }
  out.events = static_cast<uint64_t>(static_cast<double>((warmup + c.iters * c.reps) * nthreads) *
                                     events_per_iter);
  return out;
}

// Prints one result as `ttb KEY.tN.FIELD VALUE` lines, read by run_runtime_bench.sh.
inline void Report(const std::string& key, int nthreads, const Timing& t) {
  std::printf("ttb %s.t%d.cpu_ns %.3f\n", key.c_str(), nthreads, t.cpu_ns);
  std::printf("ttb %s.t%d.wall_ns %.3f\n", key.c_str(), nthreads, t.wall_ns);
  std::printf("ttb %s.t%d.cpu_min_ns %.3f\n", key.c_str(), nthreads, t.cpu_min);
  std::printf("ttb %s.t%d.sys_ns %.3f\n", key.c_str(), nthreads, t.sys_ns);
  std::printf("ttb %s.t%d.proc_cpu_ns %.3f\n", key.c_str(), nthreads, t.proc_cpu_ns);
  std::printf("ttb %s.t%d.vcsw %.2f\n", key.c_str(), nthreads, t.vcsw);
  std::printf("ttb %s.t%d.ivcsw %.2f\n", key.c_str(), nthreads, t.ivcsw);
  std::printf("ttb %s.t%d.events %llu\n", key.c_str(), nthreads,
              static_cast<unsigned long long>(t.events));
  std::fflush(stdout);
}

// Says whether this program was compiled with optimisation (numbers of a -O0 build mean little).
inline void ReportBuild() {
#ifdef __OPTIMIZE__
  std::printf("ttb build.optimised 1\n");
#else
  std::printf("ttb build.optimised 0\n");
#endif
}

// Command line shared by both benchmark programs: MODE [--iters N] [--reps R] [--threads 1,2]
// [--warmup N] [--pause-ms P].
inline Config ParseConfig(int argc, char** argv, int first) {
  Config c;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "missing value after %s\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--iters") {
      c.iters = std::strtoull(value().c_str(), nullptr, 10);
    } else if (a == "--reps") {
      c.reps = std::atoi(value().c_str());
    } else if (a == "--warmup") {
      c.warmup = std::strtoull(value().c_str(), nullptr, 10);
    } else if (a == "--pause-ms") {
      c.pause_ms = std::atoi(value().c_str());
    } else if (a == "--threads") {
      c.threads.clear();
      std::string v = value();
      for (size_t p = 0; p < v.size();) {
        size_t q = v.find(',', p);
        if (q == std::string::npos) q = v.size();
        c.threads.push_back(std::atoi(v.substr(p, q - p).c_str()));
        p = q + 1;
      }
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  if (c.iters == 0 || c.reps <= 0 || c.threads.empty()) {
    std::fprintf(stderr, "bad options\n");
    std::exit(2);
  }
  return c;
}

// The payloads both tracers record: a range name, and an instant with an int64 and a double.
inline constexpr const char* kRangeName = "train_step";
inline constexpr const char* kInstantName = "checkpoint";

}  // namespace ttb
