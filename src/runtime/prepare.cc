#include "runtime/prepare.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "runtime/loss_page.h"
#include "runtime/process.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace tt::rt {

uint64_t ReservePacketBytes(uint64_t bytes);  // process.cc: 0 past the size cap
void ReleasePacketBytes(uint64_t bytes);

namespace {

enum Thread : int { kNotStarted, kRunning, kUnavailable };
constinit std::atomic<int> g_thread{kNotStarted};
constinit std::atomic<uint32_t> g_wake{0};  // futex word: bumped by every request
// Streams whose spare is requested or being mapped: the preparer's queue, itself included.
constinit std::atomic<uint32_t> g_pending{0};
// How long an owner waits for a preparer that has its request next, before mapping the packet
// itself (the preparer maps a 1 MiB packet in about 0.3 to 2 ms, bench/RESULTS.md).
constexpr long kQueuedWaitNs = 20'000'000;
// Packet switches after which a single-threaded process starts the preparer (README).
constexpr uint32_t kSoloPackets = 16;
constinit std::atomic<uint32_t> g_solo_switches{0};

bool Cas(Stream* s, uint32_t from, uint32_t to) {
  return s->prep.compare_exchange_strong(from, to, std::memory_order_acq_rel);
}

// Waits while the state is `st` (kPrepBusy: the preparer is mapping this stream's packet;
// kPrepClosing: a closer is cutting it). The preparer holds no lock while it maps, so it
// always gets on; sleeping, the waiter spends no CPU on the wait.
void Wait(Stream* s, uint32_t st) {
  if (st == kPrepBusy) {
    syscall(SYS_futex, &s->prep, FUTEX_WAIT_PRIVATE, st, nullptr, nullptr, 0);
  } else {
    sched_yield();
  }
}

void Wake(Stream* s) {
  syscall(SYS_futex, &s->prep, FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr, 0);
}

void Publish(Stream* s, uint32_t st) {
  s->prep.store(st, std::memory_order_release);
  Wake(s);
}

// Whether a file of `end` bytes would pass the process's RLIMIT_FSIZE. The program's limit is
// its own: extending past it would raise SIGXFSZ in the program (fallocate, ftruncate and write
// all do), so the stream fails with EFBIG instead and its events are counted as dropped.
bool BeyondFileSizeLimit(uint64_t end) {
  struct rlimit r;
  if (getrlimit(RLIMIT_FSIZE, &r) != 0 || r.rlim_cur == RLIM_INFINITY || end <= r.rlim_cur)
    return false;
  errno = EFBIG;
  return true;
}

bool Allocate(int fd, uint64_t off, uint64_t len) {
  if (BeyondFileSizeLimit(off + len)) return false;
  if (fallocate(fd, 0, static_cast<off_t>(off), static_cast<off_t>(len)) == 0) return true;
  if (errno != EOPNOTSUPP && errno != ENOSYS) return false;
  return ftruncate(fd, static_cast<off_t>(off + len)) == 0;
}

// Takes one requested stream off the registry's list, or null.
Stream* ClaimRequest() {
  Lock();
  Stream* found = nullptr;
  for (Stream* s = StreamsLocked(); s && !found; s = s->next)
    if (s->prep.load(std::memory_order_relaxed) == kPrepRequested &&
        Cas(s, kPrepRequested, kPrepBusy))
      found = s;
  Unlock();
  return found;
}

void* PreparerMain(void*) {
  cpu_set_t all;
  bool movable = sched_getaffinity(0, sizeof all, &all) == 0 && CPU_COUNT(&all) > 1;
  for (;;) {
    uint32_t seen = g_wake.load(std::memory_order_acquire);
    while (Stream* s = ClaimRequest()) {
      // Busy: the owner and the closers wait for us, so the stream stays alive and its
      // file_off is the one the owner published with its request.
      uint64_t off = s->file_off + s->packet_bytes;
      uint8_t* m = nullptr;
      // Woken on the owner's CPU, the work would take the owner's time: move off that CPU for
      // it. (Seen in a 2-vCPU VM: with the other vCPU idle, the scheduler still woke us on the
      // owner's, which then lost its CPU about 6 times per 10 packets.)
      bool moved = false;
      int owner_cpu = s->request_cpu.load(std::memory_order_relaxed);
      if (movable && owner_cpu >= 0 && owner_cpu < CPU_SETSIZE && sched_getcpu() == owner_cpu) {
        cpu_set_t others = all;
        CPU_CLR(owner_cpu, &others);
        moved = CPU_COUNT(&others) > 0 && sched_setaffinity(0, sizeof others, &others) == 0;
      }
      if (ReservePacketBytes(s->packet_bytes)) {
        m = MapPacket(s->path, off, s->packet_bytes, true);
        if (!m) ReleasePacketBytes(s->packet_bytes);
      }
      if (moved) sched_setaffinity(0, sizeof all, &all);
      if (m) {
        s->spare = m;
        s->spare_off = off;
      }
      g_pending.fetch_sub(1, std::memory_order_relaxed);
      Publish(s, m ? kPrepReady : kPrepNone);
    }
    syscall(SYS_futex, &g_wake, FUTEX_WAIT_PRIVATE, seen, nullptr, nullptr, 0);
  }
  return nullptr;
}

// Whether the process has more than one thread: /proc/self/stat's thread count (field 20).
// No lock: a signal handler's packet switch may get here.
bool ProgramHasThreads() {
  char buf[1024];
  int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return false;
  buf[n] = 0;
  const char* p = std::strrchr(buf, ')');  // the command name may hold spaces
  for (int field = 2; p && field < 20; ++field) p = std::strchr(p + 1, ' ');
  return p && std::strtol(p + 1, nullptr, 10) > 1;
}

bool StartPreparer() {
  int st = g_thread.load(std::memory_order_acquire);
  if (st != kNotStarted) return st == kRunning;
  // A single-threaded program stays single-threaded (unshare(CLONE_NEWUSER) and setns need
  // it): the preparer starts once the program has a second thread of its own, or once one
  // thread has switched packets kSoloPackets times (a program that busy is worth the thread).
  if (g_solo_switches.fetch_add(1, std::memory_order_relaxed) + 1 < kSoloPackets &&
      !ProgramHasThreads())
    return false;
  int expect = kNotStarted;
  if (!g_thread.compare_exchange_strong(expect, kUnavailable)) return expect == kRunning;
  const char* env = std::getenv("TENSORTRACE_PREPARE");
  if (env && std::strcmp(env, "0") == 0) return false;
  // Every signal blocked, so that none of the program's is ever delivered to our thread.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 << 10);
  pthread_t t;
  int rc = pthread_create(&t, &attr, PreparerMain, nullptr);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) return false;
  pthread_setname_np(t, "tt-prepare");
  g_thread.store(kRunning, std::memory_order_release);
  return true;
}

}  // namespace

