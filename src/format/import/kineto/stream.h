// A Kineto trace file read as a stream (nlohmann's SAX parser): memory in proportion to one
// event, never to the file. Kineto writes its header fields (baseTimeNanoseconds,
// distributedInfo, ...) around the traceEvents array, some after it, so a file is read twice:
// once for the header (a scan of the bytes for the array's extent, header_scan.h; the full
// parser where the scan cannot tell), once for the events, each handed over as it ends.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "format/import/kineto/json_args.h"

namespace tt::kineto {

using EventFn = std::function<void(const json& event)>;

// Reads the file at `path` (untrusted: a regular file, no link followed, at most `max_bytes`):
// the top-level fields other than traceEvents into *header (an object), and, when `on_event` is
// set, each object of traceEvents in order. Throws tt::Error with one line (naming the file,
// ending "skipped") for a file that is not a JSON object with a traceEvents array.
void ReadKinetoFile(const std::string& path, uint64_t max_bytes, json* header,
                    const EventFn* on_event);

}  // namespace tt::kineto
