// The in-memory trace: processes, their interned names, and their tracks (threads, device
// queues). Events stay in the stream files and are scanned track by track (scan.h), so memory
// grows with the number of names and tracks, not with the number of events. Immutable once
// loaded.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/reader.h"
#include "model/meaning.h"

namespace tt::model {

struct Track {
  size_t process = 0;  // index in TraceModel::processes
  std::string file;
  layout::TrackKind kind = layout::TrackKind::kThread;
  uint64_t id = 0;     // tid, or DeviceTrackId(device, queue)
  std::string name;    // thread name (last given), or "GPU d stream q"
  uint64_t bytes = 0;  // file size
};

// Interned ids above this are not names a runtime writes (its table holds 49152): their
// definitions are reported as damage instead of sizing the name table.
inline constexpr uint32_t kMaxNameId = 1u << 16;

struct Process {
  ProcessMeta meta;
  std::vector<std::string> names;  // interned id -> text ("" for unknown ids)
  std::vector<size_t> tracks;      // indices in TraceModel::tracks
  std::string_view Name(uint32_t id) const {
    return id < names.size() ? std::string_view(names[id]) : std::string_view();
  }
  // What an event of category c named by id `name` is (model/meaning.h); decided once per name
  // for annotations and framework ops.
  Meaning MeaningOf(layout::Category c, uint32_t name) const {
    const std::vector<Meaning>* cached = c == layout::Category::kUser          ? &user_meaning
                                         : c == layout::Category::kFrameworkOp ? &op_meaning
                                                                               : nullptr;
    if (cached && name < cached->size()) return (*cached)[name];
    return model::MeaningOf(c, Name(name));
  }
  // Fills the per-name meanings from names (LoadModel does).
  void DecideMeanings();
  std::vector<Meaning> user_meaning, op_meaning;  // by name id
  // The id of the key "tf_function_call" (0: none): a tf.function's call carries it, and a
  // call is runtime whatever the function's name (model::MeaningOfSlice).
  uint32_t tf_function_key = 0;
  // The trace directory (one recording) it was read from: several form one job.
  std::string recording;
  // Added to every time of its events as they are scanned (scan.h): the job's clock alignment
  // (set only by model::Aligned, model/job/clock.h), 0 for a recording read alone.
  int64_t shift_ns = 0;
  // The gaps between capture windows (record --on-demand, --every), as [end of one window,
  // start of the next], in order: no event was written in them.
  std::vector<std::pair<uint64_t, uint64_t>> capture_gaps;
};

// One recording's clock as put on the job's timeline (several recordings read as one job).
struct RecordingClock {
  std::string recording;
  std::string host;             // its first process's
  int64_t offset_ns = 0;        // added to its times (Process::shift_ns)
  int64_t recorded_ns = 0;      // what the recorded CLOCK_REALTIME offsets alone gave
  int64_t uncertainty_ns = -1;  // the most the offset can be off (-1: unknown)
  uint64_t constraints = 0;     // collectives shared with the reference that bound it
  uint64_t pairs = 0;           // socket send/receive pairs with the reference that bound it
  uint64_t tensor_pairs = 0;    // TensorFlow's _Send/_Recv pairs with the reference that did
  std::string method;           // as analysis::CommClock::method
};

struct TraceModel {
  std::string path;
  // Several recordings read as one job: each one's clock, the reference first (empty: one
  // recording, its times as recorded).
  std::vector<RecordingClock> clocks;
  // With clocks: CLOCK_REALTIME minus the job's time (the reference's recorded offset).
  int64_t realtime_offset_ns = 0;
  std::vector<Process> processes;
  std::vector<Track> tracks;
  std::vector<Problem> problems;
  uint64_t bytes = 0;  // all stream files
  // The stream files, each opened once for every pass of the command (shared with the TraceDir
  // the model was loaded from).
  std::shared_ptr<StreamFiles> files;
  // A track's stream file, through `files` (opened here when the model has none).
  std::shared_ptr<const MappedStream> Stream(const std::string& file) const {
    return files ? files->Get(file) : std::make_shared<MappedStream>(file);
  }
};

// Opens the trace: metadata, names (from each process stream) and the tracks' identities (from
// their first packet, and thread names). Throws tt::Error when `dir` is not a trace.
TraceModel LoadModel(const std::string& dir);
struct TraceSummary;  // inventory.h

// The same from a trace already opened; its stream files are shared. With `inventory`, each
// stream is read whole once for both: the model, and the inventory Summarise(t) would give.
TraceModel LoadModel(const TraceDir& t, TraceSummary* inventory = nullptr);

}  // namespace tt::model
