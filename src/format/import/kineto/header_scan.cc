#include "format/import/kineto/header_scan.h"

#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

namespace tt::kineto {

namespace {

// The scan's state across the file's chunks.
class HeaderScanner {
 public:
  explicit HeaderScanner(uint64_t max_header) : max_(max_header) {}
  // False once the file cannot be what the scan expects.
  bool Feed(const char* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      char c = p[i];
      if (in_events_ && !in_str_ && depth_ > 2) {  // inside an event: nesting and strings only
        if (c == '"')
          in_str_ = true;
        else if (c == '{' || c == '[')
          ++depth_;
        else if (c == '}' || c == ']')
          --depth_;
        continue;
      }
      if (!in_events_ && !Keep(c)) return false;
      if (!Step(c)) return false;
    }
    return true;
  }
  bool Done() const { return found_ && !in_events_ && depth_ == 0 && !in_str_; }
  const std::string& Kept() const { return kept_; }

 private:
  bool Keep(char c) {
    kept_.push_back(c);
    return kept_.size() <= max_;
  }
  bool Step(char c) {
    if (in_str_) {
      if (esc_) {
        esc_ = false;
      } else if (c == '\\') {
        esc_ = true;
      } else if (c == '"') {
        in_str_ = false;
      } else if (key_) {
        if (key_text_.size() < 64) key_text_.push_back(c);
      }
      return true;
    }
    switch (c) {
      case '"':
        in_str_ = true;
        key_ = depth_ == 1 && expect_key_;
        if (key_) key_text_.clear();
        return true;
      case ':':
        if (depth_ == 1) expect_key_ = false, key_ = false;
        return true;
      case ',':
        if (depth_ == 1) expect_key_ = true;
        return true;
      case '{':
      case '[':
        return Open(c);
      case '}':
      case ']':
        return Close(c);
      default:
        return true;
    }
  }
  bool Open(char c) {
    if (depth_ == 0 && (c != '{' || opened_)) return false;
    if (depth_ == 0) opened_ = expect_key_ = true;
    if (depth_ == 1 && c == '[' && key_text_ == "traceEvents") {
      if (found_) return false;  // two of them: the full parser decides
      found_ = in_events_ = true;
      kept_.push_back(']');  // the array kept empty
    }
    ++depth_;
    return true;
  }
  bool Close(char c) {
    if (depth_ == 0) return false;
    --depth_;
    if (in_events_ && depth_ == 1) {
      if (c != ']') return false;
      in_events_ = false;
    }
    return true;
  }

  uint64_t max_;
  std::string kept_, key_text_;
  int64_t depth_ = 0;
  bool in_str_ = false, esc_ = false, key_ = false, expect_key_ = false;
  bool opened_ = false, found_ = false, in_events_ = false;
};

}  // namespace

bool ScanKinetoHeader(int fd, uint64_t max_header, json* header) {
  HeaderScanner scan(max_header);
  std::vector<char> buf(size_t{1} << 20);
  for (;;) {
    ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    if (!scan.Feed(buf.data(), static_cast<size_t>(n))) return false;
  }
  if (!scan.Done()) return false;
  json doc = json::parse(scan.Kept(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return false;
  *header = json::object();
  for (auto& [k, v] : doc.items())
    if (k != "traceEvents") (*header)[k] = std::move(v);
  return true;
}

}  // namespace tt::kineto
