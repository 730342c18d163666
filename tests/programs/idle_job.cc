// Threads that stay idle for longer than a compact event header's 32-bit time reaches (2^32 ns,
// 4.3 s), then write through the runtime's fast paths (tests/runtime/runtime_test.cc,
// EventsAfterALongIdleKeepTheirTime):
//   TENSORTRACE_DIR=DIR idle_job MS
// Three threads, each first writing its event twice (so that its name's cache entry remembers
// the event's class), then sleeping MS ms:
//   "now":   reads its event clock (ThreadNowNs: re-anchors the clock, writes nothing), then
//            writes the instant "now" {v = 1}
//   "plain": writes the instant "plain" {v = 1} straight away
//   "slice": has pushed the slice "slice" before the sleep; reads its event clock, then ends it
// Each prints "NAME NS": the event clock it read, or for "plain" CLOCK_MONOTONIC after the sleep.
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "runtime/emit.h"

using tt::layout::ArgType;
using tt::layout::Category;
namespace rt = tt::rt;

namespace {

std::mutex g_print;

void Instant(const char* name, uint32_t key, int64_t v) {
  tt::Arg a;
  a.key = key;
  a.type = ArgType::kInt;
  a.v.i = v;
  rt::EmitInstant(name, Category::kUser, &a, 1);
}

void Print(const char* name, uint64_t ns) {
  std::lock_guard<std::mutex> lock(g_print);
  std::printf("%s %llu\n", name, static_cast<unsigned long long>(ns));
}

uint64_t Monotonic() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  const long ms = argc > 1 ? std::atol(argv[1]) : 4500;
  const uint32_t key = rt::InternName("v");
  auto sleep = [ms] { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); };
  std::thread now([&] {
    Instant("now", key, 0);
    Instant("now", key, 0);
    sleep();
    uint64_t t = rt::ThreadNowNs();
    Instant("now", key, 1);
    Print("now", t);
  });
  std::thread plain([&] {
    Instant("plain", key, 0);
    Instant("plain", key, 0);
    sleep();
    uint64_t t = Monotonic();
    Instant("plain", key, 1);
    Print("plain", t);
  });
  std::thread slice([&] {
    for (int i = 0; i < 2; ++i) {
      rt::EmitBegin("slice", Category::kUser);
      rt::EmitEnd();
    }
    rt::EmitBegin("slice", Category::kUser);
    sleep();
    uint64_t t = rt::ThreadNowNs();
    rt::EmitEnd();
    Print("slice", t);
  });
  now.join();
  plain.join();
  slice.join();
  return 0;
}
