// Finalising the trace of a process that did not end cleanly (crash, SIGKILL, exec, _exit):
// cut stream files back to their last whole packet and mark the metadata as finalised.
#pragma once
#include <string>
#include <vector>

#include "format/reader.h"

namespace tt {

struct RepairReport {
  std::vector<std::string> actions;  // one line per change made
};

// Only for processes whose metadata says "running" and which are no longer alive.
// `offset_end_ns` is realtime - monotonic measured now by the caller.
RepairReport FinaliseProcess(const ProcessTrace& proc, int64_t offset_end_ns);

// For a process still running when `record` ends (after it set the loss page's "ended", so the
// process maps no further packet): makes each stream file end on a whole packet without cutting
// anything the process has mapped (a cut would make its next store SIGBUS): the last packet is
// extended over a tail of zeros (a packet mapped ahead, not yet begun), under the file's OFD
// lock. The metadata says "cut".
RepairReport CutRunningProcess(const ProcessTrace& proc, int64_t offset_end_ns);

// For a process that has ended: shrinks the last packet of each stream file to its content
// and cuts the file there (the runtime maps whole packets of --buffer-size, so a thread that
// wrote a few KB would otherwise keep a whole packet of zeros). Returns the bytes saved.
uint64_t CompactStreams(const ProcessTrace& proc);

// For a process that has ended: writes its metadata again with its names declared
// (ProcessMeta::names), so that CTF readers show every event's name, argument key and string
// value as text, imported events included. `proc` as OpenTrace gives it (its classes read).
void DeclareNames(const ProcessTrace& proc);

}  // namespace tt
