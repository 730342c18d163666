// The importers of foreign profiles, one table line each (importers.cc): what a framework's
// profiler left in a traced process's xspace/<pid>/ directory becomes streams of that process
// at the end of `record`. An entry says which files of its format the directory holds and
// converts them; a new importer is one new file with its entry and one line in the table.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/import/target.h"

namespace tt {

// What an importer is given: one process's directory and what record knows of it.
struct ImportRequest {
  std::string trace_dir;                  // the trace the process belongs to
  int64_t pid = 0;                        // the process (its newest image receives the streams)
  std::string logdir;                     // <trace_dir>/xspace/<pid>, a real directory
  std::vector<std::string> files;         // what `find` listed
  std::optional<ImportStepFilter> steps;  // the capture's steps, when it named some
  uint64_t max_file_bytes = 0;            // each file's cap (format/import/untrusted.h)
  uint64_t max_memory = 0;  // record's resident size past which an import stops (0: none)
};

struct Importer {
  const char* name;  // in record's line and import.json ("XSpace", "PyTorch profile")
  // The files of this format under `logdir`, in import order; a link or other entry it did not
  // enter is one line in `skipped`.
  std::vector<std::string> (*find)(const std::string& logdir, std::vector<std::string>* skipped);
  // What `find` looks for, for the message when no importer found anything ("a .xplane.pb
  // file under LOGDIR/plugins/profile").
  std::string (*looked_for)(const std::string& logdir);
  // Converts r.files; never throws for a bad file (an error entry), throws tt::Error when the
  // trace holds no process r.pid. `problems`: lines met before the import (kept first).
  ImportResult (*run)(const ImportRequest& r, std::vector<std::string>* problems);
};

// The importers in the order they are tried: the first whose `find` lists files imports.
const std::vector<const Importer*>& Importers();

}  // namespace tt
