#include "export/sink.h"

#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace tt::exporter {

Sink::Sink(const std::string& path, bool gzip) : path_(path), file_(path) {
  if (gzip) {
    // zlib closes the descriptor it is given; AtomicFile keeps its own for fsync and rename.
    int fd = dup(file_.fd());
    if (fd >= 0) gz_ = gzdopen(fd, "wb6");
    if (!gz_) {
      if (fd >= 0) close(fd);
      throw Error("cannot create " + path + ": " + std::strerror(errno ? errno : ENOMEM));
    }
  }
  buf_.reserve(1 << 20);
}

Sink::~Sink() {
  if (gz_) gzclose(static_cast<gzFile>(gz_));
  // file_'s destructor removes the temporary file unless Commit() succeeded.
}

void Sink::Write(const char* data, size_t n) {
  buf_.append(data, n);
  bytes_ += n;
  if (buf_.size() >= (1 << 20)) Flush();
}

void Sink::Flush() {
  if (buf_.empty()) return;
  if (gz_) {
    errno = 0;
    if (gzwrite(static_cast<gzFile>(gz_), buf_.data(), static_cast<unsigned>(buf_.size())) !=
        static_cast<int>(buf_.size()))
      throw Error("cannot write " + path_ + ": " + std::strerror(errno ? errno : EIO));
  } else {
    file_.Write(buf_.data(), buf_.size());
  }
  buf_.clear();
}

void Sink::Commit() {
  Flush();
  if (gz_) {
    errno = 0;
    int rc = gzclose(static_cast<gzFile>(gz_));
    gz_ = nullptr;
    if (rc != Z_OK) {
      int e = errno ? errno : EIO;
      file_.Abandon();
      throw Error("cannot write " + path_ + ": " + std::strerror(e));
    }
  }
  file_.Commit();
}

}  // namespace tt::exporter
