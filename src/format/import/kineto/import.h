// Importing PyTorch profiles (Kineto's trace-event JSON, `*.pt.trace.json`, which the Python
// bootstrap saves per capture window) into a recorded trace: aten ops and autograd nodes with
// their shapes, record_function annotations, optimizer steps, memory events, collectives
// (record_param_comms), Python functions and, where Kineto held CUPTI, CUDA activity; one
// imported stream per thread (the tid, so it sits beside the thread's own stream) and per GPU
// stream, on the trace clock, with names in the process's name space.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/import/target.h"

namespace tt {

// <logdir>/torch/<window>-s<first step>.pt.trace.json, in window order. torch/ is entered only
// when it is a real directory (else one line in `skipped`); the files are listed whatever
// their type, and ImportKineto reads regular ones only.
std::vector<std::string> FindKinetoFiles(const std::string& logdir,
                                         std::vector<std::string>* skipped = nullptr);
// The optimizer steps the program had done when the window of `path` started (its "-s<N>").
int64_t KinetoFirstStep(const std::string& path);

// Converts `files` into streams of the newest image of process `pid` in `trace_dir`. A file
// that cannot be read or parsed becomes an error entry and the others are still imported: the
// files are the traced program's, so only regular files are read, never through a symbolic
// link, each of at most `max_file_bytes` (format/import/untrusted.h).
// Each file is read as a stream (memory in proportion to the events kept); once record's
// resident size passes `max_memory` (0: no limit) the import stops, keeps what it read and
// says so in an error entry. Throws tt::Error when the trace holds no process `pid`.
ImportResult ImportKineto(const std::string& trace_dir, int64_t pid,
                          const std::vector<std::string>& files,
                          const std::optional<ImportStepFilter>& steps, uint64_t max_file_bytes,
                          uint64_t max_memory = 0);

}  // namespace tt
