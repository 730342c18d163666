// Command-line parsing shared by the subcommands: each problem is one clear line.
#pragma once
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/job/steps.h"
#include "core/error.h"

namespace tt::cli {

// The one number parser of the command line: each throws tt::Error, one line naming `option`.
// A whole number: decimal digits only (no sign, space or suffix), at most `max`.
uint64_t ParseUint(const std::string& option, const std::string& text, uint64_t max = UINT64_MAX);
// A finite decimal number >= 0 (digits, one point, an exponent), at most `max`: no sign, NaN,
// infinity, hexadecimal or trailing text. `what` names it in the error ("is not WHAT").
double ParseNonNegativeDouble(const std::string& option, const std::string& text,
                              double max = 1e300, const char* what = "a non-negative number");
// Parses sizes such as 4096, 64K, 1M, 2G (powers of 1024). Throws tt::Error naming `option`.
uint64_t ParseBytes(const std::string& option, const std::string& value);
// A number of seconds (ParseNonNegativeDouble), at most kMaxSeconds.
constexpr double kMaxSeconds = 1e9;  // 31 years: a count of milliseconds fits an int64 easily
double ParseSeconds(const std::string& option, const std::string& value);

// Parses a step range "A:B" (inclusive), "A:", ":B" or "A". Throws tt::Error.
analysis::StepRange ParseStepRange(const std::string& value);

// Text from a trace (names, command lines, paths) made safe for a terminal: each control
// character (below 0x20, 0x7f, and U+0080..U+009F in UTF-8) and each byte that is no part of
// valid UTF-8 becomes \xNN, so an escape sequence in an event or thread name is shown, never
// obeyed. `keep_newlines`: '\n' stays. For the human
// tables only: JSON and CSV carry the exact bytes.
std::string TerminalSafe(const std::string& text, bool keep_newlines = false);

// Walks argv: options with values (`--opt V` or `--opt=V`), flags, and positionals.
class ArgReader {
 public:
  ArgReader(const std::string& command, std::vector<std::string> args)
      : command_(command), args_(std::move(args)) {}
  bool Done() const { return i_ >= args_.size(); }
  const std::string& Peek() const { return args_[i_]; }
  // True if the next argument is `name` (or `name=...`); consumes it.
  bool Flag(const char* name);
  bool Option(const char* name, std::string* value);
  std::string TakePositional();
  std::vector<std::string> Rest();  // everything left
  [[noreturn]] void Unknown() const;

 private:
  std::string command_;
  std::vector<std::string> args_;
  size_t i_ = 0;
};

}  // namespace tt::cli
