// `record --tables`: the recording's tables (docs/tables.md) written into DIR/tables when record
// ends, on the host that recorded it, so that a job's many ranks need not be read again by one
// process: `tensortrace sql`, tensortrace.open and Spark read DIR/tables as they read an
// export's dataset.
#pragma once
#include <string>

namespace tt::cli {

// What `record --help` says of --tables.
extern const char kRecordTablesHelp[];

// Exports the trace at `dir` (this recording alone) as `export DIR --format parquet -o
// DIR/tables` does. A failure (no Arrow in this build, a damaged trace) is one warning line:
// the trace and the command's exit status stay as they are.
void WriteRecordTables(const std::string& dir, bool quiet);

}  // namespace tt::cli
