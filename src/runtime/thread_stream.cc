// Stream files: creating them, mapping packet after packet, closing.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <new>

#include "runtime/emit.h"

namespace tt::rt {

uint64_t ReservePacketBytes(uint64_t bytes);  // process.cc: false-y (0) past the size cap
void ReleasePacketBytes(uint64_t bytes);
const Uuid& TraceUuid();

Stream* OpenStream(layout::TrackKind kind, uint64_t track_id, const char* prefix,
                   uint64_t packet_bytes, uint64_t first_ts) {
  const char* dir = ProcessDir();
  if (!dir) return nullptr;
  void* mem = mmap(nullptr, sizeof(Stream), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  if (mem == MAP_FAILED) return nullptr;
  Stream* s = new (mem) Stream();
  int fd = -1;
  for (int k = 0; k < 10000; ++k) {
    auto id = static_cast<unsigned long long>(track_id);
    int n = k == 0 ? std::snprintf(s->path, sizeof s->path, "%s/%s%llu", dir, prefix, id)
                   : std::snprintf(s->path, sizeof s->path, "%s/%s%llu.%d", dir, prefix, id, k);
    if (n <= 0 || static_cast<size_t>(n) >= sizeof s->path) break;
    fd = open(s->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) break;
  }
  if (fd < 0) {
    CloseStream(s);
    return nullptr;
  }
  close(fd);
  s->packet_bytes = packet_bytes;
  s->info.uuid = TraceUuid();
  s->info.stream_instance = NewStreamInstance();
  s->info.kind = kind;
  s->info.track_id = track_id;
  s->info.pid = Pid();
  s->last_ts = first_ts == UINT64_MAX ? NowNs(&s->anchor) : first_ts;
  if (!NextPacket(s, 0)) {
    unlink(s->path);
    CloseStream(s);
    return nullptr;
  }
  return s;
}

static bool Allocate(int fd, uint64_t off, uint64_t len) {
  // fallocate reserves the blocks now, so a full disk fails here and not as SIGBUS on a
  // store into the mapping; filesystems without it fall back to growing the file.
  if (fallocate(fd, 0, static_cast<off_t>(off), static_cast<off_t>(len)) == 0) return true;
  if (errno != EOPNOTSUPP && errno != ENOSYS) return false;
  return ftruncate(fd, static_cast<off_t>(off + len)) == 0;
}

bool NextPacket(Stream* s, uint64_t need) {
  if (s->failed || need + layout::kPacketHeaderSize > s->packet_bytes) return false;
  uint64_t bytes = s->packet_bytes;
  uint64_t off = s->base ? s->file_off + bytes : 0;
  if (!ReservePacketBytes(bytes)) {
    s->failed = true;
    return false;
  }
  int fd = open(s->path, O_RDWR | O_CLOEXEC);
  void* m = MAP_FAILED;
  if (fd >= 0 && Allocate(fd, off, bytes)) {
    m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
             static_cast<off_t>(off));
    // On failure the file keeps a zero tail; `record` cuts it when it finalises.
  }
  if (fd >= 0) close(fd);
  if (m == MAP_FAILED) {
    ReleasePacketBytes(bytes);
    s->failed = true;
    return false;
  }
  uint8_t* old = s->base;
  s->info.seq = old ? s->info.seq + 1 : 0;
  s->info.ts_begin = s->last_ts;
  s->info.discarded = s->discarded;
  InitPacket(static_cast<uint8_t*>(m), bytes, s->info);
  s->base = static_cast<uint8_t*>(m);
  s->pos = s->base + layout::kPacketHeaderSize;
  s->end = s->base + bytes;
  s->file_off = off;
  if (old) munmap(old, bytes);
  return true;
}

void CloseStream(Stream* s) {
  if (s->base) munmap(s->base, s->packet_bytes);
  s->~Stream();
  munmap(s, sizeof(Stream));
}

void CountDrop(Stream* s, uint64_t n) {
  s->discarded += n;
  if (s->base) Store<uint64_t>(s->base + layout::kOffDiscarded, s->discarded);
}

}  // namespace tt::rt
