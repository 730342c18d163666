#include "cli/args.h"

#include <cmath>
#include <cstdlib>

namespace tt::cli {

uint64_t ParseBytes(const std::string& option, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  unsigned long long x = std::strtoull(value.c_str(), &end, 10);
  if (value.empty() || value[0] == '-' || end == value.c_str() || errno)
    throw Error(option + ": '" + value + "' is not a size (use bytes, or a K, M or G suffix)");
  std::string suffix(end);
  uint64_t mult = 1;
  if (suffix == "K" || suffix == "k" || suffix == "KiB") mult = 1ull << 10;
  else if (suffix == "M" || suffix == "MiB") mult = 1ull << 20;
  else if (suffix == "G" || suffix == "GiB") mult = 1ull << 30;
  else if (!suffix.empty())
    throw Error(option + ": '" + value + "' has an unknown unit '" + suffix + "' (use K, M or G)");
  if (x > UINT64_MAX / mult) throw Error(option + ": '" + value + "' is too large");
  return x * mult;
}

double ParseSeconds(const std::string& option, const std::string& value) {
  char* end = nullptr;
  double x = std::strtod(value.c_str(), &end);
  if (value.empty() || *end || !std::isfinite(x) || x < 0)
    throw Error(option + ": '" + value + "' is not a number of seconds");
  return x;
}

analysis::StepRange ParseStepRange(const std::string& v) {
  auto number = [&](const std::string& x) -> int64_t {
    char* end = nullptr;
    unsigned long long n = std::strtoull(x.c_str(), &end, 10);
    if (x.empty() || x[0] == '-' || *end)
      throw Error("--steps: '" + x + "' is not a non-negative whole number");
    return static_cast<int64_t>(n);
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
