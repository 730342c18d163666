#include "format/captures.h"

#include <sstream>

#include "core/error.h"
#include "core/files.h"

namespace tt {

std::string FormatCaptures(const CaptureWindows& w) {
  std::string s = "# capture windows: start_ns end_ns (CLOCK_MONOTONIC; end 0: open)\n";
  for (const auto& [start, end] : w) s += std::to_string(start) + " " + std::to_string(end) + "\n";
  return s;
}

CaptureWindows ReadCaptures(const std::string& dir, bool* found) {
  std::string path = dir + "/" + kCapturesFile;
  *found = PathExists(path);
  CaptureWindows w;
  if (!*found) return w;
  std::istringstream in(ReadFile(path));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream l(line);
    uint64_t start, end;
    std::string rest;
    if (!(l >> start >> end) || (l >> rest))
      throw Error(path + ":" + std::to_string(n) + ": expected 'START_NS END_NS', got '" +
                  line.substr(0, 80) + "'");
    w.push_back({start, end});
  }
  return w;
}

}  // namespace tt
