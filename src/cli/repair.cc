// `tensortrace repair DIR`: closes a recording whose `record` was killed (SIGKILL, an OOM kill,
// a lost session) as record would have: its processes finalised or cut, the frameworks'
// profiles imported, names declared, and tensortrace.json written last, saying it was repaired.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/record_finish.h"
#include "cli/record_import.h"
#include "cli/record_losses.h"
#include "core/files.h"
#include "format/import/memory_budget.h"
#include "format/import/untrusted.h"
#include "format/reader.h"
#include "model/inventory.h"

namespace tt::cli {

namespace {

const char kRepairHelp[] =
    R"(usage: tensortrace repair DIR [--import-max-size BYTES] [--quiet]

Closes a recording whose `tensortrace record` was killed before it finished (readers call it
"incomplete: record did not finish"), as record would have: each process that had not ended is
finalised (its streams cut back to whole packets, its metadata closed; one still running is cut
where it is and stops writing), the frameworks' profiles left in xspace/ are imported, every
name is declared for CTF readers (babeltrace2), and tensortrace.json is written last with
"repaired": true and no exit code (the command's was lost with record).

A recording that record finished, or one a record is still writing, is left as it is.

  --import-max-size BYTES  the largest framework profile file to import (default 1G)
  --quiet                  print only the directory
  -h, --help               this text
)";

struct RepairArgs {
  std::string dir;
  uint64_t import_max = kImportMaxBytes;
  bool quiet = false;
};

bool ParseRepairArgs(const CommandArgs& argv, RepairArgs* o) {
  ArgReader a("repair", argv);
  std::string v;
  while (!a.Done()) {
    if (a.Flag("-h") || a.Flag("--help")) {
      std::cout << kRepairHelp;
      return false;
    } else if (a.Option("--import-max-size", &v)) {
      o->import_max = ParseBytes("--import-max-size", v);
    } else if (a.Flag("--quiet")) {
      o->quiet = true;
    } else if (!a.Peek().starts_with("-") && o->dir.empty()) {
      o->dir = a.TakePositional();
    } else {
      a.Unknown();
    }
  }
  if (o->dir.empty())
    throw Error("repair: no trace directory given (usage: tensortrace repair DIR)");
  return true;
}

// Takes the recording for this repair (record's own lock: a record still writing it holds it).
// Throws tt::Error with one line when the directory is not a recording left unfinished.
int TakeUnfinished(const std::string& dir) {
  if (!IsDirectory(dir)) throw Error("repair: " + dir + " is not a directory");
  if (!PathExists(dir + "/losses"))
    throw Error("repair: " + dir + " is not a recording made by tensortrace record");
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (fd >= 0) close(fd);
    throw Error("repair: a record is still writing " + dir + " (it holds the recording's lock)");
  }
  return fd;
}

// The command's last writer: it marks the loss page ended, so that a process still running
// maps no further packet before its streams are cut.
void EndRecording(const std::string& dir) {
  int fd = open((dir + "/losses").c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  EndLossPage(fd);
}

void WriteRepairedSession(const std::string& dir, size_t finalised) {
  std::string json =
      "{\n  \"tool\": \"tensortrace\",\n  \"repaired\": true,\n  \"exit_code\": null,\n"
      "  \"finalised_by_record\": " +
      std::to_string(finalised) + "\n}\n";
  WriteFileAtomic(dir + "/tensortrace.json", json);
}

}  // namespace

int Repair(const CommandArgs& argv) {
  RepairArgs o;
  if (!ParseRepairArgs(argv, &o)) return 0;
  int lock = TakeUnfinished(o.dir);
  if (HasSessionFile(o.dir)) {
    close(lock);
    std::cerr << "tensortrace repair: " << TerminalSafe(o.dir)
              << " is complete (record finished it): nothing to repair\n";
    return 0;
  }
  WriteRegularFilesOnly();  // the traced program could write here too
  RemovePlantedSessionFile(o.dir + "/tensortrace.json", "repair");
  EndRecording(o.dir);
  size_t finalised = FinaliseProcesses(o.dir, 0, 0, "repair");
  ImportCapturedProfiles(o.dir, o.quiet, {o.import_max, DefaultImportBudget()});
  DeclareNamesOfEndedProcesses(o.dir, "repair");
  WriteRepairedSession(o.dir, finalised);
  close(lock);
  if (o.quiet) {
    std::cerr << o.dir << "\n";
    return 0;
  }
  model::TraceSummary sum = model::Summarise(OpenTrace(o.dir));
  std::cerr << "tensortrace repair: " << TerminalSafe(o.dir) << " closed: " << finalised
            << " process(es) finalised, " << sum.processes.size() << " processes, " << sum.events
            << " events\n";
  return 0;
}

}  // namespace tt::cli
