// The packet preparer: a thread of the traced process that maps and write-faults the next
// packet of each busy thread stream ahead of time, so that the thread that fills a packet
// switches to the next one without the page faults and system calls of mapping it (on ext4 a
// fresh shared page costs about 5 us to map and fault in; see bench/RESULTS.md).
//
// A stream's `prep` state moves between the owner thread, the preparer and the closers:
//   kPrepNone -(owner asks)-> kPrepRequested -(preparer)-> kPrepBusy -> kPrepReady (spare set)
//   kPrepReady -(owner takes it)-> kPrepNone; kPrepRequested -(owner)-> kPrepNone (maps it itself)
// An owner that finds its request not yet started waits for it (up to 20 ms) when it is next
// in the preparer's queue, and maps the packet itself when others are ahead of it.
//   any -(close)-> kPrepClosed, through kPrepClosing while an unused spare is cut from the file.
// The preparer starts at a thread stream's packet switch once the process has a second thread
// (a process that writes little never has it), or at the 16th packet switch of a process that
// stays single-threaded: a single-threaded program (unshare(CLONE_NEWUSER), setns) must stay
// so. TENSORTRACE_PREPARE=0 switches it off.
#pragma once
#include <cstdint>

#include "runtime/stream.h"

namespace tt::rt {

enum PrepState : uint32_t {
  kPrepNone,
  kPrepRequested,
  kPrepBusy,
  kPrepReady,
  kPrepClosing,
  kPrepClosed
};

// After the owner switched `s` to a new packet: asks for the one after it.
void RequestSpare(Stream* s);

// At the owner's packet switch: the prepared packet at file offset `off` (its bytes already
// counted against the size cap), or null if the owner must map it itself.
uint8_t* TakeSpare(Stream* s, uint64_t off);

// No more spares for `s`. An unused one is unmapped and, with `cut_file`, cut from the end of
// the stream file (its bytes released). A forked child passes cut_file = false: the file is
// its parent's, and it does not wait for a preparer it does not have.
void CloseSpare(Stream* s, bool cut_file);

// In a forked child: the preparer thread stayed in the parent.
void ForgetPreparer();

// Maps `bytes` of the stream file at `path` from `off`, extending the file (blocks reserved,
// so a full disk fails here and not as SIGBUS on a store). `write_fault`: write the pages and
// fault every one in writable now; else each faults in when first written. Null on failure
// (errno set; ESHUTDOWN once `record` has finished). The file is extended under its OFD write
// lock, which `record` also takes to close a still-running process's streams
// (CutRunningProcess): the two never interleave.
uint8_t* MapPacket(const char* path, uint64_t off, uint64_t bytes, bool write_fault);
// Opens a stream file read-write under its OFD write lock (blocking); -1 if it cannot be opened.
int OpenLocked(const char* path);
// Releases the lock and closes (errno kept).
void UnlockClose(int fd);

}  // namespace tt::rt
