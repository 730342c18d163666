// Writing the XSpace exporter's files (export/xspace.h): each host's HOST.xplane.pb, from its
// planes and the events sorted line after line, in one pass whose lengths are known from a first
// pass that sizes every line.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "export/spill.h"
#include "export/xspace.h"
#include "export/xspace_plane.h"

namespace tt::exporter::xspace {

// Every host's file in `run_dir`, from its planes and `events` (each line's events, by line,
// start, longer first: EventKey). Times are from the profile's start (`start_ns`, the trace's
// start, or the first event if earlier), which the "Task Environment" plane records, as
// TensorFlow writes it: xprof works in int64 picoseconds, which Unix nanoseconds overflow. Every
// size is known before any file is written: a file protobuf could not read (over 2 GiB) is
// refused first. Adds the files and their bytes to *r.
void WriteFiles(std::vector<Host>& hosts, SpillSorter& events, int64_t start_ns,
                const std::string& run_dir, XSpaceResult* r);

}  // namespace tt::exporter::xspace
