// Output of exporters: a file written under a temporary name and renamed into place when
// complete, so a failed export leaves nothing behind. Optionally gzip-compressed.
#pragma once
#include <cstdio>
#include <string>

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
  // Flushes, closes and renames into place. Throws tt::Error on failure.
  void Commit();
  uint64_t bytes() const { return bytes_; }

 private:
  void Flush();
  std::string path_, tmp_;
  bool gzip_;
  void* gz_ = nullptr;     // gzFile
  std::FILE* file_ = nullptr;
  std::string buf_;
  uint64_t bytes_ = 0;
  bool done_ = false;
};

}  // namespace tt::exporter
