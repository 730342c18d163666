#include "format/import/kineto/header_scan.h"

#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "format/import/kineto/span_parser.h"

namespace tt::kineto {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The bytes that end a run inside an event: in a string (quote, backslash) and outside one
// (quote, brackets); one table look-up per byte instead of a comparison with each.
struct StopBytes {
  bool in_string[256] = {}, outside[256] = {};
  constexpr StopBytes() {
    in_string[static_cast<unsigned char>('"')] = in_string[static_cast<unsigned char>('\\')] = true;
    for (char c : {'"', '{', '}', '[', ']'}) outside[static_cast<unsigned char>(c)] = true;
  }
};
constexpr StopBytes kStop;

// The first position from i before n whose byte is a stop byte (in a string or outside one).
template <bool kInString>
size_t NextStop(const char* p, size_t i, size_t n) {
  const bool* stop = kInString ? kStop.in_string : kStop.outside;
  while (i < n && !stop[static_cast<unsigned char>(p[i])]) ++i;
  return i;
}

// 64 bytes as bit masks (bit k: byte k): quotes, backslashes, '{' or '[', '}' or ']'.
struct Masks {
  uint64_t quote = 0, slash = 0, open = 0, close = 0;
};

#if defined(__SSE2__)
constexpr bool kBlocks = true;
Masks Classify64(const char* p) {
  const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
  const __m128i lower = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
  Masks m;
  for (int k = 0; k < 4; ++k) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    __m128i l = _mm_or_si128(v, lower);  // '[' and ']' are '{' and '}' without 0x20
    auto bits = [&](__m128i eq) {
      return static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(eq))) << (16 * k);
    };
    m.quote |= bits(_mm_cmpeq_epi8(v, quote));
    m.slash |= bits(_mm_cmpeq_epi8(v, slash));
    m.open |= bits(_mm_cmpeq_epi8(l, open));
    m.close |= bits(_mm_cmpeq_epi8(l, close));
  }
  return m;
}
#else
constexpr bool kBlocks = false;
Masks Classify64(const char*) { return {}; }
#endif

// Bit k: the XOR of bits 0..k (after an odd number of quotes: inside a string).
uint64_t PrefixXor(uint64_t x) {
  for (int s = 1; s < 64; s *= 2) x ^= x << s;
  return x;
}

// The scan's state across the file's chunks.
class HeaderScanner {
 public:
  HeaderScanner(uint64_t max_header, const EventSink& sink)
      : max_(max_header), sink_(sink), on_event_(sink.Wanted()) {}
  uint64_t delivered = 0;
  // False once the file cannot be what the scan expects.
  bool Feed(const char* p, size_t n) {
    size_t i = 0;
    ev_in_chunk_ = false;
    while (i < n) {
      if (in_events_ && depth_ > 2) {  // inside an event: nesting and strings only
        i = InEvent(p, n, i);
        if (depth_ == 2 && !EventDone(p, i)) return false;
        continue;
      }
      char c = p[i];
      if (in_events_ && on_event_) {
        if (!Between(c, i)) return false;
      } else {
        if (!in_events_ && !Keep(c)) return false;
        if (!Step(c)) return false;
      }
      ++i;
    }
    if (in_events_ && depth_ > 2 && on_event_) {  // an event goes on in the next chunk
      size_t from = ev_in_chunk_ ? ev_start_ : 0;
      carry_.append(p + from, n - from);
    }
    return true;
  }
  bool Done() const {
    // Where events are wanted, a second "traceEvents" is the parser's (the header's before).
    return found_ && !in_events_ && depth_ == 0 && !in_str_ &&
           (!on_event_ || (keys_ == 1 && !odd_key_));
  }
  const std::string& Kept() const { return kept_; }

