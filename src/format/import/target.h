// What every importer of foreign profiles (XSpace, Kineto) writes into: the process trace the
// imported streams join (its names, event classes, realtime clock points and stream ids), new
// streams for it, and the closing process stream that declares the new names and classes.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format/event_class.h"
#include "format/import/xspace/clock.h"
#include "format/name_space.h"
#include "format/reader.h"
#include "format/stream_file.h"

namespace tt {

// What one import wrote, for import.json and record's line.
struct ImportResult {
  uint64_t files = 0;   // files imported (at least in part)
  uint64_t events = 0;  // slices and instants written
  uint64_t tracks = 0;  // streams written (threads, devices, allocator counters)
  uint64_t steps = 0;   // step slices written
  uint64_t flows = 0;   // flows written (each a pair of flow events)
  // Per file (capture window), in order: the time it covers on the trace clock (the profile's
  // start and stop where the file says, else its events' extent); 0, 0 when unknown.
  std::vector<std::pair<uint64_t, uint64_t>> windows;
  std::vector<std::string> errors;  // one line each: a file skipped and why, or what was lost
  std::string format;               // the importer's name for messages ("XSpace", ...)
};

// Steps A..B inclusive (the capture's "steps"); other step markers are not imported.
struct ImportStepFilter {
  int64_t first = 0;
  int64_t last = INT64_MAX;
};

struct ImportTarget {
  ProcessTrace proc;
  NameSpace names;
  ClassSpace classes{{}};  // set from the process's classes when loaded
  RealtimeToTrace clock;
  uint64_t instance = 0;  // highest stream instance id in use
  // Events must start within a year of the process's start: times beyond are damage, and
  // near the int64 limit they would overflow CTF readers' clock arithmetic.
  uint64_t earliest = 0, latest = 0;
  std::unordered_map<int64_t, uint64_t> tid_of_hash;  // from the metadata's thread_hashes
  uint64_t lost_names = 0;                            // names the full name table refused
  std::set<std::string> paths;  // of the new streams: taken, even before they are written

  // The name's id in the process (0, counted as lost, when the table is full).
  uint32_t Name(std::string_view s);
  // A new stream of the process. `track` 0: a made-up id (2^31 + the stream instance) for
  // timelines that are no thread, below 2^32 so that JSON exporters take it as a tid.
  StreamFileWriter NewStream(const std::string& prefix, uint64_t track, layout::TrackKind kind);
};

// The newest image of process `pid` in `trace_dir`, loaded. Throws tt::Error when the trace
// holds no such process (`what` names the import in the message).
void LoadImportTarget(const std::string& trace_dir, int64_t pid, const std::string& what,
                      ImportTarget* t);

void PutThreadName(StreamFileWriter& w, uint64_t ts, const std::string& name);

// An allocator's bytes held over time: (trace time, bytes) samples.
using AllocatorSamples = std::map<std::string, std::vector<std::pair<uint64_t, double>>>;

// One imported stream per allocator (file prefix `prefix`, "xa" or "ka") holding the counter
// `bytes in use` at each sample; counts the tracks in `out`.
void WriteAllocatorCounters(ImportTarget* t, const std::string& prefix, AllocatorSamples* samples,
                            ImportResult* out);

// The import's process stream (file `source` in the process directory): the source files, the
// foreign (realtime) clock's offset, the new names and classes, and a warning note per error of
// `out`, after adding what was lost (`out_of_time` events far from the process's lifetime, and
// names the full table refused); then the metadata again when classes were added, so other CTF
// readers know them.
void FinishImport(ImportTarget* t, const std::string& source, const std::vector<std::string>& files,
                  uint64_t out_of_time, ImportResult* out);

std::string BaseName(const std::string& path);

}  // namespace tt
