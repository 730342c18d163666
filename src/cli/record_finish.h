// Closing a recording's processes once its command has ended: what `record` does after the
// command, and `repair` does for a recording whose record was killed. `who` names the command
// in warnings ("record", "repair").
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <string>

namespace tt::cli {

// Finalises the processes that did not end cleanly (crash, SIGKILL, exec, _exit; a process
// still alive other than `child` is cut where it is) and compacts the streams of every process
// that has ended; returns how many it finalised. `exec_errno`: the command never ran (quiet).
size_t FinaliseProcesses(const std::string& dir, pid_t child, int exec_errno, const char* who);

// Every ended process's names in its metadata, so that babeltrace2 shows each event's name as
// text (format/repair.h, DeclareNames). A process still running keeps its metadata.
void DeclareNamesOfEndedProcesses(const std::string& dir, const char* who);

// Something the traced program left where tensortrace.json goes (a FIFO, a link, a socket) is
// never opened: it is removed (a link itself, not what it names), with a warning, so that the
// session file can be written in its place. A directory there is left (writing then fails).
void RemovePlantedSessionFile(const std::string& path, const char* who);

// Whether `dir` holds a session file: a regular file named tensortrace.json (lstat).
bool HasSessionFile(const std::string& dir);

}  // namespace tt::cli
