// The XSpace step of `record`'s finalisation: every $DIR/xspace/<pid>/ that a traced process's
// framework profiler wrote is converted into streams of that process. It stays in cli/ rather
// than src/sources/python/ (where the capture is armed): it runs the XSpace importer
// (format/import/xspace/, with protobuf), and sources/ may use only the runtime and the format
// writer.
#pragma once
#include <string>

namespace tt::cli {

// Imports each <dir>/xspace/<pid>/ (steps filter from its capture.json), writes its
// import.json, and prints one line per process to stderr (unless quiet). Keeps the .xplane.pb
// files (TensorBoard can open them). Never throws: failures go to import.json and the line.
void ImportCapturedXSpace(const std::string& dir, bool quiet);

}  // namespace tt::cli
