// Helpers for tests: running commands with a captured output, and scratch directories.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tt::test {

struct RunResult {
  int status = -1;  // exit code, or 128+signal
  std::string out, err;
};

// TensorFlow 2.21's profiler now and then crashes as it stops at a worker's exit of a
// multi-worker job (free() of an invalid pointer, a SIGSEGV): the worker dies before its profiler
// stopped, and `record` says so. True for such a run of record: the tests make the recording
// again, at most three times in all; any other failure fails them.
inline bool TfProfilerCrashedAtExit(const RunResult& r) {
  return r.status != 0 &&
         r.err.find("the profiler was started but the process ended before it was stopped") !=
             std::string::npos;
}

// Runs argv[0] (searched in PATH) with extra environment variables; waits at most timeout_s.
RunResult RunCmd(const std::vector<std::string>& argv,
                 const std::map<std::string, std::string>& env = {}, int timeout_s = 60);

// A fresh empty directory under the build's temp area, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The pid of a recorded process in `trace` (its p<PID> directory; the first listed where
// there are several), -1 when there is none.
int64_t RecordedPid(const std::string& trace);
// Number of lines in `s` (a trailing newline does not start a new line).
size_t CountLines(const std::string& s);
bool HaveBabeltrace();

// The python3 on PATH (its sys.executable), "" when there is none.
const std::string& Python();
// The path of tests/programs/`name` in the source tree.
std::string Program(const std::string& name);
// Runs `command` inside a network namespace of its own with only `lo` up (servers that bind
// every interface, TensorFlow's gRPC and JAX's coordinator, reach nothing outside). False,
// *r untouched, where no namespace can be made (the caller skips).
bool RunInNetworkNamespace(const std::vector<std::string>& command,
                           const std::map<std::string, std::string>& env, int timeout_s,
                           RunResult* r);
// Whether python3 finds `module` (find_spec, not an import: importing TensorFlow or torch only
// to decide costs as much as a test).
bool HaveModule(const std::string& module);
// Records the two ranks of tests/programs/clock_job.cc (`program`, all-reduces over two FIFOs
// under d), each into its own directory d/r0 and d/r1, rank 1's clock shifted `shift_ns`
// (TENSORTRACE_TEST_CLOCK_SHIFT_NS); both must exit 0.
void RecordClockJob(const std::string& program, const TempDir& d, int64_t shift_ns,
                    int collectives);
// The rows of an HTML page's table with this id (the report's), each as its cells' texts; a
// test failure where the page has no such table.
std::vector<std::vector<std::string>> HtmlTable(const std::string& html, const std::string& id);

// Each `{"program"...}` JSON object a program printed, as text, in order. Found by matching
// braces, not by lines: where PYTHONUNBUFFERED=1 is set, print() writes the object and its
// newline apart, and two ranks' objects can meet on one line of a shared pipe.
std::vector<std::string> ProgramObjects(const std::string& out);

// The `key value` lines of a program's output (the test programs say what they did so).
std::map<std::string, int64_t> Said(const std::string& out);

}  // namespace tt::test

// Skips the test where python3 cannot import `m`.
#define REQUIRE_MODULE(m)                                \
  do {                                                   \
    if (!::tt::test::HaveModule(m)) {                    \
      GTEST_SKIP() << m " is not importable by python3"; \
    }                                                    \
  } while (0)

namespace tt::test {

// Starts argv with stdout on a pipe; the caller reads *out_fd and reaps with Wait().
int Spawn(const std::vector<std::string>& argv, int* out_fd,
          const std::map<std::string, std::string>& env = {});
// Reads one line from fd (blocking, at most timeout_s).
std::string ReadLine(int fd, int timeout_s = 30);
// Waits for pid; returns exit code or 128+signal.
int Wait(int pid);

}  // namespace tt::test
