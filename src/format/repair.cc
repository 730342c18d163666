#include "format/repair.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "core/error.h"
#include "core/files.h"

namespace tt {

using namespace layout;

// Returns the length the stream file should have: up to the end of its last valid packet,
// with a packet cut short by a crash shrunk to its content.
static uint64_t ValidLength(const std::string& path, const Uuid& uuid, RepairReport* rep) {
  std::string data = ReadFile(path);
  const auto* d = reinterpret_cast<const uint8_t*>(data.data());
  uint64_t off = 0, size = data.size();
  while (off + kPacketHeaderSize <= size) {
    const uint8_t* p = d + off;
    uint64_t psize = Load<uint64_t>(p + kOffPacketSize) / 8;
    uint64_t csize = Load<uint64_t>(p + kOffContentSize) / 8;
    if (Load<uint32_t>(p) != kMagic || std::memcmp(p + kOffUuid, uuid.data(), 16) != 0 ||
        psize < kPacketHeaderSize || csize < kPacketHeaderSize || csize > psize)
      break;
    if (psize > size - off) {
      if (csize > size - off) break;
      // The last packet lost its tail: keep what it says it holds.
      int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
      uint64_t bits = (size - off) * 8;
      if (fd >= 0) {
        pwrite(fd, &bits, 8, static_cast<off_t>(off + kOffPacketSize));
        close(fd);
      }
      rep->actions.push_back(path + ": last packet shortened to the file's end");
      return size;
    }
    off += psize;
  }
  return off;
}

RepairReport FinaliseProcess(const ProcessTrace& proc, int64_t offset_end_ns) {
  RepairReport rep;
  for (const auto& s : proc.streams) {
    uint64_t size = FileSize(s);
    if (size == 0) {
      unlink(s.c_str());
      rep.actions.push_back(s + ": empty stream removed");
      continue;
    }
    uint64_t keep = ValidLength(s, proc.meta.trace_uuid, &rep);
    if (keep == 0) {
      unlink(s.c_str());
      rep.actions.push_back(s + ": no whole packet; removed");
    } else if (keep < size) {
      if (truncate(s.c_str(), static_cast<off_t>(keep)) != 0)
        throw Error("cannot truncate " + s + ": " + std::strerror(errno));
      rep.actions.push_back(s + ": cut from " + std::to_string(size) + " to " +
                            std::to_string(keep) + " bytes (unwritten packet at the end)");
    }
  }
  ProcessMeta m = proc.meta;
  m.end_state = "finalised";
  m.offset_end_ns = offset_end_ns;
  m.end_offset_by = "record";
  WriteFileAtomic(proc.dir + "/metadata", GenerateMetadata(m));
  return rep;
}

// The offset of the last whole packet of a stream file, and its sizes; false if the file has
// no valid packet chain up to its end.
static bool LastPacket(int fd, uint64_t size, const Uuid& uuid, uint64_t* off, uint64_t* psize,
                       uint64_t* csize) {
  uint64_t o = 0;
  uint8_t h[kPacketHeaderSize];
  while (o + kPacketHeaderSize <= size) {
    if (pread(fd, h, sizeof h, static_cast<off_t>(o)) != static_cast<ssize_t>(sizeof h))
      return false;
    uint64_t ps = Load<uint64_t>(h + kOffPacketSize), cs = Load<uint64_t>(h + kOffContentSize);
    if (Load<uint32_t>(h) != kMagic || std::memcmp(h + kOffUuid, uuid.data(), 16) != 0 ||
        ps % 8 || cs % 8 || cs > ps || cs / 8 < kPacketHeaderSize || ps / 8 > size - o)
      return false;
    if (o + ps / 8 == size) {
      *off = o, *psize = ps / 8, *csize = cs / 8;
      return true;
    }
    o += ps / 8;
  }
  return false;
}

uint64_t CompactStreams(const ProcessTrace& proc) {
  uint64_t saved = 0;
  for (const auto& s : proc.streams) {
    int fd = open(s.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;
    uint64_t size = FileSize(s), off = 0, psize = 0, csize = 0;
    if (LastPacket(fd, size, proc.meta.trace_uuid, &off, &psize, &csize) && csize < psize) {
      // Packet size first: a file cut before it would hold a packet longer than the file.
      uint64_t bits = csize * 8;
      if (pwrite(fd, &bits, 8, static_cast<off_t>(off + kOffPacketSize)) == 8) {
        if (ftruncate(fd, static_cast<off_t>(off + csize)) == 0) {
          saved += psize - csize;
        } else {
          bits = psize * 8;  // the file keeps its length, so the packet keeps its size
          (void)!pwrite(fd, &bits, 8, static_cast<off_t>(off + kOffPacketSize));
        }
      }
    }
    close(fd);
  }
  return saved;
}

}  // namespace tt
