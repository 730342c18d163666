// XSpace (the TensorFlow/JAX profiler's protobuf) in TensorBoard's log-directory layout, so the
// profile plugin (xprof) opens it: LOGDIR/plugins/profile/RUN/HOST.xplane.pb.
// Per host: a "/host:CPU" plane with a line per thread, and a "/device:GPU:N" plane per GPU with a
// line per stream. Events and stats carry the names xprof's converters read: steps are root
// events with "step_num", kernels "kernel_details" and "tf_op", copies "memcpy_details",
// allocations the memory profile's stats. As TensorFlow writes it, line times count from the
// profile's start, whose Unix time is the "Task Environment" plane's "profile_start_time".
// Written as a stream with the protobuf wire encoding done by hand (as export/perfetto.cc does):
// events are encoded as they are walked and sorted per line in bounded memory (export/spill.h,
// temporary files in the run directory), then each file is written in one pass with every
// length known from a first pass that sizes the lines. Memory grows with the names, threads
// and steps, not with the events.
#pragma once
#include <string>
#include <vector>

#include "export/spill.h"
#include "export/walk.h"

namespace tt::exporter {

struct XSpaceResult {
  WalkResult walk;
  std::string run_dir;             // LOGDIR/plugins/profile/RUN
  std::vector<std::string> files;  // one .xplane.pb per host
  uint64_t bytes = 0;              // all files
  uint64_t op_events = 0, kernel_events = 0, memcpy_events = 0, steps = 0;
};

struct XSpaceOptions {
  // The sort of the events: memory it holds (the device work waiting for its launch's op holds
  // half as much more), runs merged at once. Tests make them small to exercise the merges.
  SpillOptions sort;
};

// TensorFlow's run directory name for a Unix time: local "YYYY_MM_DD_HH_MM_SS".
std::string XSpaceRunName(uint64_t unix_ns);

// Writes one XSpace per host name (in the order the hosts first appear) under `logdir`. Refuses
// a run directory that exists and is not empty; throws tt::Error (from Walk) when the selection
// is empty; on any error removes what it created.
XSpaceResult WriteXSpace(const model::TraceModel& m, const Selection& sel,
                         const std::string& logdir, std::vector<Problem>* problems,
                         const XSpaceOptions& options = {});

}  // namespace tt::exporter
