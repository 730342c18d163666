// The XSpace step of `record`'s finalisation: every $DIR/xspace/<pid>/ that a traced process's
// framework profiler wrote is converted into streams of that process.
#pragma once
#include <string>

namespace tt::cli {

// Imports each <dir>/xspace/<pid>/ (steps filter from its capture.json), writes its
// import.json, and prints one line per process to stderr (unless quiet). Keeps the .xplane.pb
// files (TensorBoard can open them). Never throws: failures go to import.json and the line.
void ImportCapturedXSpace(const std::string& dir, bool quiet);

}  // namespace tt::cli
