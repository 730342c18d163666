#include "format/import/kineto/stream.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iterator>
#include <vector>

#include "core/error.h"
#include "format/import/kineto/header_scan.h"
#include "format/import/untrusted.h"

namespace tt::kineto {

namespace {

// Builds one JSON value from SAX events (a header field or one event).
class Builder {
 public:
  json root;
  // Places `v` where the value being built expects it; returns where it went.
  json* Put(json v) {
    if (stack_.empty()) return &(root = std::move(v));
    json* top = stack_.back();
    if (top->is_array()) {
      top->push_back(std::move(v));
      return &top->back();
    }
    return &(*slot_ = std::move(v));
  }
  void Key(const std::string& k) { slot_ = &(*stack_.back())[k]; }
  void Open(json v) { stack_.push_back(Put(std::move(v))); }
  bool Close() {  // true when the root is complete
    stack_.pop_back();
    return stack_.empty();
  }

 private:
  std::vector<json*> stack_;
  json* slot_ = nullptr;
};

// The SAX handler: the root object's fields into the header, traceEvents' objects to on_event
// (or skipped), anything else in traceEvents skipped.
class KinetoSax {
 public:
  // The first `skip` events are built but not handed over (the scan handed them over already).
  KinetoSax(json* header, const EventSink& sink, uint64_t skip)
      : header_(header), sink_(sink), skip_(skip) {}
  bool events_seen = false;
  std::string error;

  bool null() { return Scalar(nullptr); }
  bool boolean(bool v) { return Scalar(v); }
  bool number_integer(json::number_integer_t v) { return Scalar(v); }
  bool number_unsigned(json::number_unsigned_t v) { return Scalar(v); }
  bool number_float(json::number_float_t v, const std::string&) { return Scalar(v); }
  bool string(std::string& v) { return Scalar(std::move(v)); }
  bool binary(json::binary_t&) { return true; }
  bool key(std::string& k) {
    if (skip_from_ >= 0) return true;
    if (building_) {
      b_.Key(k);
    } else if (depth_ == 1) {
      top_key_ = k;
    }
    return true;
  }
  bool start_object(std::size_t) { return Open(json::object()); }
  bool start_array(std::size_t) { return Open(json::array()); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception&) {
    error = "not JSON at byte " + std::to_string(pos) + " (truncated?)";
    return false;
  }

 private:
  bool Scalar(json v) {
    if (skip_from_ >= 0) return true;
    if (building_) {
      b_.Put(std::move(v));
    } else if (depth_ == 1 && top_key_ != "traceEvents") {
      (*header_)[top_key_] = std::move(v);
    } else if (depth_ == 0) {
      error = "not a JSON object";
      return false;
    }
    return true;  // a scalar in traceEvents is no event
  }
  bool Open(json v) {
    if (depth_ == 0 && !v.is_object()) {
      error = "not a JSON object";
      return false;
    }
    bool element = depth_ == 2 && in_events_;
    if (skip_from_ < 0 && !building_ && depth_ >= 1) {
      if (depth_ == 1 && top_key_ == "traceEvents" && v.is_array()) {
        in_events_ = events_seen = true;
      } else if (element && !(sink_.Wanted() && v.is_object())) {
        skip_from_ = depth_;
      } else {
        building_ = true;
        event_ = element;
      }
    }
    if (building_) b_.Open(std::move(v));
    ++depth_;
    return true;
  }
  bool Close() {
    --depth_;
    if (skip_from_ >= 0) {
      if (depth_ == skip_from_) skip_from_ = -1;
      return true;
    }
    if (building_ && b_.Close()) {
      building_ = false;
      if (event_ && skip_ > 0)
        --skip_;
      else if (event_)
        HandOver();
      else
        (*header_)[top_key_] = std::move(b_.root);
      b_.root = json();
    } else if (!building_ && depth_ == 1) {
      in_events_ = false;
    }
    return true;
  }

