// tensortrace runtime benchmark: the cost of an event, of the clock and of a disabled call, and
// the bytes an event takes in the trace. run_runtime_bench.sh runs it with and without
// TENSORTRACE_DIR (the runtime reads it when this program loads) and compares with LTTng-UST.
//
//   tt_bench_runtime pushpop  [opts]   tt_range_push/tt_range_pop (tracing must be on)
//   tt_bench_runtime instant  [opts]   EmitInstant with an int64 and a double argument (on)
//   tt_bench_runtime ablate   [opts]   the push/pop path taken apart piece by piece (on)
//   tt_bench_runtime baseline [opts]   disabled calls, then the clock alone (tracing must be off)
//   tt_bench_runtime threadstart [opts] a short-lived thread that writes one event (on)
//   tt_bench_runtime used-bytes DIR    bytes of the stream files in DIR that hold events
//   tt_bench_runtime pages DIR         kernel cost per 4 KiB page of writing through a file mapping
//
// opts: --iters N --reps R --threads 1,2 --warmup N --pause-ms P (see harness.h).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness.h"
#include "runtime/emit.h"
#include "runtime/prepare.h"
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

// The runtime's clock read alone, measured in the traced processes right before each workload
// so that the event / clock ratio compares numbers taken moments apart.
ttb::Timing MeasureClock(const Config& c, int n) {
  return Measure(c, n, 1, [](int) {
    return [a = tt::rt::Anchor{}](uint64_t) mutable -> uint64_t { return tt::rt::NowNs(&a); };
  });
}

void ReportClockSource() {
  std::printf("ttb clock.tsc_mult %llu\n", static_cast<unsigned long long>(tt::rt::g_clock.mult));
}

