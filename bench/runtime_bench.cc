// tensortrace runtime benchmark: the cost of an event, of the clock and of a disabled call, and
// the bytes an event takes in the trace. run_runtime_bench.sh runs it with and without
// TENSORTRACE_DIR (the runtime reads it when this program loads) and compares with LTTng-UST.
//
//   tt_bench_runtime pushpop  [opts]   tt_range_push/tt_range_pop (tracing must be on)
//   tt_bench_runtime instant  [opts]   EmitInstant with an int64 and a double argument (on)
//   tt_bench_runtime ablate   [opts]   the push/pop path taken apart piece by piece (on)
//   tt_bench_runtime baseline [opts]   disabled calls, then the clock alone (tracing must be off)
//   tt_bench_runtime used-bytes DIR    bytes of the stream files in DIR that hold events
//
// opts: --iters N --reps R --threads 1,2 --warmup N --pause-ms P (see harness.h).
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness.h"
#include "runtime/emit.h"
#include "tensortrace/tensortrace.h"

namespace {

using tt::layout::ArgType;
using tt::layout::Category;
using ttb::Config;
using ttb::Measure;
using ttb::Report;

bool RequireState(bool on) {
  if ((tt_enabled() != 0) == on) return true;
  std::fprintf(stderr, on ? "tracing is off: run with TENSORTRACE_DIR set to an empty directory\n"
                          : "tracing is on: run without TENSORTRACE_DIR for this mode\n");
  return false;
}

void ReportClockSource() {
  std::printf("ttb clock.tsc_mult %llu\n", static_cast<unsigned long long>(tt::rt::g_clock.mult));
}

int PushPop(const Config& c) {
  if (!RequireState(true)) return 1;
  ReportClockSource();
  for (int n : c.threads) {
    Report("tt.pushpop", n, Measure(c, n, 2, [](int) {
             return [](uint64_t) -> uint64_t {
               tt_range_push(ttb::kRangeName);
               tt_range_pop();
               return 0;
             };
           }));
  }
  return 0;
}

int Instant(const Config& c) {
  if (!RequireState(true)) return 1;
  ReportClockSource();
  const uint32_t k_step = tt::rt::InternName("step");
  const uint32_t k_loss = tt::rt::InternName("loss");
  if (!k_step || !k_loss) {
    std::fprintf(stderr, "cannot intern the argument keys\n");
    return 1;
  }
  for (int n : c.threads) {
    Report("tt.instant2", n, Measure(c, n, 1, [&](int) {
             return [&](uint64_t i) -> uint64_t {
               tt::Arg a[2];
               a[0].key = k_step;
               a[0].type = ArgType::kInt;
               a[0].v.i = static_cast<int64_t>(i);
               a[1].key = k_loss;
               a[1].type = ArgType::kFloat;
               a[1].v.f = static_cast<double>(i) * 0.5;
               tt::rt::EmitInstant(ttb::kInstantName, Category::kUser, a, 2);
               return 0;
             };
           }));
  }
  return 0;
}

// The push/pop path taken apart: each variant adds one piece of EmitBegin/EmitEnd (emit.h)
// to the previous one, so the differences tell what each piece costs. Only the last two write
// events. Per event = per half of a begin/end pair, as in `pushpop`.
int Ablate(const Config& c) {
  using namespace tt::rt;
  if (!RequireState(true)) return 1;
  ReportClockSource();
  for (int n : c.threads) {
    Report("abl.clock", n, Measure(c, n, 1, [](int) {
             return [a = Anchor{}](uint64_t) mutable -> uint64_t { return NowNs(&a); };
           }));
    Report("abl.enter_leave", n, Measure(c, n, 2, [](int) {
             return [](uint64_t) -> uint64_t {
               if (Stream* s = Enter()) Leave(s);
               if (Stream* s = Enter()) Leave(s);
               return 0;
             };
           }));
    Report("abl.name", n, Measure(c, n, 2, [](int) {
             return [](uint64_t) -> uint64_t {
               uint64_t r = 0;
               if (Stream* s = Enter()) {
                 r = NameId(s, ttb::kRangeName);
                 Leave(s);
               }
               if (Stream* s = Enter()) Leave(s);
               return r;
             };
           }));
    Report("abl.reserve", n, Measure(c, n, 2, [](int) {
             return [](uint64_t) -> uint64_t {
               uint64_t r = 0;
               if (Stream* s = Enter()) {
                 r = NameId(s, ttb::kRangeName);
                 r += Reserve(s, 5);
                 Leave(s);
               }
               if (Stream* s = Enter()) {
                 r += Reserve(s, 0);
                 Leave(s);
               }
               return r;
             };
           }));
    Report("abl.now", n, Measure(c, n, 2, [](int) {
             return [](uint64_t) -> uint64_t {
               uint64_t r = 0;
               if (Stream* s = Enter()) {
                 r = NameId(s, ttb::kRangeName);
                 if (Reserve(s, 5)) r += Now(s);
                 Leave(s);
               }
               if (Stream* s = Enter()) {
                 if (Reserve(s, 0)) r += Now(s);
                 Leave(s);
               }
               return r;
             };
           }));
    Report("abl.inline", n, Measure(c, n, 2, [](int) {
             return [](uint64_t) -> uint64_t {
               EmitBegin(ttb::kRangeName, Category::kUser);
               EmitEnd();
               return 0;
             };
           }));
    Report("abl.capi", n, Measure(c, n, 2, [](int) {
             return [](uint64_t) -> uint64_t {
               tt_range_push(ttb::kRangeName);
               tt_range_pop();
               return 0;
             };
           }));
    Report("abl.mark", n, Measure(c, n, 1, [](int) {
             return [](uint64_t) -> uint64_t {
               tt_mark(ttb::kInstantName);
               return 0;
             };
           }));
  }
  return 0;
}

int Baseline(const Config& c) {
  if (!RequireState(false)) return 1;
  for (int n : c.threads) {
    Report("off.pushpop", n, Measure(c, n, 2, [](int) {
             return [](uint64_t) -> uint64_t {
               tt_range_push(ttb::kRangeName);
               tt_range_pop();
               return 0;
             };
           }));
    Report("off.mark", n, Measure(c, n, 1, [](int) {
             return [](uint64_t) -> uint64_t {
               tt_mark(ttb::kInstantName);
               return 0;
             };
           }));
  }
  // What a disabled call would cost if the header tested the state inline before calling
  // (not the API today: shown for comparison).
  for (int n : c.threads) {
    Report("off.gated_pushpop", n, Measure(c, n, 2, [](int) {
             return [](uint64_t) -> uint64_t {
               if (__builtin_expect(tt::rt::Enabled(), 0)) tt_range_push(ttb::kRangeName);
               if (__builtin_expect(tt::rt::Enabled(), 0)) tt_range_pop();
               return 0;
             };
           }));
  }
  // The runtime's constructor sets the clock up only when tracing is on; do it here.
  if (tt::rt::g_clock.mult == 0) tt::rt::InitClock();
  ReportClockSource();
  for (int n : c.threads) {
    Report("clock.tt", n, Measure(c, n, 1, [](int) {
             return
                 [a = tt::rt::Anchor{}](uint64_t) mutable -> uint64_t { return tt::rt::NowNs(&a); };
           }));
    Report("clock.gettime", n, Measure(c, n, 1, [](int) {
             return [](uint64_t) -> uint64_t { return ttb::ReadNs(CLOCK_MONOTONIC); };
           }));
  }
  return 0;
}

// Sums, over the stream files under `dir` (every file but `metadata`), the content size of each
// packet (header and events, as the packet context says) and the allocated size.
int UsedBytes(const std::string& dir) {
  namespace fs = std::filesystem;
  namespace L = tt::layout;
  uint64_t used = 0, allocated = 0, packets = 0, files = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (!it->is_regular_file() || it->path().filename() == "metadata") continue;
    std::ifstream in(it->path(), std::ios::binary);
    uint64_t size = it->file_size();
    ++files;
    allocated += size;
    uint8_t h[L::kPacketHeaderSize];
    for (uint64_t off = 0; off + L::kPacketHeaderSize <= size;) {
      in.seekg(static_cast<std::streamoff>(off));
      if (!in.read(reinterpret_cast<char*>(h), sizeof h)) break;
      if (tt::Load<uint32_t>(h + L::kOffMagic) != L::kMagic) {
        std::fprintf(stderr, "%s: no packet magic at offset %llu\n", it->path().c_str(),
                     static_cast<unsigned long long>(off));
        return 1;
      }
      uint64_t content = tt::Load<uint64_t>(h + L::kOffContentSize) / 8;
      uint64_t psize = tt::Load<uint64_t>(h + L::kOffPacketSize) / 8;
      if (psize < L::kPacketHeaderSize || content > psize) {
        std::fprintf(stderr, "%s: bad packet sizes at offset %llu\n", it->path().c_str(),
                     static_cast<unsigned long long>(off));
        return 1;
      }
      used += content;
      ++packets;
      off += psize;
    }
  }
  if (ec) {
    std::fprintf(stderr, "%s: %s\n", dir.c_str(), ec.message().c_str());
    return 1;
  }
  std::printf("ttb used_bytes %llu\nttb allocated_bytes %llu\nttb packets %llu\nttb files %llu\n",
              static_cast<unsigned long long>(used), static_cast<unsigned long long>(allocated),
              static_cast<unsigned long long>(packets), static_cast<unsigned long long>(files));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s pushpop|instant|ablate|baseline [opts] | used-bytes DIR\n",
                 argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  if (mode == "used-bytes") {
    if (argc != 3) return 2;
    return UsedBytes(argv[2]);
  }
  Config c = ttb::ParseConfig(argc, argv, 2);
  ttb::ReportBuild();
  if (mode == "pushpop") return PushPop(c);
  if (mode == "instant") return Instant(c);
  if (mode == "ablate") return Ablate(c);
  if (mode == "baseline") return Baseline(c);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
