// `tensortrace sql DIR... "SELECT ..."`: SQL over the job's tables (docs/tables.md) with DuckDB,
// the embedded default. The trace is exported to a temporary Parquet dataset (export/parquet.h)
// unless DIR is one already; the query runs in Python's duckdb through the package beside the
// executable (python/tensortrace/tables.py), which prints the result.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "analysis/job/job_clock.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/option_groups.h"
#include "cli/pids.h"
#include "export/parquet.h"
#include "model/model.h"

extern char** environ;

namespace tt::cli {

namespace fs = std::filesystem;

namespace {

const char kSqlUsage[] =
    R"(usage: tensortrace sql DIR... "SELECT ..." [--json | --csv]

Runs the query with DuckDB over the job's tables: slices, ops (the slices the op view counts),
steps, kernels (GPU kernels, copies and sets with their launch and op), collectives,
allocations, processes, threads and clocks (docs/tables.md; times in integer ns, a rank column
on every table). DIR is a trace directory (several: one job, a recording per rank), exported
to Parquet for the query and removed after it (the per-process tables taken from DIR/tables
where `record --tables` wrote them and they are current for the trace), or a dataset that
`tensortrace export DIR --format parquet -o OUT` wrote. DuckDB comes from python3 (the
environment's first on PATH, or $TT_PYTHON): pip install duckdb pyarrow.

output:
)";

const OutputSpec kOutput{.schema = "docs/tables.md", .csv_rows = "one row per result row"};

bool IsDataset(const std::string& dir) {
  std::error_code ec;
  return fs::is_directory(fs::path(dir) / "slices", ec);
}

// The directory this executable is in (its python/ folder holds the package).
std::string ExeDir() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : p.parent_path().string();
}

int RunPython(const std::string& dataset, const std::string& query, const OutputOptions& out) {
  const char* py = std::getenv("TT_PYTHON");
  std::string python = py && *py ? py : "python3";
  std::string path = ExeDir() + "/python";
  const char* old = std::getenv("PYTHONPATH");
  if (old && *old) path += ":" + std::string(old);
  setenv("PYTHONPATH", path.c_str(), 1);
  std::vector<std::string> args = {
      python,  "-m",  "tensortrace.tables", "sql",
      dataset, query, "--format",           out.json ? "json" : out.csv ? "csv" : "table"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw Error("cannot run " + python + " (set TT_PYTHON to a Python with duckdb and pyarrow)");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// A temporary directory removed when done.
struct Scratch {
  std::string path;
  ~Scratch() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

std::string ExportToScratch(const std::vector<std::string>& dirs, Scratch* s) {
  std::string tmpl = (fs::temp_directory_path() / "tensortrace-sql.XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw Error("cannot create a temporary directory in /tmp");
  s->path = tmpl;
  model::TraceModel m = LoadJob(dirs, {});
  std::vector<Problem> problems = m.problems;
  for (const auto& n : analysis::ClockNotes(m)) std::cerr << "tensortrace sql: " << n << "\n";
  exporter::Selection sel;
  sel.reuse_recorded_tables = true;  // each recording's DIR/tables, where current
  exporter::ExportOutcome o =
      exporter::WriteParquetDataset(m, sel, s->path + "/tables", false, &problems);
  for (const auto& note : o.notes) std::cerr << "tensortrace sql: " << note << "\n";
  return s->path + "/tables";
}

}  // namespace

int Sql(const CommandArgs& argv) {
  ArgReader a("sql", argv);
  OutputOptions out{kOutput};
  std::vector<std::string> dirs, queries;
  while (!a.Done()) {
    if (ParseOutputOption(a, kOutput, &out)) {
      if (!out.help) continue;
      std::cout << kSqlUsage << OutputHelp(kOutput);
      return 0;
    } else if (!a.Peek().empty() && a.Peek()[0] != '-') {
      std::string v = a.TakePositional();
      std::error_code ec;  // a query longer than a file name can be is no directory
      (fs::is_directory(v, ec) ? dirs : queries).push_back(v);
    } else {
      a.Unknown();
    }
  }
  CheckOutput(kOutput, out);
  if (dirs.empty()) throw Error("no trace directory given (usage: tensortrace sql DIR... QUERY)");
  if (queries.empty()) throw Error("no query given (usage: tensortrace sql DIR... \"SELECT ...\")");
  if (queries.size() > 1)  // the query is the one argument that is not a directory
    throw Error(queries[0] + ": no such directory (give one query, after the directories)");
  if (dirs.size() == 1 && IsDataset(dirs[0])) return RunPython(dirs[0], queries[0], out);
  for (const auto& d : dirs)
    if (IsDataset(d)) throw Error(d + " is a Parquet dataset: give it alone, without traces");
  Scratch s;
  std::string dataset = ExportToScratch(DirList(dirs[0], {dirs.begin() + 1, dirs.end()}), &s);
  return RunPython(dataset, queries[0], out);
}

}  // namespace tt::cli