 private:
  bool Keep(char c) {
    kept_.push_back(c);
    return kept_.size() <= max_;
  }
  // From p[i] inside an element of the events array: to its end (depth_ back to 2) or the
  // chunk's.
  size_t InEvent(const char* p, size_t n, size_t i) {
    if (kind_ == kScalar) {  // ends before the first byte that is none of its own
      while (i < n && !IsSpace(p[i]) && p[i] != ',' && p[i] != ']' && p[i] != '}') ++i;
      if (i < n) depth_ = 2;
      return i;
    }
    while (i < n) {
      if (kBlocks && kind_ != kString && !esc_ && n - i >= 64) {
        if (size_t used = Block(p + i)) {
          i += used;
          if (depth_ == 2) break;
          continue;
        }
      }
      if (in_str_) {
        if (esc_) {
          esc_ = false, ++i;
          continue;
        }
        i = NextStop<true>(p, i, n);
        if (i == n) break;
        if (p[i++] == '\\') {
          esc_ = true;
          continue;
        }
        in_str_ = false;
        if (kind_ == kString && depth_ == 3) {  // a string element ended
          depth_ = 2;
          break;
        }
        continue;
      }
      i = NextStop<false>(p, i, n);
      if (i == n) break;
      char c = p[i++];
      if (c == '"')
        in_str_ = true;
      else if (c == '{' || c == '[')
        ++depth_;
      else if (--depth_ == 2)
        break;
    }
    return i;
  }
  // InEvent over the 64 bytes from p at once: the bytes used (to the event's end, or all 64),
  // or 0 (nothing done) where a backslash is among them.
  size_t Block(const char* p) {
    Masks m = Classify64(p);
    if (m.slash) return 0;
    uint64_t in = PrefixXor(m.quote) ^ (in_str_ ? ~uint64_t{0} : 0);
    for (uint64_t br = (m.open | m.close) & ~in; br; br &= br - 1) {
      int k = __builtin_ctzll(br);
      if (m.open >> k & 1) {
        ++depth_;
      } else if (--depth_ == 2) {
        in_str_ = false;
        return static_cast<size_t>(k) + 1;
      }
    }
    in_str_ = in >> 63;
    return 64;
  }
  // An event's bytes, ending before p[end], parsed and handed over.
  bool EventDone(const char* p, size_t end) {
    if (!on_event_) return true;
    const char *b = p + ev_start_, *e = p + end;
    if (!ev_in_chunk_) {
      carry_.append(p, end);
      b = carry_.data(), e = b + carry_.size();
    }
    if (kind_ == kObject && sink_.flat) return FlatEventDone(b, e);
    json ev;
    if (!ParseJsonSpan(b, e, &ev)) ev = json::parse(b, e, nullptr, /*allow_exceptions=*/false);
    carry_.clear();
    if (ev.is_discarded()) return false;
    if (kind_ != kObject) return true;  // checked, not an event
    (*sink_.as_json)(ev);
    ++delivered;
    return true;
  }
  // An object's bytes [b, e) to the sink as the importer reads them (nlohmann's parser where
  // the span parser declines).
  bool FlatEventDone(const char* b, const char* e) {
    if (!ParseEventSpan(b, e, &flat_)) {
      json ev = json::parse(b, e, nullptr, /*allow_exceptions=*/false);
      if (ev.is_discarded()) return false;
      flat_ = ToKinetoEvent(std::move(ev));
      flat_.span = static_cast<size_t>(e - b);
    }
    carry_.clear();
    (*sink_.flat)(flat_);
    ++delivered;
    return true;
  }
  // A byte of the events array between its elements (where events are wanted).
  bool Between(char c, size_t i) {
    if (IsSpace(c)) return true;
    if (want_elem_ && c != ',' && c != ']' && c != '}') {
      want_elem_ = comma_ = false;
      kind_ = c == '{' ? kObject : c == '[' ? kArray : c == '"' ? kString : kScalar;
      in_str_ = kind_ == kString;
      depth_ = 3, ev_start_ = i, ev_in_chunk_ = true;
      carry_.clear();
      return true;
    }
    if (c == ',' && !want_elem_) return want_elem_ = comma_ = true;
    if (c == ']' && !comma_) {
      depth_ = 1, in_events_ = false;
      return true;
    }
    return false;
  }
  bool Step(char c) {
    if (in_str_) return InString(c);
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
  bool InString(char c) {
    if (esc_) {
      esc_ = false;
    } else if (c == '\\') {
      esc_ = true;
      if (key_) odd_key_ = true;  // an escaped key may be "traceEvents": the parser decides
      if (key_ && on_event_ && !found_) return false;  // before any event is handed over
    } else if (c == '"') {
      in_str_ = false;
      if (key_ && key_text_ == "traceEvents") ++keys_;
    } else if (key_) {
      if (key_text_.size() < 64) key_text_.push_back(c);
    }
    return true;
  }
  bool Open(char c) {
    if (depth_ == 0 && (c != '{' || opened_)) return false;
    if (depth_ == 0) opened_ = expect_key_ = true;
    if (depth_ == 1 && c == '[' && key_text_ == "traceEvents") {
      if (found_) return false;  // two of them: the full parser decides
      found_ = in_events_ = want_elem_ = true;
      comma_ = false;
      kept_.push_back(']');  // the array kept empty
      // Events are handed over only after a header that parses so far.
      if (on_event_ && json::parse(kept_ + "}", nullptr, false).is_discarded()) return false;
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

  enum Kind { kObject, kArray, kString, kScalar };
  uint64_t max_;
  EventSink sink_;
  bool on_event_;  // events wanted
  KinetoEvent flat_;
  Kind kind_ = kObject;
  std::string kept_, key_text_, carry_;
  int64_t depth_ = 0, keys_ = 0;
  size_t ev_start_ = 0;
  bool in_str_ = false, esc_ = false, key_ = false, expect_key_ = false, odd_key_ = false;
  bool opened_ = false, found_ = false, in_events_ = false;
  bool want_elem_ = false, comma_ = false, ev_in_chunk_ = false;
};

}  // namespace

bool ScanKinetoFile(int fd, uint64_t max_header, json* header, const EventSink& sink,
                    uint64_t* delivered) {
  HeaderScanner scan(max_header, sink);
  std::vector<char> buf(size_t{1} << 20);
  bool ok = true;
  for (;;) {
    ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    if (!(ok = scan.Feed(buf.data(), static_cast<size_t>(n)))) break;
  }
  *delivered = scan.delivered;
  if (!ok || !scan.Done()) return false;
  json doc = json::parse(scan.Kept(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return false;
  *header = json::object();
  for (auto& [k, v] : doc.items())
    if (k != "traceEvents") (*header)[k] = std::move(v);
  return true;
}

bool ScanKinetoHeader(int fd, uint64_t max_header, json* header) {
  uint64_t delivered = 0;
  return ScanKinetoFile(fd, max_header, header, EventSink{}, &delivered);
}

}  // namespace tt::kineto
