// Encoding of packets and events in tensortrace's CTF layout (see layout.h). Header-only so the
// runtime's hot path inlines it. The caller owns the memory and guarantees room for each event
// (EventSize tells how much); after each event, Commit() publishes it in the packet context, so
// a packet read at any moment (a crash, SIGKILL) ends on a whole event.
#pragma once
#include <atomic>
#include <cstdint>
#include <cstring>

#include "core/ids.h"
#include "format/args.h"
#include "format/layout.h"

namespace tt {

struct PacketInfo {
  Uuid uuid{};
  uint64_t stream_instance = 0;
  uint64_t seq = 0;
  uint64_t ts_begin = 0;
  uint64_t discarded = 0;
  layout::TrackKind kind = layout::TrackKind::kThread;
  uint64_t track_id = 0;
  uint32_t pid = 0;
};

// Writes the packet header and context; the packet starts empty (content = header only).
inline void InitPacket(uint8_t* base, uint64_t packet_bytes, const PacketInfo& info) {
  using namespace layout;
  Store<uint32_t>(base + kOffMagic, kMagic);
  std::memcpy(base + kOffUuid, info.uuid.data(), 16);
  Store<uint32_t>(base + kOffStreamId, 0);
  Store<uint64_t>(base + kOffStreamInstance, info.stream_instance);
  Store<uint64_t>(base + kOffTsBegin, info.ts_begin);
  Store<uint64_t>(base + kOffTsEnd, info.ts_begin);
  Store<uint64_t>(base + kOffContentSize, uint64_t{kPacketHeaderSize} * 8);
  Store<uint64_t>(base + kOffPacketSize, packet_bytes * 8);
  Store<uint64_t>(base + kOffSeqNum, info.seq);
  Store<uint64_t>(base + kOffDiscarded, info.discarded);
  Store<uint64_t>(base + kOffTrackId, info.track_id);
  Store<uint32_t>(base + kOffPid, info.pid);
  Store<uint8_t>(base + kOffTrackKind, static_cast<uint8_t>(info.kind));
}

// Largest event header.
inline constexpr uint32_t kMaxHeader = layout::kExtendedHeaderSize;

// Writes a compact event header (id, the timestamp's low 32 bits), which only a caller that
// knows the event follows the previous one in its packet by under 2^32 ns may use.
inline uint8_t* PutCompactHeader(uint8_t* p, uint8_t id, uint64_t ts) {
  p[0] = id;
  Store<uint32_t>(p + 1, static_cast<uint32_t>(ts));
  return p + layout::kCompactHeaderSize;
}

// Writes an event header; `last_ts` is the previous timestamp in this packet (or its
// timestamp_begin). A 32-bit timestamp is enough while the gap stays under 2^32 ns.
inline uint8_t* PutHeader(uint8_t* p, uint8_t id, uint64_t ts, uint64_t last_ts) {
  if (__builtin_expect(ts - last_ts < (uint64_t{1} << 32), 1)) return PutCompactHeader(p, id, ts);
  p[0] = layout::kExtendedId;
  Store<uint16_t>(p + 1, id);
  Store<uint64_t>(p + 3, ts);
  return p + layout::kExtendedHeaderSize;
}

// Publishes everything up to `end` as content, with `ts` as the packet's last timestamp.
// The compiler barrier keeps the payload stores before the size store (x86 keeps store order).
inline void Commit(uint8_t* base, uint8_t* end, uint64_t ts) {
  std::atomic_signal_fence(std::memory_order_release);
  Store<uint64_t>(base + layout::kOffTsEnd, ts);
  Store<uint64_t>(base + layout::kOffContentSize, static_cast<uint64_t>(end - base) * 8);
}

inline uint8_t* PutU8(uint8_t* p, uint8_t v) {
  *p = v;
  return p + 1;
}
inline uint8_t* PutU32(uint8_t* p, uint32_t v) {
  Store(p, v);
  return p + 4;
}
inline uint8_t* PutU64(uint8_t* p, uint64_t v) {
  Store(p, v);
  return p + 8;
}
inline uint8_t* PutF64(uint8_t* p, double v) {
  Store(p, v);
  return p + 8;
}
// NUL-terminated string of `len` bytes (no NUL inside).
inline uint8_t* PutStr(uint8_t* p, const char* s, size_t len) {
  std::memcpy(p, s, len);
  p[len] = 0;
  return p + len + 1;
}

}  // namespace tt
