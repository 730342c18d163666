#include "format/import/kineto/span_parser.h"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <string>

#include "format/import/kineto/event.h"

namespace tt::kineto {

namespace {

// Bytes by class, one look-up each: JSON's white space, and the bytes a string of the common
// case holds as they are (printable ASCII but quote and backslash).
struct ByteClasses {
  bool space[256] = {}, plain[256] = {};
  constexpr ByteClasses() {
    for (char c : {' ', '\n', '\r', '\t'}) space[static_cast<unsigned char>(c)] = true;
    for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  }
};
constexpr ByteClasses kBytes;

bool IsSpace(char c) { return kBytes.space[static_cast<unsigned char>(c)]; }
bool IsPlain(char c) { return kBytes.plain[static_cast<unsigned char>(c)]; }

class SpanParser {
 public:
  SpanParser(const char* b, const char* e) : p_(b), e_(e) {}
  bool Parse(json* out) {
    if (!Value(out, 0)) return false;
    Ws();
    return p_ == e_;
  }
  // One event (an object) into the fields the importer reads, the others checked and skipped;
  // into *out's storage (strings, the arguments' arrays), which an earlier event left there.
  bool ParseEvent(KinetoEvent* out) {
    out->ph.clear(), out->cat.clear(), out->name.clear();
    out->pid = out->tid = out->ts = out->dur = out->id = nullptr;
    bool args = false;
    Ws();
    if (p_ == e_ || *p_ != '{') return false;
    if (!Members([&](const std::string& key) { return EventMember(out, key, &args); }))
      return false;
    if (!args) out->args = nullptr;
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
    while (p_ < e_ && IsPlain(*p_)) ++p_;
    if (p_ == e_ || *p_ != '"') return false;
    s->assign(b, p_++);
    return true;
  }
  bool Object(json* out, int depth) {
    *out = json::object();
    auto& obj = out->get_ref<json::object_t&>();
    return Members([&](const std::string& key) { return Value(&obj[key], depth + 1); });
  }
  // An object's members from p_ at '{', each value read by `member(key)`.
  template <typename Member>
  bool Members(Member member) {
    ++p_;
    Ws();
    if (p_ < e_ && *p_ == '}') return ++p_, true;
    std::string key;
    for (;;) {
      Ws();
      if (p_ == e_ || *p_ != '"' || !String(&key)) return false;
      Ws();
      if (p_ == e_ || *p_++ != ':') return false;
      if (!member(key)) return false;
      Ws();
      if (p_ == e_) return false;
      char c = *p_++;
      if (c == '}') return true;
      if (c != ',') return false;
    }
  }
  bool EventMember(KinetoEvent* out, const std::string& key, bool* args) {
    if (std::string* s = EventString(out, key)) {
      Ws();
      if (p_ < e_ && *p_ == '"') return String(s);
      s->clear();  // not a string: as absent
      return Skip(1);
    }
    if (key == "args") {
      *args = true;
      Ws();
      if (p_ == e_ || *p_ != '{') return Value(&out->args, 1);
      return ArgsInPlace(&out->args);
    }
    if (json* f = EventField(out, key)) return Value(f, 1);
    return Skip(1);
  }
  // The arguments (an object) into *args, reusing the members an earlier event left there;
  // then it holds the object's ImportedArg members only.
  bool ArgsInPlace(json* args) {
    if (!args->is_object()) *args = json::object();
    auto& obj = args->get_ref<json::object_t&>();
    uint32_t seen = 0;
    bool ok = Members([&](const std::string& k) {
      int i = ImportedArgIndex(k);
      if (i < 0) return Skip(2);
      seen |= uint32_t{1} << i;
      return InPlace(&obj[k], 2);
    });
    for (auto it = obj.begin(); it != obj.end();) {
      int i = ImportedArgIndex(it->first);
      it = i >= 0 && (seen >> i & 1) ? std::next(it) : obj.erase(it);
    }
    return ok;
  }
  // Value into *out, reusing its strings and arrays.
  bool InPlace(json* out, int depth) {
    Ws();
    if (p_ == e_ || depth > 64) return false;
    if (*p_ == '"') {
      if (!out->is_string()) *out = std::string();
      return String(&out->get_ref<std::string&>());
    }
    if (*p_ != '[') return Value(out, depth);
    ++p_;
    if (!out->is_array()) *out = json::array();
    auto& arr = out->get_ref<json::array_t&>();
    size_t n = 0;
    Ws();
    if (p_ < e_ && *p_ == ']') return ++p_, arr.clear(), true;
    for (;;) {
      if (n == arr.size()) arr.emplace_back();
      if (!InPlace(&arr[n++], depth + 1)) return false;
      Ws();
      if (p_ == e_) return false;
      char c = *p_++;
      if (c == ']') break;
      if (c != ',') return false;
    }
    arr.erase(arr.begin() + static_cast<std::ptrdiff_t>(n), arr.end());
    return true;
  }
  // A value checked as Value would read it, and not kept.
  bool Skip(int depth) {
    Ws();
    if (p_ == e_ || depth > 64) return false;
    switch (*p_) {
      case '{':
        return Members([&](const std::string&) { return Skip(depth + 1); });
      case '[':
        return SkipArray(depth);
      case '"':
        return SkipString();
      default: {
        json scalar;  // a number or literal: no allocation
        return Value(&scalar, depth);
      }
    }
  }
  bool SkipArray(int depth) {
    ++p_;
    Ws();
    if (p_ < e_ && *p_ == ']') return ++p_, true;
    for (;;) {
      if (!Skip(depth + 1)) return false;
      Ws();
      if (p_ == e_) return false;
      char c = *p_++;
      if (c == ']') return true;
      if (c != ',') return false;
    }
  }
  bool SkipString() {
    ++p_;
    while (p_ < e_ && IsPlain(*p_)) ++p_;
    if (p_ == e_ || *p_ != '"') return false;
    ++p_;
    return true;
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
    // Correctly rounded, as strtod (nlohmann's lexer), without its locale and copy.
    double v = 0;
    auto r = std::from_chars(b, p_, v);
    if (r.ec != std::errc() || r.ptr != p_) return false;  // out of range: nlohmann decides
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

bool ParseEventSpan(const char* begin, const char* end, KinetoEvent* out) {
  // The storage of a large event is not kept for the next ones: memory stays with the events.
  if (out->span > (size_t{64} << 10)) *out = KinetoEvent();
  out->span = static_cast<size_t>(end - begin);
  return SpanParser(begin, end).ParseEvent(out);
}

}  // namespace tt::kineto
