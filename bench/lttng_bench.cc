// The LTTng-UST reference for the runtime benchmark: the same loops and payloads as
// tt_bench_runtime, through the ttbench tracepoints (ttbench_tp.h). run_runtime_bench.sh runs
// it inside a recording lttng session.
//
//   tt_bench_lttng pushpop [opts]   ttbench:range_begin(name) + ttbench:range_end
//   tt_bench_lttng instant [opts]   ttbench:instant(name, int64, double)
//   tt_bench_lttng off     [opts]   both, with no session enabling them (disabled tracepoints)
//
// opts: --iters N --reps R --threads 1,2 --warmup N --pause-ms P (see harness.h).
#include "harness.h"
#include "ttbench_tp.h"

namespace {

int PushPop(const ttb::Config& c) {
  for (int n : c.threads) {
    ttb::Report("lttng.pushpop", n, ttb::Measure(c, n, 2, [](int) {
                  return [](uint64_t) -> uint64_t {
                    lttng_ust_tracepoint(ttbench, range_begin, ttb::kRangeName);
                    lttng_ust_tracepoint(ttbench, range_end);
                    return 0;
                  };
                }));
  }
  return 0;
}

int Instant(const ttb::Config& c) {
  for (int n : c.threads) {
    ttb::Report("lttng.instant2", n, ttb::Measure(c, n, 1, [](int) {
                  return [](uint64_t i) -> uint64_t {
                    ttb::Barrier();
                    lttng_ust_tracepoint(ttbench, instant, ttb::kInstantName,
                                         static_cast<int64_t>(i), static_cast<double>(i) * 0.5);
                    return 0;
                  };
                }));
  }
  return 0;
}

// Disabled tracepoints: the reference for tensortrace's disabled calls. Per tracepoint.
int Off(const ttb::Config& c) {
  for (int n : c.threads) {
    ttb::Report("lttng_off.pushpop", n, ttb::Measure(c, n, 2, [](int) {
                  return [](uint64_t) -> uint64_t {
                    ttb::Barrier();
                    lttng_ust_tracepoint(ttbench, range_begin, ttb::kRangeName);
                    ttb::Barrier();
                    lttng_ust_tracepoint(ttbench, range_end);
                    return 0;
                  };
                }));
    ttb::Report("lttng_off.instant2", n, ttb::Measure(c, n, 1, [](int) {
                  return [](uint64_t i) -> uint64_t {
                    ttb::Barrier();
                    lttng_ust_tracepoint(ttbench, instant, ttb::kInstantName,
                                         static_cast<int64_t>(i), static_cast<double>(i) * 0.5);
                    return 0;
                  };
                }));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s pushpop|instant [opts]\n", argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  ttb::Config c = ttb::ParseConfig(argc, argv, 2);
  ttb::ReportBuild();
  // A tracepoint that no session enables costs a test and a branch: the numbers of the traced
  // modes would be meaningless then, and those of `off` meaningless otherwise.
  const bool on = lttng_ust_tracepoint_enabled(ttbench, range_begin) ||
                  lttng_ust_tracepoint_enabled(ttbench, instant);
  if (mode == "off") {
    if (on) {
      std::fprintf(stderr, "a session enables ttbench:* in this process; `off` needs none\n");
      return 1;
    }
    return Off(c);
  }
  if (!on) {
    std::fprintf(stderr, "no lttng session enables ttbench:* in this process\n");
    return 1;
  }
  if (mode == "pushpop") return PushPop(c);
  if (mode == "instant") return Instant(c);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
