// Stream files: creating them, mapping packet after packet, closing.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <new>

#include "core/files.h"
#include "runtime/emit.h"
#include "runtime/loss_page.h"
#include "runtime/prepare.h"

namespace tt::rt {

uint64_t ReservePacketBytes(uint64_t bytes);  // process.cc: false-y (0) past the size cap
void ReleasePacketBytes(uint64_t bytes);
const Uuid& TraceUuid();

Stream* OpenStream(layout::TrackKind kind, uint64_t track_id, const char* prefix,
                   uint64_t packet_bytes, uint64_t first_ts) {
  const char* dir = ProcessDir();
  if (!dir) return nullptr;
  void* mem =
      mmap(nullptr, sizeof(Stream), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return nullptr;
  Stream* s = new (mem) Stream();
  int fd = -1;
  for (int k = 0; k < 10000; ++k) {
    auto id = static_cast<unsigned long long>(track_id);
    int n = k == 0 ? std::snprintf(s->path, sizeof s->path, "%s/%s%llu", dir, prefix, id)
                   : std::snprintf(s->path, sizeof s->path, "%s/%s%llu.%d", dir, prefix, id, k);
    if (n <= 0 || static_cast<size_t>(n) >= sizeof s->path) break;
    fd = open(s->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, kFileMode);
    if (fd >= 0 || errno != EEXIST) break;
  }
  if (fd < 0) {
    int e = errno;
    CloseStream(s);
    errno = e;
    return nullptr;
  }
  fchmod(fd, kFileMode);  // whatever the program's umask: the preparer reopens it O_RDWR
  close(fd);
  s->packet_bytes = packet_bytes;
  s->preparable = kind == layout::TrackKind::kThread;
  s->info.uuid = TraceUuid();
  s->info.stream_instance = NewStreamInstance();
  s->info.kind = kind;
  s->info.track_id = track_id;
  s->info.pid = Pid();
  s->last_ts = first_ts == UINT64_MAX ? NowNs(&s->anchor) : first_ts;
  if (!NextPacket(s, 0)) {
    int e = errno;
    unlink(s->path);
    CloseStream(s);
    errno = e;
    return nullptr;
  }
  return s;
}

// Marks `s` as unable to get a packet, for the reason `err` (an errno); false.
static bool Fail(Stream* s, int err) {
  s->failed = true;
  s->fail_errno = err;
  errno = err;
  return false;
}

bool NextPacket(Stream* s, uint64_t need) {
  if (s->failed) {
    errno = s->fail_errno;
    return false;
  }
  if (need + layout::kPacketHeaderSize > s->packet_bytes) {
    errno = EFBIG;
    return false;
  }
  // Once `record` has finished, nothing is added to a stream it closed (loss_page.h).
  if (RecordingEnded()) return Fail(s, ESHUTDOWN);
  uint64_t bytes = s->packet_bytes;
  uint8_t* old = s->base;
  uint64_t off = old ? s->file_off + bytes : 0;
  uint8_t* m = old ? TakeSpare(s, off) : nullptr;
  if (!m) {
    if (!ReservePacketBytes(bytes)) return Fail(s, ENOBUFS);  // the size cap
    // A stream that filled a packet is busy: its next one is written and faulted in now, which
    // costs a fraction of faulting its pages one by one later. A new stream's first packet is
    // left to fault in as it is used, since most threads write far less than a packet.
    m = MapPacket(s->path, off, bytes, old != nullptr);
    if (!m) {
      int e = errno;
      ReleasePacketBytes(bytes);
      return Fail(s, e);
    }
  }
  s->info.seq = old ? s->info.seq + 1 : 0;
  s->info.ts_begin = s->last_ts;
  s->info.discarded = s->discarded;
  InitPacket(m, bytes, s->info);
  s->base = m;
  s->pos = s->base + layout::kPacketHeaderSize;
  s->end = s->base + bytes;
  s->file_off = off;
  if (old) {
    munmap(old, bytes);
    RequestSpare(s);  // a stream that fills a packet is likely to fill the next one
  }
  return true;
}

void CloseStream(Stream* s) {
  if (s->base) munmap(s->base, s->packet_bytes);
  s->~Stream();
  munmap(s, sizeof(Stream));
}

void CountNoRoom(Stream* s) {
  CountDropReason(s->failed ? DropReasonOfErrno(s->fail_errno) : kDropNoSpace, 1);
  CountDrop(s, 1);
}

void CountDrop(Stream* s, uint64_t n) {
  s->discarded += n;
  if (s->base) Store<uint64_t>(s->base + layout::kOffDiscarded, s->discarded);
}

}  // namespace tt::rt
