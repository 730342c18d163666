// Output of exporters: a file written under a temporary name and renamed into place when
// complete, so a failed export leaves nothing behind. Optionally gzip-compressed.
#pragma once
#include <cstdint>
#include <string>

#include "core/files.h"

namespace tt::exporter {

class Sink {
 public:
  // Throws tt::Error if `path` cannot be created.
  Sink(const std::string& path, bool gzip);
  ~Sink();  // removes the temporary file unless Commit() succeeded
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  void Write(const char* data, size_t n);
  void Write(const std::string& s) { Write(s.data(), s.size()); }
  // Flushes, closes and renames into place. Throws tt::Error on failure (a full disk included),
  // leaving nothing behind.
  void Commit();
  uint64_t bytes() const { return bytes_; }

 private:
  void Flush();
  std::string path_;
  AtomicFile file_;
  void* gz_ = nullptr;  // gzFile over a duplicate of file_'s descriptor
  std::string buf_;
  uint64_t bytes_ = 0;
};

}  // namespace tt::exporter