// Writes zeros over [off, off + len) from a buffer of zeros that is never written (its pages
// stay the kernel's shared zero page), 64 KiB per call. Larger writes let ext4 put the range in
// large folios, and then, in some processes (by address layout: never with ASLR off), each page
// that MADV_POPULATE_WRITE faults in costs a page_mkwrite over the whole folio's buffers: 6 to
// 8 us per 4 KiB page instead of 0.2 to 0.4 (bench/RESULTS.md).
bool WriteZeros(int fd, uint64_t off, uint64_t len) {
  static uint8_t zeros[64 << 10];
  while (len) {
    uint64_t n = len < sizeof zeros ? len : sizeof zeros;
    ssize_t w = pwrite(fd, zeros, n, static_cast<off_t>(off));
    if (w <= 0) return false;
    off += static_cast<uint64_t>(w);
    len -= static_cast<uint64_t>(w);
  }
  return true;
}

int OpenLocked(const char* path) {
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return -1;
  struct flock l = {};
  l.l_type = F_WRLCK;
  l.l_whence = SEEK_SET;
  // Whole file; an open file description's lock, released by close. Where the kernel has no
  // OFD locks (before 3.15) the file is used without one.
  while (fcntl(fd, F_OFD_SETLKW, &l) != 0 && errno == EINTR) {
  }
  return fd;
}

void UnlockClose(int fd) {
  // Explicitly: a mapping of the file holds its open file description, and with it the lock,
  // until it is unmapped.
  struct flock l = {};
  l.l_type = F_UNLCK;
  l.l_whence = SEEK_SET;
  int err = errno;
  fcntl(fd, F_OFD_SETLK, &l);
  close(fd);
  errno = err;
}

