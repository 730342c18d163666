// XSpace (the TensorFlow/JAX profiler's protobuf) in TensorBoard's log-directory layout, so the
// profile plugin (xprof) opens it: LOGDIR/plugins/profile/RUN/HOST.xplane.pb.
// Per host: a "/host:CPU" plane with a line per thread, and a "/device:GPU:N" plane per GPU with a
// line per stream. Events and stats carry the names xprof's converters read: steps are root
// events with "step_num", kernels "kernel_details" and "tf_op", copies "memcpy_details",
// allocations the memory profile's stats. As TensorFlow writes it, line times count from the
// profile's start, whose Unix time is the "Task Environment" plane's "profile_start_time".
// An XSpace is one message: memory grows with the selection.
#pragma once
#include <string>
#include <vector>

#include "export/walk.h"
#include "format/proto/xplane.pb.h"

namespace tt::exporter {

struct XSpaceResult {
  WalkResult walk;
  std::string run_dir;             // LOGDIR/plugins/profile/RUN
  std::vector<std::string> files;  // one .xplane.pb per host
  uint64_t bytes = 0;              // all files
  uint64_t op_events = 0, kernel_events = 0, memcpy_events = 0, steps = 0;
};

// One XSpace per host name, in the order the hosts first appear. Throws tt::Error (from Walk)
// when the selection is empty.
std::vector<std::pair<std::string, tensorflow::profiler::XSpace>> BuildXSpaces(
    const model::TraceModel& m, const Selection& sel, std::vector<Problem>* problems,
    XSpaceResult* result);

// TensorFlow's run directory name for a Unix time: local "YYYY_MM_DD_HH_MM_SS".
std::string XSpaceRunName(uint64_t unix_ns);

// Builds and writes the XSpaces under `logdir`. Refuses a run directory that exists and is not
// empty; on any error removes what it created.
XSpaceResult WriteXSpace(const model::TraceModel& m, const Selection& sel,
                         const std::string& logdir, std::vector<Problem>* problems);

}  // namespace tt::exporter
