// The tables `record --tables` wrote into each recording (DIR/tables), taken as they are by
// `export --format parquet` and `sql` over the same recordings (docs/tables.md), so that a job's
// cross-rank work starts from each rank's small files: the per-process tables (slices, steps,
// kernels, allocations, threads) are linked from them when they are current for the trace; the
// job-wide ones (collectives, processes, clocks) are computed over the job.
#pragma once
#include <cstdint>
#include <string>

#include "model/model.h"

namespace tt::exporter {

// The file in DIR/tables that holds the fingerprint of the trace the tables were made from.
inline constexpr const char kFingerprintFile[] = "_trace";

// The fingerprint of recording `dir` as it is now: every regular file under it but tables/
// (its path and size, and the bytes of those under 64 KiB: the metadata), one line of text.
// Copying a recording (scp, cp) keeps it; a trace recorded again, changed, or cut does not.
std::string TraceFingerprint(const std::string& dir);

struct ReusedRows {
  uint64_t slices = 0, steps = 0, kernels = 0, allocations = 0, threads = 0;
  size_t recordings = 0;
};

// Links (or copies) into `root` the per-process tables of every recording of `m` when each has
// current tables: written for this trace (fingerprint), of this schema version, holding the
// processes `m` holds, on the clock `m` puts them (no alignment shift). Otherwise returns false
// with nothing written and *why: one line saying which recording's tables are not current and
// why ("" where no recording has tables).
bool ReuseRecordedTables(const model::TraceModel& m, const std::string& root, ReusedRows* rows,
                         std::string* why);

}  // namespace tt::exporter