uint8_t* MapPacket(const char* path, uint64_t off, uint64_t bytes, bool write_fault) {
  int fd = OpenLocked(path);
  if (fd < 0) return nullptr;
  if (RecordingEnded()) {  // no packet past what `record` closed (under the file's lock)
    UnlockClose(fd);
    errno = ESHUTDOWN;
    return nullptr;
  }
  void* m = MAP_FAILED;
  // The preparer fills the pages with write() first: the write faults that follow find them in
  // the page cache, dirty, and cost a fraction of faulting in fresh pages (bench/RESULTS.md).
  if (Allocate(fd, off, bytes) && (!write_fault || WriteZeros(fd, off, bytes))) {
    m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(off));
    // On failure the file keeps a zero tail; `record` cuts it when it finalises.
  }
  UnlockClose(fd);
  if (m == MAP_FAILED) return nullptr;
  // Faulted in as used: no read-around, which would allocate and zero most of the packet at
  // the first store (a thread that wrote one event paid about 0.6 ms for it).
  if (!write_fault) {
    madvise(m, bytes, MADV_RANDOM);
  } else if (madvise(m, bytes, MADV_POPULATE_WRITE) != 0) {
    // Older kernels: a store per page faults it in writable (the pages are zeros already).
    auto* p = static_cast<volatile uint8_t*>(m);
    for (uint64_t i = 0; i < bytes; i += 4096) p[i] = 0;
  }
  return static_cast<uint8_t*>(m);
}

void RequestSpare(Stream* s) {
  if (!s->preparable || !StartPreparer()) return;
  s->request_cpu.store(sched_getcpu(), std::memory_order_relaxed);
  if (!Cas(s, kPrepNone, kPrepRequested)) return;
  g_pending.fetch_add(1, std::memory_order_relaxed);
  g_wake.fetch_add(1, std::memory_order_release);
  syscall(SYS_futex, &g_wake, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

uint8_t* TakeSpare(Stream* s, uint64_t off) {
  bool waited = false;
  for (;;) {
    uint32_t st = s->prep.load(std::memory_order_acquire);
    if (st == kPrepReady && Cas(s, kPrepReady, kPrepNone)) {
      uint8_t* m = s->spare;
      s->spare = nullptr;
      if (s->spare_off == off) return m;
      munmap(m, s->packet_bytes);  // not reached: only the owner moves file_off
      ReleasePacketBytes(s->packet_bytes);
      return nullptr;
    }
    if (st == kPrepRequested) {
      // Not started. If the preparer has this stream next (at most one other ahead), wait for
      // it a bounded time rather than spend this thread's time on the same work; with more
      // ahead, busy threads would queue behind one preparer, so the packet is mapped here.
      if (!waited && g_pending.load(std::memory_order_relaxed) <= 2) {
        timespec limit{0, kQueuedWaitNs};
        syscall(SYS_futex, &s->prep, FUTEX_WAIT_PRIVATE, kPrepRequested, &limit, nullptr, 0);
        waited = true;
        continue;
      }
      if (Cas(s, kPrepRequested, kPrepNone)) {
        g_pending.fetch_sub(1, std::memory_order_relaxed);
        return nullptr;
      }
      continue;
    }
    if (st == kPrepNone || st == kPrepClosed) return nullptr;
    Wait(s, st);  // kPrepBusy, or kPrepClosing
  }
}

void CloseSpare(Stream* s, bool cut_file) {
  for (;;) {
    uint32_t st = s->prep.load(std::memory_order_acquire);
    if (st == kPrepClosed) return;
    if (!cut_file) {  // a forked child: the parent's preparer will never finish here
      if (st == kPrepReady) munmap(s->spare, s->packet_bytes);
      s->spare = nullptr;
      s->prep.store(kPrepClosed, std::memory_order_relaxed);
      return;
    }
    if ((st == kPrepNone || st == kPrepRequested) && Cas(s, st, kPrepClosed)) {
      if (st == kPrepRequested) {
        g_pending.fetch_sub(1, std::memory_order_relaxed);
        Wake(s);  // an owner waiting for the request
      }
      return;
    }
    if (st == kPrepReady && Cas(s, kPrepReady, kPrepClosing)) {
      munmap(s->spare, s->packet_bytes);
      s->spare = nullptr;
      // The owner maps nothing at this offset while the state is kPrepClosing, so the cut
      // cannot take a packet in use. Once `record` has finished, the file is left as it is: its
      // last packet may cover the spare now (CutRunningProcess), and a cut would tear it.
      int fd = OpenLocked(s->path);
      bool cut =
          !RecordingEnded() && (fd >= 0 ? ftruncate(fd, static_cast<off_t>(s->spare_off))
                                        : truncate(s->path, static_cast<off_t>(s->spare_off))) == 0;
      if (cut) ReleasePacketBytes(s->packet_bytes);
      if (fd >= 0) UnlockClose(fd);
      s->prep.store(kPrepClosed, std::memory_order_release);
      return;
    }
    Wait(s, st);  // kPrepBusy, or another closer's kPrepClosing
  }
}

void ForgetPreparer() {
  g_thread.store(kNotStarted, std::memory_order_relaxed);
  g_solo_switches.store(0, std::memory_order_relaxed);
  g_pending.store(0, std::memory_order_relaxed);
}

}  // namespace tt::rt
