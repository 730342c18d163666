// The socket source's table of descriptors (net_interpose.cc): each descriptor's kind, found by
// its first data call and cached, and for a TCP connection its id and byte offsets. A fixed
// array (no allocation, no lock); descriptors past kMaxFd are not recorded.
#pragma once
#include <stdint.h>

#include <atomic>

namespace tt::net {

inline constexpr unsigned kMaxFd = 1u << 16;

enum Kind : uint8_t {
  kUnknown = 0,  // not looked at since it was (re)opened
  kOther = 1,    // not a connected TCP socket: passed through
  kTcp = 2,      // recorded
};

enum Dir { kSend = 0, kRecv = 1 };

struct FdEntry {
  std::atomic<uint8_t> kind;
  std::atomic<uint32_t> announced;  // the fork generation its connection was announced in
  uint64_t conn;                    // set before kind becomes kTcp
  std::atomic<uint64_t> offset[2];  // bytes moved so far, per Dir
};

extern FdEntry g_fds[kMaxFd];

// Looks at `fd` (its kind was kUnknown): the entry if it is a connected TCP socket (a new
// connection, offsets 0), else null (kOther cached where that cannot change; a socket not yet
// connected stays kUnknown). Keeps errno.
FdEntry* Classify(int fd);

// A call on `fd` that moved `bytes` in direction `d`, started at `start` (event clock): takes
// its offset and writes the event, announcing the connection first where this process has not.
void Record(FdEntry* e, int fd, Dir d, uint64_t bytes, uint64_t start);

}  // namespace tt::net
