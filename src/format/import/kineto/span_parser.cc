#include "format/import/kineto/span_parser.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace tt::kineto {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

class SpanParser {
 public:
  SpanParser(const char* b, const char* e) : p_(b), e_(e) {}
  bool Parse(json* out) {
    if (!Value(out, 0)) return false;
    Ws();
    return p_ == e_;
  }

 private:
  void Ws() {
    while (p_ < e_ && IsSpace(*p_)) ++p_;
  }
  bool Value(json* out, int depth) {
    Ws();
    if (p_ == e_ || depth > 64) return false;
    switch (*p_) {
      case '{':
        return Object(out, depth);
      case '[':
        return Array(out, depth);
      case '"':
        *out = std::string();
        return String(&out->get_ref<std::string&>());
      case 't':
        return Literal("true", json(true), out);
      case 'f':
        return Literal("false", json(false), out);
      case 'n':
        return Literal("null", json(), out);
      default:
        return Number(out);
    }
  }
  bool Literal(std::string_view word, json v, json* out) {
    if (static_cast<size_t>(e_ - p_) < word.size() || std::string_view(p_, word.size()) != word)
      return false;
    p_ += word.size();
    *out = std::move(v);
    return true;
  }
  bool String(std::string* s) {
    const char* b = ++p_;
    while (p_ < e_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20 &&
           static_cast<unsigned char>(*p_) < 0x80)
      ++p_;
    if (p_ == e_ || *p_ != '"') return false;
    s->assign(b, p_++);
    return true;
  }
  bool Object(json* out, int depth) {
    ++p_;
    *out = json::object();
    auto& obj = out->get_ref<json::object_t&>();
    Ws();
    if (p_ < e_ && *p_ == '}') return ++p_, true;
    std::string key;
    for (;;) {
      Ws();
      if (p_ == e_ || *p_ != '"' || !String(&key)) return false;
      Ws();
      if (p_ == e_ || *p_++ != ':') return false;
      if (!Value(&obj[key], depth + 1)) return false;
      Ws();
      if (p_ == e_) return false;
      char c = *p_++;
      if (c == '}') return true;
      if (c != ',') return false;
    }
  }
  bool Array(json* out, int depth) {
    ++p_;
    *out = json::array();
    auto& arr = out->get_ref<json::array_t&>();
    Ws();
    if (p_ < e_ && *p_ == ']') return ++p_, true;
    for (;;) {
      arr.emplace_back();
      if (!Value(&arr.back(), depth + 1)) return false;
      Ws();
      if (p_ == e_) return false;
      char c = *p_++;
      if (c == ']') return true;
      if (c != ',') return false;
    }
  }
  // JSON's number grammar; integers of up to 18 digits exactly, others by strtod on the text,
  // as nlohmann's lexer.
  bool Number(json* out) {
    const char* b = p_;
    bool neg = p_ < e_ && *p_ == '-';
    if (neg) ++p_;
    const char* d = p_;
    if (p_ == e_ || !IsDigit(*p_)) return false;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < e_ && IsDigit(*p_)) ++p_;
    }
    size_t digits = p_ - d;
    bool real = false;
    if (p_ < e_ && *p_ == '.') {
      real = true, ++p_;
      if (!Digits()) return false;
    }
    if (p_ < e_ && (*p_ == 'e' || *p_ == 'E')) {
      real = true, ++p_;
      if (p_ < e_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!Digits()) return false;
    }
    if (!real) return digits <= 18 && Integer(d, neg, out);
    char text[64];
    if (p_ - b >= 64) return false;
    std::memcpy(text, b, p_ - b);
    text[p_ - b] = 0;
    double v = std::strtod(text, nullptr);
    *out = v;
    return std::isfinite(v);  // overflow: nlohmann's error
  }
  bool Integer(const char* d, bool neg, json* out) {
    uint64_t v = 0;
    for (; d < p_; ++d) v = v * 10 + static_cast<uint64_t>(*d - '0');
    if (neg)
      *out = -static_cast<int64_t>(v);
    else
      *out = v;
    return true;
  }
  bool Digits() {
    const char* d = p_;
    while (p_ < e_ && IsDigit(*p_)) ++p_;
    return p_ > d;
  }
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }
  const char *p_, *e_;
};

}  // namespace

bool ParseJsonSpan(const char* begin, const char* end, json* out) {
  return SpanParser(begin, end).Parse(out);
}

}  // namespace tt::kineto
