#include "runtime/loss_page.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tt::rt {

namespace {

constinit uint8_t* g_page = nullptr;
constinit std::atomic<int32_t> g_slot{-1};  // this process's slot; -2: none was free

template <typename T>
std::atomic_ref<T> At(uint32_t off) {
  return std::atomic_ref<T>(*reinterpret_cast<T*>(g_page + off));
}

// The descriptor record left for us, if it still is the loss page (the program may have closed
// it and reused the number).
int InheritedFd() {
  const char* v = std::getenv("TENSORTRACE_LOSSES_FD");
  int fd = -1;
  unsigned long long dev = 0, ino = 0;
  if (!v || std::sscanf(v, "%d:%llu:%llu", &fd, &dev, &ino) != 3 || fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != dev || st.st_ino != ino)
    return -1;
  return fd;
}

}  // namespace

void MapLossPage(const char* root) {
  int fd = InheritedFd();
  bool own = false;
  if (fd < 0) {
    fd = open((std::string(root) + "/losses").c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    own = fd >= 0;
  }
  if (fd < 0) return;
  struct stat st;
  void* m = MAP_FAILED;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == kLossBytes)
    m = mmap(nullptr, kLossBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (own) close(fd);
  if (m == MAP_FAILED) return;
  g_page = static_cast<uint8_t*>(m);
  if (At<uint32_t>(kLossOffMagic).load() != kLossMagic ||
      At<uint32_t>(kLossOffVersion).load() != kLossVersion) {
    munmap(m, kLossBytes);
    g_page = nullptr;
  }
}

bool HaveLossPage() { return g_page != nullptr; }

bool CountLost(LossCause c, uint64_t n) {
  if (!g_page || c >= kLossCauseCount) return false;
  int32_t slot = g_slot.load(std::memory_order_acquire);
  if (slot == -1) {
    uint32_t k = At<uint32_t>(kLossOffUsed).fetch_add(1);
    int32_t want = k < kLossSlots ? static_cast<int32_t>(k) : -2;
    if (want >= 0)
      At<uint32_t>(kLossHeaderBytes + static_cast<uint32_t>(want) * kLossSlotBytes +
                   kLossSlotOffPid)
          .store(static_cast<uint32_t>(getpid()));
    // Two threads may both claim one: the loser's slot stays empty (no count), which is harmless.
    int32_t expect = -1;
    slot = g_slot.compare_exchange_strong(expect, want) ? want : expect;
  }
  if (slot < 0) return false;
  uint32_t off = kLossHeaderBytes + static_cast<uint32_t>(slot) * kLossSlotBytes +
                 kLossSlotOffCounts + 8 * static_cast<uint32_t>(c);
  At<uint64_t>(off).fetch_add(n, std::memory_order_relaxed);
  return true;
}

void ForgetLossSlot() { g_slot.store(-1); }

const uint32_t* CaptureWord() {
  return g_page ? reinterpret_cast<const uint32_t*>(g_page + kLossOffCapture) : nullptr;
}

bool RecordingEnded() {
  return g_page && At<uint32_t>(kLossOffEnded).load(std::memory_order_relaxed) != 0;
}

}  // namespace tt::rt
