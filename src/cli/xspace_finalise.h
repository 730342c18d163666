// The XSpace step of `record`'s finalisation: every $DIR/xspace/<pid>/ that a traced process's
// framework profiler wrote is converted into streams of that process. It stays in cli/ rather
// than src/sources/python/ (where the capture is armed): it runs the XSpace importer
// (format/import/xspace/, with protobuf), and sources/ may use only the runtime and the format
// writer.
#pragma once
#include <cstdint>
#include <string>

namespace tt::cli {

// Imports each <dir>/xspace/<pid>/ (steps filter from its capture.json), writes its
// import.json, and prints one line per process to stderr (unless quiet). Keeps the .xplane.pb
// files (TensorBoard can open them). Never throws: failures go to import.json and the line.
// What the program left there is untrusted: a symbolic link (xspace/, xspace/<pid>/ or below),
// a FIFO or device, or a file over `max_bytes`, is skipped with that line; nothing is written
// outside `dir`.
void ImportCapturedXSpace(const std::string& dir, bool quiet, uint64_t max_bytes);

}  // namespace tt::cli
