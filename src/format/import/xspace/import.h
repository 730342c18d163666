// Importing XSpace files (the TensorFlow/JAX/XLA profiler's .xplane.pb) into a recorded
// trace: each host thread line becomes an imported stream of the process, each device line a
// device stream, on the trace clock and with names in the process's name space, so every
// reader of runtime streams reads them the same way.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/import/target.h"
#include "format/import/untrusted.h"
#include "format/import/xspace/tf_graph.h"
#include "format/import/xspace/tf_op_cost.h"

namespace tt {

// What an XSpace import wrote (format/import/target.h).
using XSpaceImport = ImportResult;

using XSpaceStepFilter = ImportStepFilter;

constexpr std::string_view kXPlaneSuffix = ".xplane.pb";

// <logdir>/plugins/profile/<run>/*.xplane.pb, sorted (one run directory per capture window).
// Only real directories are entered: a symbolic link among them is left, with one line in
// `skipped`. The files are listed whatever their type; ImportXSpace reads regular ones only.
std::vector<std::string> FindXSpaceFiles(const std::string& logdir,
                                         std::vector<std::string>* skipped = nullptr);

// Converts `files` into streams of the newest image of process `pid` in `trace_dir`. A file
// that cannot be read or parsed becomes an error entry and the others are still imported: the
// files are the traced program's, so only regular files are read, never through a symbolic
// link, each of at most `max_file_bytes` (format/import/untrusted.h). `graph`: the process's
// tf.function graphs (tf_graph.h); each op event of a node it holds gets its producers.
// `tf_costs`: their nodes' FLOPs and bytes (tf_op_cost.h), which those op events get.
// `max_memory` (0: none): record's resident size past which a file is not imported; the file
// is read where it lies (space_file.h), so it needs its size and its metadata's, which its one
// line in the errors names. Throws tt::Error when the trace holds no process `pid`.
XSpaceImport ImportXSpace(const std::string& trace_dir, int64_t pid,
                          const std::vector<std::string>& files,
                          const std::optional<XSpaceStepFilter>& steps,
                          uint64_t max_file_bytes = kImportMaxBytes,
                          const TfGraphInputs* graph = nullptr, uint64_t max_memory = 0,
                          const TfOpCosts* tf_costs = nullptr);

}  // namespace tt
