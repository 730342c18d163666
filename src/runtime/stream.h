// A stream being written: one per thread, plus one per process for definitions (names,
// clock offsets, drop summary). A stream writes packets into a file mapped into memory, one
// packet mapped at a time; what has been committed is on the file's pages and survives a crash.
#pragma once
#include <atomic>
#include <cstdint>

#include "format/writer.h"
#include "runtime/clock.h"
#include "runtime/event_classes.h"
#include "runtime/intern.h"

namespace tt::rt {

struct Stream {
  // Hot: touched by every event.
  uint8_t* base = nullptr;  // start of the mapped packet
  uint8_t* pos = nullptr;   // where the next event goes
  uint8_t* end = nullptr;   // end of the mapped packet
  uint64_t last_ts = 0;
  uint32_t busy = 0;  // an event is being written (a signal handler must not write)
  // Dropped while busy; folded into the packet by the next event. Only its thread writes it;
  // atomic so that the exit path may read it from another thread.
  std::atomic<uint32_t> pending_drops{0};
  Anchor anchor;
  NameCache names;
  ClassCache classes;
  // Cold: packet switches, drops, bookkeeping.
  // The next packet, mapped ahead by the preparer (prepare.h): its state, address, offset.
  std::atomic<uint32_t> prep{0};  // a futex word: waiters sleep while it is kPrepBusy
  bool preparable = false;        // thread streams: the preparer may map ahead for them
  uint8_t* spare = nullptr;
  uint64_t spare_off = 0;
  // The CPU the owner last asked for a spare from (a hint for the preparer, prepare.cc).
  std::atomic<int32_t> request_cpu{-1};
  uint64_t discarded = 0;  // cumulative drops, as the packet context reports them
  bool failed = false;     // no further packet can be had
  int fail_errno = 0;      // why (DropReasonOfErrno)
  uint64_t file_off = 0;
  uint64_t packet_bytes = 0;
  uint64_t seq = 0;
  PacketInfo info;
  Stream* next = nullptr;  // registry of live streams
  // The file is opened by path for each packet and closed again: the program may close or
  // reuse any descriptor (daemons close them all), and we must never write through one of its.
  char path[512] = {0};
};

// Creates a stream file named after `prefix` in the process directory, with its first packet.
// Returns null on failure (counted, and the event that wanted it is dropped).
// `first_ts` starts the stream's clock (device streams start at 0: their records may predate
// the stream); UINT64_MAX means now.
Stream* OpenStream(layout::TrackKind kind, uint64_t track_id, const char* prefix,
                   uint64_t packet_bytes, uint64_t first_ts = UINT64_MAX);
// Maps the next packet; false if none can be had (the event is then dropped).
bool NextPacket(Stream* s, uint64_t need);
// Unmaps and closes; the file keeps everything committed.
void CloseStream(Stream* s);

// Counts a dropped event in the stream's packet context.
void CountDrop(Stream* s, uint64_t n);
// An event dropped because no next packet could be had: counted with its reason.
void CountNoRoom(Stream* s);

}  // namespace tt::rt