  void HandOver() {
    if (!sink_.flat) return (*sink_.as_json)(b_.root);
    KinetoEvent e = ToKinetoEvent(std::move(b_.root));
    (*sink_.flat)(e);
  }

  json* header_;
  EventSink sink_;
  uint64_t skip_;
  Builder b_;
  int depth_ = 0;       // containers open
  int skip_from_ = -1;  // skipping until depth_ is back to this
  bool building_ = false, event_ = false, in_events_ = false;
  std::string top_key_;
};

// A file read through a 1 MiB buffer, as the parser's input iterator: nlohmann's FILE* input
// takes the stream's lock for every character (fgetc was 44% of a 97 MB profile's import).
class BufferedFile {
 public:
  explicit BufferedFile(int fd) : fd_(fd), buf_(size_t{1} << 20) {}
  bool AtEnd() { return pos_ == len_ && !Fill(); }
  char Get() const { return buf_[pos_]; }
  void Next() { ++pos_; }
  uint64_t Consumed() const { return done_ + pos_; }

 private:
  bool Fill() {
    if (eof_) return false;
    done_ += len_;
    pos_ = len_ = 0;
    ssize_t n;
    do n = read(fd_, buf_.data(), buf_.size());
    while (n < 0 && errno == EINTR);
    if (n <= 0) return !(eof_ = true);
    len_ = static_cast<size_t>(n);
    return true;
  }
  int fd_;
  std::vector<char> buf_;
  size_t pos_ = 0, len_ = 0;
  uint64_t done_ = 0;
  bool eof_ = false;
};

// An input iterator over a BufferedFile; a null file is the end.
struct FileIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;
  BufferedFile* f = nullptr;
  char operator*() const { return f->Get(); }
  FileIterator& operator++() {
    f->Next();
    return *this;
  }
  bool operator==(const FileIterator& o) const { return Ended() == o.Ended(); }
  bool operator!=(const FileIterator& o) const { return !(*this == o); }
  bool Ended() const { return !f || f->AtEnd(); }
};

}  // namespace

void ReadKinetoFile(const std::string& path, uint64_t max_bytes, json* header,
                    const EventFn* on_event) {
  ReadKinetoFile(path, max_bytes, header, EventSink{on_event, nullptr});
}

void ReadKinetoFile(const std::string& path, uint64_t max_bytes, json* header,
                    const EventSink& sink) {
  int fd = OpenUntrustedFile(path, max_bytes);
  // Found by a scan of the bytes where it can be (the full parse otherwise, after the events
  // the scan handed over).
  constexpr uint64_t kMaxHeaderBytes = uint64_t{64} << 20;
  uint64_t delivered = 0;
  bool scanned;
  try {
    scanned = ScanKinetoFile(fd, kMaxHeaderBytes, header, sink, &delivered);
  } catch (...) {
    close(fd);
    throw;
  }
  if (scanned) {
    close(fd);
    return;
  }
  if (lseek(fd, 0, SEEK_SET) != 0) {
    close(fd);
    throw Error("cannot read " + ValidUtf8(path) + "; skipped");
  }
  BufferedFile file(fd);
  *header = json::object();
  KinetoSax sax(header, sink, delivered);
  bool ok;
  try {
    ok = json::sax_parse(FileIterator{&file}, FileIterator{}, &sax);
  } catch (...) {
    close(fd);
    throw;
  }
  bool empty = !ok && file.Consumed() == 0;
  close(fd);
  if (empty) throw Error(ValidUtf8(path) + ": empty file; skipped");
  if (!ok)
    throw Error(ValidUtf8(path) + ": not a readable Kineto trace (" +
                (sax.error.empty() ? std::string("not JSON") : sax.error) + "); skipped");
  if (!sax.events_seen) throw Error(ValidUtf8(path) + ": no traceEvents array; skipped");
}

}  // namespace tt::kineto
