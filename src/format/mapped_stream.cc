// Stream files opened and mapped once per trace (MappedStream, StreamFiles), or copied into memory
// first while `record` may still cut them (live_read.h); and the hooks tests count them with.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/files.h"
#include "format/live_read.h"
#include "format/reader.h"
#include "format/reader_internal.h"

namespace tt {

using namespace layout;

StreamReadHooks& StreamHooks() {
  static StreamReadHooks hooks;
  return hooks;
}

void SetStreamReadHooks(StreamReadHooks hooks) { StreamHooks() = std::move(hooks); }

// Stream files are copied, not mapped (live_read.h).
static bool g_copy_streams = false;

bool StreamFilesCopied() { return g_copy_streams; }

namespace {

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// The runtime commits an event by storing its packet's timestamp_end, then its content_size
// (format/writer.h, Commit). A copy reads the header in address order, timestamp_end first, so
// it may hold a newer content_size than timestamp_end, and the last event would look out of its
// packet: each packet's timestamp_end is read again once the copy is made (it only grows).
void RefreshPacketEnds(int fd, int mem, uint64_t size) {
  uint64_t off = 0;
  uint8_t head[kPacketHeaderSize];
  while (off + kPacketHeaderSize <= size &&
         pread(mem, head, sizeof head, static_cast<off_t>(off)) == sizeof head &&
         Load<uint32_t>(head + kOffMagic) == kMagic) {
    uint64_t psize = Load<uint64_t>(head + kOffPacketSize) / 8;
    uint8_t ts[8];
    if (psize < kPacketHeaderSize || pread(fd, ts, 8, static_cast<off_t>(off + kOffTsEnd)) != 8 ||
        pwrite(mem, ts, 8, static_cast<off_t>(off + kOffTsEnd)) != 8)
      break;
    off += psize;
  }
}

// A copy of the first *size bytes of `fd` in a memfd, which replaces it (fd is closed). The
// file may shrink meanwhile: the copy ends where the reads did (*size says where). The copy is
// a file, so that the decoders' MADV_DONTNEED drops pages that fault back in (in an anonymous
// mapping they would read as zeros). Returns -1 (fd closed) when no copy can be made.
int CopyToMemory(int fd, uint64_t* size) {
  int mem = memfd_create("tt-stream", MFD_CLOEXEC);
  std::vector<char> buf(mem >= 0 ? 1u << 20 : 0);
  uint64_t done = 0;
  while (mem >= 0 && done < *size) {
    ssize_t n = pread(fd, buf.data(), std::min<uint64_t>(buf.size(), *size - done),
                      static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (!WriteAll(mem, buf.data(), static_cast<size_t>(n))) {
      close(mem);
      mem = -1;
    }
    done += static_cast<uint64_t>(n);
  }
  if (mem >= 0) RefreshPacketEnds(fd, mem, done);
  close(fd);
  *size = done;
  return mem;
}
}  // namespace

void SetStreamFilesCopied(bool copied) { g_copy_streams = copied; }

MappedStream::MappedStream(const std::string& path) : path_(path) {
  if (StreamHooks().opened) StreamHooks().opened(path);
  int fd = -1;
  try {
    fd = OpenRegularFile(path, /*follow_symlinks=*/false);
  } catch (const Error& e) {
    error_ = e.what();
    return;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) st.st_size = 0;
  if (st.st_size > 0 && g_copy_streams) {
    uint64_t n = static_cast<uint64_t>(st.st_size);
    fd = CopyToMemory(fd, &n);
    if (fd < 0) {
      error_ = std::string("cannot copy: ") + std::strerror(errno);
      return;
    }
    st.st_size = static_cast<off_t>(n);
  }
  if (st.st_size > 0) {
    size_ = static_cast<uint64_t>(st.st_size);
    void* m = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      error_ = std::string("cannot map: ") + std::strerror(errno);
      size_ = 0;
    } else {
      data_ = static_cast<const uint8_t*>(m);
      madvise(m, size_, MADV_SEQUENTIAL);
    }
  }
  close(fd);
}

MappedStream::~MappedStream() {
  if (data_) munmap(const_cast<uint8_t*>(data_), size_);
}

std::shared_ptr<const MappedStream> StreamFiles::Get(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& f = files_[path];
  if (!f) f = std::make_shared<MappedStream>(path);
  return f;
}

}  // namespace tt
