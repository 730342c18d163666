// The loss page: a small file `record` creates in the trace directory (`losses`) before the
// program starts, where a process that cannot write its own trace (permission denied after
// setuid, no file descriptor left, a full disk) still counts the events it loses, and where
// `record` says that the recording has ended. Every traced process maps it at load time, through
// the descriptor `record` leaves open for it (TENSORTRACE_LOSSES_FD, checked against the file's
// device and inode) or else by path, so that a child forked after setuid or a process under
// RLIMIT_NOFILE reaches it without opening anything. Its blocks are allocated by `record`: a
// store into it never needs disk space. docs/trace-format.md, "Loss page".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tt {

inline constexpr uint32_t kLossMagic = 0x53534C54;  // "TLSS"
inline constexpr uint32_t kLossVersion = 1;
inline constexpr uint32_t kLossBytes = 16384;
inline constexpr uint32_t kLossHeaderBytes = 64;
inline constexpr uint32_t kLossSlotBytes = 64;
inline constexpr uint32_t kLossSlots = (kLossBytes - kLossHeaderBytes) / kLossSlotBytes;

// Why a process lost its events. The texts are the drop reasons `info` shows.
enum LossCause : uint32_t {
  kLossDiskFull,
  kLossNoFds,
  kLossPermission,
  kLossOther,
  kLossCauseCount
};
inline const char* LossCauseText(uint32_t c) {
  static const char* const kText[kLossCauseCount] = {"disk full", "no file descriptors",
                                                     "permission denied", "cannot write the trace"};
  return c < kLossCauseCount ? kText[c] : "unknown";
}
// The cause of a failed file operation, from its errno.
LossCause LossCauseOfErrno(int err);

// Offsets in the file (every field little-endian, 4- or 8-byte aligned).
inline constexpr uint32_t kLossOffMagic = 0;    // uint32
inline constexpr uint32_t kLossOffVersion = 4;  // uint32
inline constexpr uint32_t kLossOffUsed = 8;     // uint32: slots claimed (may exceed kLossSlots)
inline constexpr uint32_t kLossOffEnded = 12;   // uint32: 1 once `record` has finished
// uint32: nonzero while the processes write events. `record` sets it to 1 before the command
// starts, or (record --on-demand, --every) to 0, and switches it for each capture window.
inline constexpr uint32_t kLossOffCapture = 16;
// uint32: steps that ended inside capture windows, counted by the Python bootstrap where the
// framework tells it of each step (Keras, PyTorch's optimizer): what `capture --steps` waits on.
inline constexpr uint32_t kLossOffSteps = 20;
// uint32: the count at which the open window has its steps (`capture --steps`; 0: none): the
// process whose step reaches it closes its framework capture at that step's end.
inline constexpr uint32_t kLossOffStepTarget = 24;
// A slot: uint32 pid (written when the slot is taken), uint32 reserved, then
// uint64 counts[kLossCauseCount] (added to atomically).
inline constexpr uint32_t kLossSlotOffPid = 0;
inline constexpr uint32_t kLossSlotOffCounts = 8;

// One process that lost events without a trace of its own.
struct LostProcess {
  int64_t pid = 0;
  uint64_t counts[kLossCauseCount] = {};
};

// The page's lost processes; empty when `path` does not exist or is not a loss page.
std::vector<LostProcess> ReadLossPage(const std::string& path);

}  // namespace tt
