// The import step of `record`'s finalisation: every $DIR/xspace/<pid>/ that a traced process's
// framework profiler wrote (XSpace, Kineto JSON: the importer table, format/import/importer.h)
// is converted into streams of that process. It stays in cli/ rather than src/sources/python/
// (where the capture is armed): it runs the importers (with protobuf and a JSON parser), and
// sources/ may use only the runtime and the format writer.
#pragma once
#include <cstdint>
#include <string>

namespace tt::cli {

struct ImportLimits {
  uint64_t file_bytes;  // each file read (record --import-max-size)
  uint64_t memory;      // record's resident size past which an import stops (--import-max-memory)
};

// Imports each <dir>/xspace/<pid>/ (steps filter from its capture.json) with the first importer
// that finds files there, writes its import.json, and prints one line per process to stderr
// (unless quiet). Keeps the profiles (TensorBoard and Perfetto can open them). Never throws:
// failures go to import.json and the line. What the program left there is untrusted: a symbolic
// link (xspace/, xspace/<pid>/ or below), a FIFO or device, or a file over the limits, is skipped
// (or kept in part) with that line; nothing is written outside `dir`.
void ImportCapturedProfiles(const std::string& dir, bool quiet, const ImportLimits& limits);

}  // namespace tt::cli
