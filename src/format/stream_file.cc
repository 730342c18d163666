#include "format/stream_file.h"

#include "core/files.h"

namespace tt {

StreamFileWriter::StreamFileWriter(std::string path, const PacketInfo& info, uint64_t packet_bytes)
    : path_(std::move(path)), info_(info), packet_bytes_(packet_bytes) {}

uint8_t* StreamFileWriter::Reserve(uint64_t ts, uint64_t need) {
  ts_ = ts < packet_last_ ? packet_last_ : ts;
  if (open_ && buf_.size() - packet_ + need > packet_bytes_) ClosePacket();
  if (!open_) {
    packet_ = buf_.size();
    info_.ts_begin = ts_;
    buf_.resize(packet_ + layout::kPacketHeaderSize);
    InitPacket(reinterpret_cast<uint8_t*>(buf_.data() + packet_), layout::kPacketHeaderSize, info_);
    info_.seq++;
    packet_last_ = ts_;
    open_ = true;
  }
  // The slack past the event is cut by Advance; the buffer may move, so pointers live only
  // for one event.
  reserved_at_ = buf_.size();
  buf_.resize(reserved_at_ + need);
  return reinterpret_cast<uint8_t*>(buf_.data() + reserved_at_);
}

void StreamFileWriter::Advance(uint64_t used) {
  buf_.resize(reserved_at_ + used);
  packet_last_ = ts_;
  events_++;
}

void StreamFileWriter::ClosePacket() {
  if (!open_) return;
  auto* base = reinterpret_cast<uint8_t*>(buf_.data() + packet_);
  uint64_t bytes = buf_.size() - packet_;
  // Imported packets are exactly as long as their content.
  Commit(base, base + bytes, packet_last_);
  Store<uint64_t>(base + layout::kOffPacketSize, bytes * 8);
  open_ = false;
}

void StreamFileWriter::Finish() {
  ClosePacket();
  WriteFileAtomic(path_, buf_);
}

}  // namespace tt
