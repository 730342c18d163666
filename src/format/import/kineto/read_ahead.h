// A Kineto file's events read on a thread of their own while the caller imports those read
// before: finding and parsing the events (about 60% of a large profile's import) runs beside the
// importer instead of before it. Memory stays in proportion to a few batches of events.
#pragma once
#include <cstdint>
#include <string>

#include "format/import/kineto/header_scan.h"

namespace tt::kineto {

// ReadKinetoFile(path, max_bytes, header, &on_event), with on_event called on the caller's
// thread, in the file's order, while the rest is read. An error the reader throws (a damaged
// file) is thrown here after the events read before it were handed over, as ReadKinetoFile
// does; an error on_event throws stops the reader and is thrown here.
void ReadKinetoFileAhead(const std::string& path, uint64_t max_bytes, json* header,
                         const EventFn& on_event);
// The same, each event as the importer reads it (event.h).
void ReadKinetoFileAhead(const std::string& path, uint64_t max_bytes, json* header,
                         const KinetoEventFn& on_event);

}  // namespace tt::kineto
