#include "export/parquet.h"

#include <malloc.h>
#include <unistd.h>

#include <filesystem>

#include "core/error.h"
#include "export/parquet_job.h"
#include "export/parquet_kernels.h"
#include "export/parquet_slices.h"

namespace tt::exporter {

namespace fs = std::filesystem;

namespace {

// Removes the temporary dataset unless it was renamed into place.
struct TempDir {
  std::string path;
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

}  // namespace

const char* ParquetHelp() {
  return R"(the job's meaning as tables, for SQL (tensortrace sql), pandas, DuckDB and Spark:
PATH is a new directory holding one Parquet dataset per table (slices, steps,
kernels, collectives, allocations, processes, threads, clocks), partitioned by rank
(PATH/TABLE/rank=R/part-*.parquet). Times are integer ns; columns: docs/tables.md.)";
}

ExportOutcome WriteParquetDataset(const model::TraceModel& m, const Selection& sel,
                                  const std::string& dir, bool, std::vector<Problem>* problems) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec)))
    throw Error("-o: " + dir + " exists and is not an empty directory; give a new one");
  std::string out = fs::path(dir).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  TempDir tmp{out + ".tmp" + std::to_string(getpid())};
  fs::create_directories(tmp.path, ec);
  if (ec) throw Error("-o: cannot create " + tmp.path + ": " + ec.message());
  std::vector<model::Step> steps = model::FindSteps(m, sel.step_names, 0);
  std::vector<Problem> again;  // the same damage, met again by the later scans
  analysis::CodeIndex code = analysis::LoadCodeIndex(m, &again);
  SliceTablesCounts s;
  WalkResult r = WriteSliceTables(m, sel, steps, code, tmp.path, problems, &s);
  code = {};
  malloc_trim(0);  // what the slices' walk freed, before the steps' passes
  JobTablesCounts j;
  WriteJobTables(m, sel, steps, tmp.path, &again, &j);
  uint64_t kernels = WriteKernelTable(m, sel, steps, tmp.path, &again);
  if (fs::exists(out, ec)) fs::remove(out, ec);  // the empty directory it may have been
  fs::rename(tmp.path, out, ec);
  if (ec) throw Error("-o: cannot rename " + tmp.path + " to " + out + ": " + ec.message());
  tmp.path.clear();
  ExportOutcome o{r.events, r.left_out, {}};
  o.lines.push_back("wrote " + std::to_string(s.slices) + " slices, " + std::to_string(j.steps) +
                    " steps, " + std::to_string(j.collectives) + " collective arrivals, " +
                    std::to_string(kernels) + " kernels and copies, " +
                    std::to_string(s.allocations) + " allocations, " + std::to_string(j.processes) +
                    " processes, " + std::to_string(s.threads) + " threads and " +
                    std::to_string(j.clocks) + " clocks to " + out +
                    "/ (Parquet, by rank; query with: tensortrace sql " + out + " \"SELECT ...\")");
  return o;
}

}  // namespace tt::exporter