int PushPop(const Config& c) {
  if (!RequireState(true)) return 1;
  ReportClockSource();
  for (int n : c.threads) {
    Report("tt.pushpop_clock", n, MeasureClock(c, n));
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

// The benchmark's two arguments for the i-th instant: step = i, loss = i / 2.
void InstantArgs(uint64_t i, uint32_t k_step, uint32_t k_loss, tt::Arg* a) {
  a[0].key = k_step;
  a[0].type = ArgType::kInt;
  a[0].v.i = static_cast<int64_t>(i);
  a[1].key = k_loss;
  a[1].type = ArgType::kFloat;
  a[1].v.f = static_cast<double>(i) * 0.5;
}

// The instant as a source writes it, from a function of its own that builds the arguments
// from its values and emits the event at once (so the argument's fields are stored right
// before the runtime reads them). Not inlined into the loop, and nothing of the call site
// propagated into it (noipa), so the loop cannot hoist the name's hash or the arguments'
// constant fields.
__attribute__((noipa)) void EmitInstant2(const char* name, uint64_t i, uint32_t k_step,
                                         uint32_t k_loss) {
  tt::Arg a[2];
  InstantArgs(i, k_step, k_loss, a);
  tt::rt::EmitInstant(name, Category::kUser, a, 2);
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
    Report("tt.instant2_clock", n, MeasureClock(c, n));
    Report("tt.instant2", n, Measure(c, n, 1, [&](int) {
             return [&](uint64_t i) -> uint64_t {
               EmitInstant2(ttb::kInstantName, i, k_step, k_loss);
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
    Report("abl.clock", n, MeasureClock(c, n));
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
    // The instant with two arguments, the same way: name, class lookup, then room and clock,
    // then the whole event.
    const uint32_t k_step = InternName("step"), k_loss = InternName("loss");
    auto args = [=](uint64_t i, tt::Arg* a) { InstantArgs(i, k_step, k_loss, a); };
    Report("abl.i_name", n, Measure(c, n, 1, [&](int) {
             return [&](uint64_t) -> uint64_t {
               uint64_t r = 0;
               if (Stream* s = Enter()) {
                 r = NameId(s, ttb::kInstantName);
                 Leave(s);
               }
               return r;
             };
           }));
    // Name and class lookup, then (with `clock`) room and the clock read: all but the writes.
    auto lookups = [&](bool clock) {
      return [&, clock](int) {
        return [&, clock](uint64_t i) -> uint64_t {
          uint64_t r = 0;
          if (Stream* s = Enter()) {
            tt::Arg a[2];
            args(i, a);
            uint64_t bits[NameCache::kMemoArgs] = {};
            const NameCache::Entry* e;
            r = FastClass(s, tt::layout::kInstant, ttb::kInstantName, Category::kUser, a, 2, bits,
                          &e);
            r += bits[0] + bits[1];
            if (clock && Reserve(s, 16)) r += Now(s);
            Leave(s);
          }
          return r;
        };
      };
    };
    Report("abl.i_class", n, Measure(c, n, 1, lookups(false)));
    Report("abl.i_now", n, Measure(c, n, 1, lookups(true)));
    Report("abl.i_inline", n, Measure(c, n, 1, [&](int) {
             return [&](uint64_t i) -> uint64_t {
               EmitInstant2(ttb::kInstantName, i, k_step, k_loss);
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
               ttb::Barrier();
               tt_range_push(ttb::kRangeName);
               ttb::Barrier();
               tt_range_pop();
               return 0;
             };
           }));
    Report("off.mark", n, Measure(c, n, 1, [](int) {
             return [](uint64_t) -> uint64_t {
               ttb::Barrier();
               tt_mark(ttb::kInstantName);
               return 0;
             };
           }));
  }
  // The same with the runtime's own state test (tt::rt::Enabled) in place of the header's
  // tt_active_, for comparison.
  for (int n : c.threads) {
    Report("off.gated_pushpop", n, Measure(c, n, 2, [](int) {
             return [](uint64_t) -> uint64_t {
               ttb::Barrier();
               if (__builtin_expect(tt::rt::Enabled(), 0)) tt_range_push(ttb::kRangeName);
               ttb::Barrier();
               if (__builtin_expect(tt::rt::Enabled(), 0)) tt_range_pop();
               return 0;
             };
           }));
  }
  // The runtime's constructor sets the clock up only when tracing is on; do it here.
  if (tt::rt::g_clock.mult == 0) tt::rt::InitClock();
  ReportClockSource();
  for (int n : c.threads) {
    Report("clock.tt", n, MeasureClock(c, n));
    Report("clock.gettime", n, Measure(c, n, 1, [](int) {
             return [](uint64_t) -> uint64_t { return ttb::ReadNs(CLOCK_MONOTONIC); };
           }));
  }
  return 0;
}

// What writing a packet through a shared file mapping costs the kernel, per 4 KiB page, in a
// file under `dir`: the runtime's own way (MapPacket as the preparer calls it: zeros written,
// mapped, write-faulted with MADV_POPULATE_WRITE; then the stores and munmap), and others for
// comparison: fallocate and mmap MAP_SHARED with or without MAP_POPULATE and
// MADV_POPULATE_WRITE (without either, one fault per page at the first store), and stores into
// a reused buffer then pwrite().
int PageCost(const std::string& dir) {
  constexpr uint64_t kPacket = 1 << 20, kPackets = 64, kPage = 4096;
  constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE (Linux 5.14)
  const double pages = static_cast<double>(kPackets * kPacket / kPage);
  auto cpu = [] { return ttb::ReadNs(CLOCK_THREAD_CPUTIME_ID); };
  auto fill = [](uint8_t* p) {
    for (uint64_t o = 0; o < kPacket; o += 8) {
      uint64_t v = o;
      std::memcpy(p + o, &v, 8);
    }
    asm volatile("" ::"r"(p) : "memory");
  };
  std::string path = dir + "/pagecost." + std::to_string(getpid());
  for (int variant = 0; variant < 4; ++variant) {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return 1;
    uint64_t t_alloc = 0, t_map = 0, t_pop = 0, t_store = 0, t_unmap = 0;
    for (uint64_t i = 0; i < kPackets; ++i) {
      off_t off = static_cast<off_t>(i * kPacket);
      uint64_t t0 = cpu();
      if (fallocate(fd, 0, off, kPacket) != 0) return 1;
      uint64_t t1 = cpu();
      const int populate = variant < 2 ? MAP_POPULATE : 0;
      void* m = mmap(nullptr, kPacket, PROT_READ | PROT_WRITE, MAP_SHARED | populate, fd, off);
      if (m == MAP_FAILED) return 1;
      uint64_t t2 = cpu();
      if (variant % 2 == 1 && madvise(m, kPacket, kPopulateWrite) != 0) return 1;
      uint64_t t3 = cpu();
      fill(static_cast<uint8_t*>(m));
      uint64_t t4 = cpu();
      munmap(m, kPacket);
      uint64_t t5 = cpu();
      t_alloc += t1 - t0, t_map += t2 - t1, t_pop += t3 - t2, t_store += t4 - t3,
          t_unmap += t5 - t4;
    }
    close(fd);
    unlink(path.c_str());
    static const char* const kVariant[] = {"pages.mmap", "pages.mmap_populate_write",
                                           "pages.mmap_nopopulate",
                                           "pages.mmap_nopopulate_populate_write"};
    const char* v = kVariant[variant];
    std::printf(
        "ttb %s.fallocate_ns %.0f\nttb %s.mmap_ns %.0f\nttb %s.populate_write_ns %.0f\n"
        "ttb %s.stores_ns %.0f\nttb %s.munmap_ns %.0f\nttb %s.total_ns %.0f\n",
        v, t_alloc / pages, v, t_map / pages, v, t_pop / pages, v, t_store / pages, v,
        t_unmap / pages, v, (t_alloc + t_map + t_pop + t_store + t_unmap) / pages);
  }
  {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return 1;
    close(fd);
    uint64_t t_prep = 0, t_store = 0, t_unmap = 0;
    for (uint64_t i = 0; i < kPackets; ++i) {
      uint64_t t0 = cpu();
      uint8_t* m = tt::rt::MapPacket(path.c_str(), i * kPacket, kPacket, true);
      if (!m) return 1;
      uint64_t t1 = cpu();
      fill(m);
      uint64_t t2 = cpu();
      munmap(m, kPacket);
      uint64_t t3 = cpu();
      t_prep += t1 - t0, t_store += t2 - t1, t_unmap += t3 - t2;
    }
    unlink(path.c_str());
    std::printf(
        "ttb pages.runtime.prepare_ns %.0f\nttb pages.runtime.stores_ns %.0f\n"
        "ttb pages.runtime.munmap_ns %.0f\nttb pages.runtime.total_ns %.0f\n",
        t_prep / pages, t_store / pages, t_unmap / pages, (t_prep + t_store + t_unmap) / pages);
  }
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return 1;
  std::vector<uint8_t> buf(kPacket);
  uint64_t t_store = 0, t_write = 0;
  for (uint64_t i = 0; i < kPackets; ++i) {
    uint64_t t0 = cpu();
    fill(buf.data());
    uint64_t t1 = cpu();
    if (pwrite(fd, buf.data(), kPacket, static_cast<off_t>(i * kPacket)) !=
        static_cast<ssize_t>(kPacket))
      return 1;
    uint64_t t2 = cpu();
    t_store += t1 - t0, t_write += t2 - t1;
  }
  close(fd);
  unlink(path.c_str());
  std::printf(
      "ttb pages.pwrite.stores_ns %.0f\nttb pages.pwrite.pwrite_ns %.0f\n"
      "ttb pages.pwrite.total_ns %.0f\n",
      t_store / pages, t_write / pages, (t_store + t_write) / pages);
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

// What a short-lived thread costs the process when it writes one event: its stream file
// created, its first packet mapped, the event, the stream closed at the thread's exit. `iters`
// threads one after the other, each tt_mark once; `reps` times. Per thread.
int ThreadStart(const Config& c) {
  if (!RequireState(true)) return 1;
  tt_mark(ttb::kInstantName);  // the process's own setup is not counted
  std::vector<double> wall, cpu;
  for (int r = 0; r < c.reps; ++r) {
    uint64_t w0 = ttb::ReadNs(CLOCK_MONOTONIC), c0 = ttb::ReadNs(CLOCK_PROCESS_CPUTIME_ID);
    for (uint64_t i = 0; i < c.iters; ++i) std::thread([] { tt_mark(ttb::kInstantName); }).join();
    uint64_t c1 = ttb::ReadNs(CLOCK_PROCESS_CPUTIME_ID), w1 = ttb::ReadNs(CLOCK_MONOTONIC);
    wall.push_back(static_cast<double>(w1 - w0) / static_cast<double>(c.iters));
    cpu.push_back(static_cast<double>(c1 - c0) / static_cast<double>(c.iters));
  }
  std::printf("ttb threadstart.wall_ns %.0f\n", ttb::Median(wall));
  std::printf("ttb threadstart.proc_cpu_ns %.0f\n", ttb::Median(cpu));
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s pushpop|instant|ablate|baseline|threadstart [opts] | used-bytes DIR | "
                 "pages DIR\n",
                 argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  if (mode == "used-bytes") {
    if (argc != 3) return 2;
    return UsedBytes(argv[2]);
  }
  if (mode == "pages") {
    if (argc != 3) return 2;
    return PageCost(argv[2]);
  }
  Config c = ttb::ParseConfig(argc, argv, 2);
  ttb::ReportBuild();
  if (mode == "pushpop") return PushPop(c);
  if (mode == "instant") return Instant(c);
  if (mode == "ablate") return Ablate(c);
  if (mode == "baseline") return Baseline(c);
  if (mode == "threadstart") return ThreadStart(c);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
