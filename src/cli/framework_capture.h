// What the frameworks' own profilers captured, per process: DIR/xspace/<pid>/capture.json
// (written by the Python bootstrap) and import.json (written by record's XSpace import). Read by
// `info` and `report`, so it stays in cli/ beside them (sources/ is what runs while recording).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tt::cli {

struct FrameworkCapture {
  int64_t pid = 0;
  std::string dir;                    // DIR/xspace/<pid>
  nlohmann::json capture;             // capture.json, or null when absent or unreadable
  nlohmann::json import;              // import.json, or null when absent or unreadable
  uint64_t xplane_files = 0;          // *.xplane.pb files found under dir
  std::vector<std::string> problems;  // unreadable files, one line each
};

// Every xspace/<pid>/ directory of the trace in `trace_dir`, by pid. Never throws on bad
// content: what cannot be read is listed in `problems`.
std::vector<FrameworkCapture> LoadFrameworkCaptures(const std::string& trace_dir);

// The JSON of one capture for `info --json` (docs/info-json.md).
nlohmann::json FrameworkCaptureJson(const FrameworkCapture& c);

// Lines for `info`'s text output, each starting with two spaces.
std::string FrameworkCaptureText(const FrameworkCapture& c);

}  // namespace tt::cli
