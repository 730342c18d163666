// A Kineto trace file read as a stream: memory in proportion to one event, never to the file.
// Kineto writes its header fields (baseTimeNanoseconds, distributedInfo, ...) around the
// traceEvents array, some after it, so a file is read twice: once for the header, once for the
// events, each handed over as it ends. Both by a scan of the bytes for the array's and each
// event's extent (header_scan.h); where the scan cannot tell, by nlohmann's SAX parser, which
// also says what is wrong with a damaged file.
#pragma once
#include <cstdint>
#include <string>

#include "format/import/kineto/header_scan.h"

namespace tt::kineto {

// Reads the file at `path` (untrusted: a regular file, no link followed, at most `max_bytes`):
// the top-level fields other than traceEvents into *header (an object), and, when `on_event` is
// set, each object of traceEvents in order. Throws tt::Error with one line (naming the file,
// ending "skipped") for a file that is not a JSON object with a traceEvents array.
void ReadKinetoFile(const std::string& path, uint64_t max_bytes, json* header,
                    const EventFn* on_event);
// The same, each event to `sink` (header_scan.h): as nlohmann's value or as the importer reads
// it (then with the same fields whichever parser read it).
void ReadKinetoFile(const std::string& path, uint64_t max_bytes, json* header,
                    const EventSink& sink);

}  // namespace tt::kineto
