#include "format/repair.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/files.h"

namespace tt {

using namespace layout;

// Where a stream file's chain of packets ends: the packets are read from the start while their
// headers are valid and they fit in the file.
struct ChainEnd {
  uint64_t valid = 0;                       // end of the last whole valid packet
  uint64_t last = 0, psize = 0, csize = 0;  // that packet (psize == 0: there is none)
  // A valid packet starts at `valid` and runs past the file's end, its content within it.
  bool torn = false;
};

static ChainEnd WalkChain(int fd, uint64_t size, const Uuid& uuid) {
  ChainEnd c;
  uint8_t h[kPacketHeaderSize];
  while (c.valid + kPacketHeaderSize <= size) {
    if (pread(fd, h, sizeof h, static_cast<off_t>(c.valid)) != static_cast<ssize_t>(sizeof h))
      break;
    uint64_t ps = Load<uint64_t>(h + kOffPacketSize), cs = Load<uint64_t>(h + kOffContentSize);
    if (Load<uint32_t>(h) != kMagic || std::memcmp(h + kOffUuid, uuid.data(), 16) != 0 || ps % 8 ||
        cs % 8 || cs > ps || cs / 8 < kPacketHeaderSize)
      break;
    if (ps / 8 > size - c.valid) {
      c.torn = cs / 8 <= size - c.valid;
      break;
    }
    c.last = c.valid, c.psize = ps / 8, c.csize = cs / 8;
    c.valid += ps / 8;
  }
  return c;
}

// Returns the length the stream file should have: up to the end of its last valid packet,
// with a packet cut short by a crash shrunk to the file's end.
static uint64_t ValidLength(const std::string& path, uint64_t size, const Uuid& uuid,
                            RepairReport* rep) {
  int fd = open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open " + path + ": " + std::strerror(errno));
  ChainEnd c = WalkChain(fd, size, uuid);
  uint64_t keep = c.valid;
  if (c.torn) {
    // The last packet lost its tail: keep what it says it holds.
    uint64_t bits = (size - c.valid) * 8;
    if (pwrite(fd, &bits, 8, static_cast<off_t>(c.valid + kOffPacketSize)) == 8) {
      rep->actions.push_back(path + ": last packet shortened to the file's end");
      keep = size;
    }
  }
  close(fd);
  return keep;
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
    uint64_t keep = ValidLength(s, size, proc.meta.trace_uuid, &rep);
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

// Whether [off, off + len) of the file reads as zeros to its end.
static bool AllZeros(int fd, uint64_t off, uint64_t len) {
  uint8_t buf[65536];
  while (len) {
    size_t n = len < sizeof buf ? static_cast<size_t>(len) : sizeof buf;
    if (pread(fd, buf, n, static_cast<off_t>(off)) != static_cast<ssize_t>(n)) return false;
    for (size_t i = 0; i < n; ++i)
      if (buf[i]) return false;
    off += n;
    len -= n;
  }
  return true;
}

// Makes the last whole packet cover the zero tail after it (a packet mapped ahead and not yet
// begun): only its packet_size changes, a field the runtime writes once, when it starts the
// packet. Its content, end time and drop count stay the process's to update.
static bool CoverTail(int fd, const ChainEnd& c, uint64_t size) {
  uint64_t tail = size - c.valid;
  if (c.psize == 0 || c.torn || tail % 8 || !AllZeros(fd, c.valid, tail)) return false;
  uint64_t bits = (c.psize + tail) * 8;
  return pwrite(fd, &bits, 8, static_cast<off_t>(c.last + kOffPacketSize)) == 8;
}

// Takes the stream file's OFD write lock, as the runtime does to extend it (prepare.h); gives up
// after about two seconds (a stopped process holding it), leaving that file as it is.
static bool LockFile(int fd) {
  struct flock l = {};
  l.l_type = F_WRLCK;
  l.l_whence = SEEK_SET;
  for (int i = 0; i < 2000; ++i) {
    if (fcntl(fd, F_OFD_SETLK, &l) == 0) return true;
    if (errno == EINVAL) return true;  // no OFD locks in this kernel: nothing to wait for
    usleep(1000);
  }
  return false;
}

RepairReport CutRunningProcess(const ProcessTrace& proc, int64_t offset_end_ns) {
  RepairReport rep;
  for (const auto& s : proc.streams) {
    int fd = open(s.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    if (!LockFile(fd)) {
      rep.actions.push_back(s + ": left as it is (its process held the file)");
      close(fd);
      continue;
    }
    uint64_t size = FileSize(s);
    ChainEnd c = WalkChain(fd, size, proc.meta.trace_uuid);
    if (c.valid < size && CoverTail(fd, c, size))
      rep.actions.push_back(s + ": last packet extended over the packet mapped ahead");
    close(fd);
  }
  ProcessMeta m = proc.meta;
  m.end_state = "cut";
  m.offset_end_ns = offset_end_ns;
  m.end_offset_by = "record";
  WriteFileAtomic(proc.dir + "/metadata", GenerateMetadata(m));
  return rep;
}

uint64_t CompactStreams(const ProcessTrace& proc) {
  uint64_t saved = 0;
  for (const auto& s : proc.streams) {
    int fd = open(s.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    uint64_t size = FileSize(s);
    if (size == 0) {  // created as its process ended, before its first packet: no events
      close(fd);
      unlink(s.c_str());
      continue;
    }
    ChainEnd c = WalkChain(fd, size, proc.meta.trace_uuid);
    // A packet mapped ahead and left unbegun: a process that exited after `record` marked the
    // recording ended keeps it (the runtime cuts nothing then). It has ended, so cut it here.
    if (c.valid < size && c.psize && !c.torn && AllZeros(fd, c.valid, size - c.valid) &&
        ftruncate(fd, static_cast<off_t>(c.valid)) == 0)
      size = c.valid;
    uint64_t off = c.last, psize = c.psize, csize = c.csize;
    if (c.valid == size && psize && csize < psize) {
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

void DeclareNames(const ProcessTrace& proc) {
  ProcessMeta m = proc.meta;
  std::vector<Problem> ignored;  // damage is the reader's to report
  for (const auto& s : proc.streams) {
    std::string base = s.substr(s.rfind('/') + 1);
    if (base.rfind("proc", 0) != 0 && base.rfind("xspace", 0) != 0) continue;
    StreamDecoder dec(s, proc.meta, &ignored);
    RawEvent ev;
    while (dec.Next(&ev)) {
      if (dec.header().kind != layout::TrackKind::kProcess) break;
      if (ev.id != layout::kStringDef || ev.name >= (1u << 24)) continue;
      if (ev.name >= m.names.size()) m.names.resize(ev.name + 1);
      m.names[ev.name] = std::string(ev.s1);
    }
  }
  WriteFileAtomic(proc.dir + "/metadata", GenerateMetadata(m));
}

}  // namespace tt
