// Closing a recording's processes (record_finish.h).
#include "cli/record_finish.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>

#include "cli/args.h"
#include "core/error.h"
#include "core/files.h"
#include "core/time.h"
#include "format/reader.h"
#include "format/repair.h"
#include "model/job/images.h"

namespace tt::cli {

namespace {

bool Alive(int64_t pid) { return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM; }

}  // namespace

// Finalises the processes that did not end cleanly (crash, SIGKILL, exec, _exit) and compacts
// the streams of every process that has ended; returns how many it finalised.
size_t FinaliseProcesses(const std::string& dir, pid_t child, int exec_errno, const char* who) {
  std::vector<std::string> still_running;
  size_t repaired = 0;
  try {
    TraceDir trace = OpenTrace(dir);
    model::NewestImages images(trace.processes);
    int64_t off = MeasureRealtimeOffsetNs();
    for (const auto& p : trace.processes) {
      if (p.meta.end_state != "running") continue;
      bool replaced = !images.IsNewest(p.meta);
      if (!replaced && Alive(p.meta.pid) && p.meta.pid != child) {
        still_running.push_back(std::to_string(p.meta.pid));
        CutRunningProcess(p, off);
        continue;
      }
      FinaliseProcess(p, off);
      ++repaired;
    }
    // Every process that has ended: its last packets shrink to what they hold.
    for (const auto& p : OpenTrace(dir).processes) {
      bool replaced = !images.IsNewest(p.meta);
      if (p.meta.end_state != "running" && (replaced || !Alive(p.meta.pid))) CompactStreams(p);
    }
  } catch (const Error& e) {
    if (exec_errno == 0) std::cerr << "tensortrace " << who << ": " << e.what() << "\n";
  }
  if (!still_running.empty()) {
    std::string list;
    for (auto& s : still_running) list += (list.empty() ? "" : ", ") + s;
    std::cerr << "tensortrace " << who
              << ": processes still running after --wait-children: " << list
              << "; their streams end at the packet each thread was writing\n";
  }
  return repaired;
}

// Every ended process's names in its metadata, so that babeltrace2 shows each event's name as
// text (format/repair.h, DeclareNames). A process still running keeps its metadata.
void DeclareNamesOfEndedProcesses(const std::string& dir, const char* who) {
  try {
    for (const auto& p : OpenTrace(dir).processes) {
      if (p.meta.end_state == "running") continue;
      try {
        DeclareNames(p);
      } catch (const Error& e) {
        std::cerr << "tensortrace " << who << ": warning: " << e.what() << "\n";
      }
    }
  } catch (const Error&) {
    // No trace at all: WriteSession says so.
  }
}

void RemovePlantedSessionFile(const std::string& path, const char* who) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return;
  std::cerr << "tensortrace " << who << ": warning: the program left " << FileTypeName(st.st_mode)
            << " at " << TerminalSafe(path) << "; replaced by the session file\n";
  unlink(path.c_str());
}

bool HasSessionFile(const std::string& dir) {
  struct stat st;
  return lstat((dir + "/tensortrace.json").c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace tt::cli
