// The parquet format where this tensortrace was built without Apache Arrow.
#include "core/error.h"
#include "export/parquet.h"
#include "export/parquet_reuse.h"

namespace tt::exporter {

const char* ParquetHelp() {
  return "unavailable: this tensortrace was built without Apache Arrow (pip install pyarrow\n"
         "into the build's Python, then configure and build again)";
}

ExportOutcome WriteParquetDataset(const model::TraceModel&, const Selection&, const std::string&,
                                  bool, std::vector<Problem>*) {
  throw Error(
      "--format parquet: unavailable, this tensortrace was built without Apache Arrow "
      "(pip install pyarrow into the build's Python, then configure and build again)");
}

std::string TraceFingerprint(const std::string&) { return ""; }  // no tables are written

}  // namespace tt::exporter
