// Writing a whole stream file after the fact (imported data), in the packets the runtime
// writes: the same header, context and event encoding (writer.h), so every reader of runtime
// streams reads these too. Events are kept in memory and the file is written by Finish().
#pragma once
#include <cstdint>
#include <string>

#include "format/writer.h"

namespace tt {

class StreamFileWriter {
 public:
  // `info` gives the packet context (uuid, instance, kind, track id, pid); seq and ts_begin
  // are filled in per packet.
  StreamFileWriter(std::string path, const PacketInfo& info, uint64_t packet_bytes = 256 << 10);

  // Appends event `id` at `ts` with a payload of `payload` bytes that fill(p) writes at p and
  // returns its end. A timestamp before the previous one is moved up to it (streams are
  // ordered by time).
  template <typename F>
  void Event(uint8_t id, uint64_t ts, uint64_t payload, F fill) {
    uint8_t* p = Reserve(ts, kMaxHeader + payload);
    uint8_t* start = p;
    p = PutHeader(p, id, ts_, packet_last_);
    p = fill(p);
    Advance(static_cast<uint64_t>(p - start));
  }

  uint64_t events() const { return events_; }
  const std::string& path() const { return path_; }
  // Writes the file (atomically); throws tt::Error when it cannot.
  void Finish();

 private:
  uint8_t* Reserve(uint64_t ts, uint64_t need);
  void Advance(uint64_t used);
  void ClosePacket();

  std::string path_;
  PacketInfo info_;
  uint64_t packet_bytes_;
  std::string buf_;
  uint64_t packet_ = 0;       // offset of the open packet in buf_
  uint64_t reserved_at_ = 0;  // offset of the event being written
  bool open_ = false;
  uint64_t ts_ = 0;           // timestamp of the event being written
  uint64_t packet_last_ = 0;  // last timestamp in the open packet
  uint64_t events_ = 0;
};

}  // namespace tt
