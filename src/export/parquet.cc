#include "export/parquet.h"

#include <malloc.h>
#include <unistd.h>

#include <filesystem>

#include "core/error.h"
#include "export/parquet_job.h"
#include "export/parquet_kernels.h"
#include "export/parquet_reuse.h"
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
(PATH/TABLE/rank=R/part-*.parquet). Times are integer ns; columns: docs/tables.md.
Without a selection, a recording whose DIR/tables (record --tables) is current
for its trace gives its per-process tables as they are; collectives, processes
and clocks are computed over the job.)";
}

namespace {

// Computes every table of the job into root.
ExportOutcome ComputeTables(const model::TraceModel& m, const Selection& sel,
                            const std::string& root, const std::string& out,
                            std::vector<Problem>* problems) {
  std::vector<model::Step> steps = model::FindSteps(m, sel.step_names, 0);
  std::vector<Problem> again;  // the same damage, met again by the later scans
  analysis::CodeIndex code = analysis::LoadCodeIndex(m, &again);
  SliceTablesCounts s;
  WalkResult r = WriteSliceTables(m, sel, steps, code, root, problems, &s);
  code = {};
  malloc_trim(0);  // what the slices' walk freed, before the steps' passes
  JobTablesCounts j;
  WriteJobTables(m, sel, steps, root, &again, &j);
  KernelSteps kernel_steps = KernelStepsOf(m, sel, steps);
  std::vector<model::Step>().swap(steps);  // 96 bytes a step; the kernels table keeps 24
  malloc_trim(0);
  uint64_t kernels = WriteKernelTable(m, kernel_steps, root, sel.step_names);
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

// Takes the per-process tables from the recordings' DIR/tables where each is current, and
// computes the job's own; false (with the reason in o->notes where there is one) otherwise.
bool ReuseTables(const model::TraceModel& m, const std::string& root, const std::string& out,
                 std::vector<Problem>* problems, ExportOutcome* o) {
  ReusedRows r;
  std::string why;
  if (!ReuseRecordedTables(m, root, &r, &why)) {
    if (!why.empty()) o->notes.push_back(why + "; computing the tables from the trace");
    return false;
  }
  JobTablesCounts j;
  WriteJobWideTables(m, root, problems, &j);
  o->events = r.slices + r.allocations;
  o->notes.push_back(
      "took " + std::to_string(r.slices) + " slices, " + std::to_string(r.steps) + " steps, " +
      std::to_string(r.kernels) + " kernels and copies, " + std::to_string(r.allocations) +
      " allocations and " + std::to_string(r.threads) +
      " threads from the tables record --tables"
      " wrote in " +
      std::to_string(r.recordings) + " recording(s); wrote " + std::to_string(j.collectives) +
      " collective arrivals, " + std::to_string(j.processes) + " processes and " +
      std::to_string(j.clocks) + " clocks of the job to " + out + "/");
  return true;
}

}  // namespace

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
  ExportOutcome o;
  if (!sel.reuse_recorded_tables || !ReuseTables(m, tmp.path, out, problems, &o)) {
    std::vector<std::string> notes = std::move(o.notes);
    o = ComputeTables(m, sel, tmp.path, out, problems);
    o.notes = std::move(notes);
  }
  if (fs::exists(out, ec)) fs::remove(out, ec);  // the empty directory it may have been
  fs::rename(tmp.path, out, ec);
  if (ec) throw Error("-o: cannot rename " + tmp.path + " to " + out + ": " + ec.message());
  tmp.path.clear();
  return o;
}

}  // namespace tt::exporter
