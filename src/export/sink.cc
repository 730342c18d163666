#include "export/sink.h"

#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace tt::exporter {

Sink::Sink(const std::string& path, bool gzip) : path_(path), gzip_(gzip) {
  tmp_ = path + ".tmp" + std::to_string(getpid());
  if (gzip_) {
    gz_ = gzopen(tmp_.c_str(), "wb6");
    if (!gz_) throw Error("cannot create " + path + ": " + std::strerror(errno));
  } else {
    file_ = std::fopen(tmp_.c_str(), "wb");
    if (!file_) throw Error("cannot create " + path + ": " + std::strerror(errno));
  }
  buf_.reserve(1 << 20);
}

Sink::~Sink() {
  if (done_) return;
  if (gz_) gzclose(static_cast<gzFile>(gz_));
  if (file_) std::fclose(file_);
  unlink(tmp_.c_str());
}

void Sink::Write(const char* data, size_t n) {
  buf_.append(data, n);
  bytes_ += n;
  if (buf_.size() >= (1 << 20)) Flush();
}

void Sink::Flush() {
  if (buf_.empty()) return;
  bool ok = gz_ ? gzwrite(static_cast<gzFile>(gz_), buf_.data(), static_cast<unsigned>(buf_.size())) ==
                      static_cast<int>(buf_.size())
                : std::fwrite(buf_.data(), 1, buf_.size(), file_) == buf_.size();
  if (!ok) throw Error("cannot write " + path_ + ": " + std::strerror(errno));
  buf_.clear();
}

void Sink::Commit() {
  Flush();
  int rc = gz_ ? gzclose(static_cast<gzFile>(gz_)) : std::fclose(file_);
  gz_ = nullptr;
  file_ = nullptr;
  if (rc != 0) {
    unlink(tmp_.c_str());
    done_ = true;
    throw Error("cannot write " + path_ + ": " + std::strerror(errno));
  }
  if (rename(tmp_.c_str(), path_.c_str()) != 0) {
    unlink(tmp_.c_str());
    done_ = true;
    throw Error("cannot write " + path_ + ": " + std::strerror(errno));
  }
  done_ = true;
}

}  // namespace tt::exporter
