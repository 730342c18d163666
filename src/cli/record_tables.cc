#include "cli/record_tables.h"

#include <fstream>
#include <iostream>

#include "cli/args.h"
#include "cli/pids.h"
#include "core/error.h"
#include "export/parquet.h"
#include "export/parquet_reuse.h"

namespace tt::cli {

const char kRecordTablesHelp[] =
    R"(  --tables                 when the command has ended, write the recording's tables
                           (Parquet: slices with each op's line, steps, kernels,
                           allocations, ...; docs/tables.md) into DIR/tables, as `export DIR
                           --format parquet -o DIR/tables` would: each rank's host exports
                           its own; tensortrace sql DIR/tables "SELECT ..." reads them.
                           Collectives there are this recording's arrivals alone: waits and
                           stragglers need the job's ranks together (export or sql over all
                           their trace directories)
)";

void WriteRecordTables(const std::string& dir, bool quiet) {
  try {
    model::TraceModel m = LoadJob({dir}, {});
    std::vector<Problem> problems = m.problems;
    exporter::ExportOutcome o =
        exporter::WriteParquetDataset(m, exporter::Selection{}, dir + "/tables", false, &problems);
    // What sql and export over this recording check before they take these tables.
    std::ofstream(dir + "/tables/" + exporter::kFingerprintFile)
        << exporter::TraceFingerprint(dir) << "\n";
    if (!quiet)
      for (const auto& line : o.lines) std::cerr << "tensortrace: " << line << "\n";
    if (!problems.empty())
      std::cerr << "tensortrace record: warning: --tables: " << problems.size()
                << " damaged part(s) skipped; the first: " << TerminalSafe(problems[0].ToString())
                << "\n";
  } catch (const std::exception& e) {
    std::cerr << "tensortrace record: warning: --tables: no tables written: " << e.what() << "\n";
  }
}

}  // namespace tt::cli
