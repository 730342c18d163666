#include "cli/args.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tt::cli {
namespace {

std::string FormatMax(double max) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", max);
  return b;
}

}  // namespace

uint64_t ParseUint(const std::string& option, const std::string& text, uint64_t max) {
  // By hand rather than strtoull, which takes a sign, leading spaces and wraps "-1" around.
  if (text.empty() || text.size() > 32)
    throw Error(option + ": '" + text + "' is not a non-negative whole number");
  uint64_t x = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      throw Error(option + ": '" + text + "' is not a non-negative whole number");
    unsigned d = static_cast<unsigned>(c - '0');
    if (d > max || x > (max - d) / 10)
      throw Error(option + ": '" + text + "' is too large (at most " + std::to_string(max) + ")");
    x = x * 10 + d;
  }
  return x;
}

double ParseNonNegativeDouble(const std::string& option, const std::string& text, double max,
                              const char* what) {
  auto bad = [&]() { return Error(option + ": '" + text + "' is not " + what); };
  // strtod also reads "nan", "inf", "0x1p4" and leading spaces: only plain decimals get to it.
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.'))
    throw bad();
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c)) && !std::strchr(".eE+-", c)) throw bad();
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(text.c_str(), &end);
  if (*end || errno == ERANGE || !std::isfinite(x) || x < 0) throw bad();
  if (x > max)
    throw Error(option + ": '" + text + "' is too large (at most " + FormatMax(max) + ")");
  return x;
}

uint64_t ParseBytes(const std::string& option, const std::string& value) {
  size_t digits = 0;
  while (digits < value.size() && value[digits] >= '0' && value[digits] <= '9') ++digits;
  if (digits == 0)
    throw Error(option + ": '" + value + "' is not a size (use bytes, or a K, M or G suffix)");
  uint64_t x = ParseUint(option, value.substr(0, digits));
  std::string suffix = value.substr(digits);
  uint64_t mult = 1;
  if (suffix == "K" || suffix == "k" || suffix == "KiB")
    mult = 1ull << 10;
  else if (suffix == "M" || suffix == "MiB")
    mult = 1ull << 20;
  else if (suffix == "G" || suffix == "GiB")
    mult = 1ull << 30;
  else if (!suffix.empty())
    throw Error(option + ": '" + value + "' has an unknown unit '" + suffix + "' (use K, M or G)");
  if (x > UINT64_MAX / mult) throw Error(option + ": '" + value + "' is too large");
  return x * mult;
}

double ParseSeconds(const std::string& option, const std::string& value) {
  return ParseNonNegativeDouble(option, value, kMaxSeconds, "a number of seconds");
}

analysis::StepRange ParseStepRange(const std::string& v) {
  auto number = [&](const std::string& x) -> int64_t {
    return static_cast<int64_t>(ParseUint("--steps", x, INT64_MAX));
  };
  size_t colon = v.find(':');
  if (v.empty() || (colon != std::string::npos && v.find(':', colon + 1) != std::string::npos))
    throw Error("--steps: '" + v + "' is not a range A:B");
  std::string lo = colon == std::string::npos ? v : v.substr(0, colon);
  std::string hi = colon == std::string::npos ? v : v.substr(colon + 1);
  analysis::StepRange r;
  if (!lo.empty()) r.first = number(lo);
  if (!hi.empty()) r.last = number(hi);
  if (r.first > r.last) throw Error("--steps: '" + v + "' is empty (A is after B)");
  return r;
}

// The length of the valid UTF-8 sequence at `s[i]` that is not a C1 control (U+0080-U+009F,
// which terminals obey: U+009B is a CSI, like ESC [); 0 where there is none.
static size_t PrintableUtf8(const std::string& s, size_t i) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = at(i);
  size_t n = c >= 0xc2 && c <= 0xdf   ? 2
             : c >= 0xe0 && c <= 0xef ? 3
             : c >= 0xf0 && c <= 0xf4 ? 4
                                      : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((at(i + k) & 0xc0) != 0x80) return 0;
  if (c == 0xc2 && at(i + 1) <= 0x9f) return 0;                                      // C1 control
  if ((c == 0xe0 && at(i + 1) < 0xa0) || (c == 0xf0 && at(i + 1) < 0x90)) return 0;  // overlong
  if ((c == 0xed && at(i + 1) >= 0xa0) || (c == 0xf4 && at(i + 1) >= 0x90)) return 0;
  return n;
}

std::string TerminalSafe(const std::string& text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t n = c < 0x80 ? 1 : PrintableUtf8(text, i);
    if ((c == '\n' && keep_newlines) || (c >= 0x20 && c != 0x7f && n == 1)) {
      out += static_cast<char>(c);
    } else if (n > 1) {
      out.append(text, i, n);
      i += n - 1;
    } else {
      // A control byte, or one that is no part of valid UTF-8 (a lone 0x9b is a CSI to a
      // terminal that takes 8-bit controls).
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    }
  }
  return out;
}

bool ArgReader::Flag(const char* name) {
  if (Done() || args_[i_] != name) return false;
  ++i_;
  return true;
}

bool ArgReader::Option(const char* name, std::string* value) {
  if (Done()) return false;
  const std::string& a = args_[i_];
  std::string n(name);
  if (a == n) {
    if (i_ + 1 >= args_.size()) throw Error(command_ + ": option " + n + " needs a value");
    *value = args_[i_ + 1];
    i_ += 2;
    return true;
  }
  if (a.size() > n.size() && a.compare(0, n.size(), n) == 0 && a[n.size()] == '=') {
    *value = a.substr(n.size() + 1);
    ++i_;
    return true;
  }
  return false;
}

std::string ArgReader::TakePositional() { return args_[i_++]; }

std::vector<std::string> ArgReader::Rest() {
  std::vector<std::string> r(args_.begin() + static_cast<long>(i_), args_.end());
  i_ = args_.size();
  return r;
}

void ArgReader::Unknown() const {
  const std::string& a = args_[i_];
  if (!a.empty() && a[0] == '-')
    throw Error(command_ + ": unknown option '" + a + "' (see `tensortrace " + command_ +
                " --help`)");
  throw Error(command_ + ": unexpected argument '" + a + "' (see `tensortrace " + command_ +
              " --help`)");
}

}  // namespace tt::cli
