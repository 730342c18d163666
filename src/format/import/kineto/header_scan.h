// A Kineto file's header without parsing its events. Kineto writes some header fields
// (baseTimeNanoseconds, traceName) after the traceEvents array, so the header needs a look at the
// whole file; a full JSON parse of it took about half of a large profile's import. Here the
// bytes are scanned for the extent of the top-level traceEvents array (strings, escapes and
// nesting followed, nothing else checked) and only the bytes around it are parsed.
#pragma once
#include <cstdint>

#include "format/import/kineto/json_args.h"

namespace tt::kineto {

// Reads the open file `fd` from its current offset. On success, *header holds the top-level
// fields other than traceEvents and the result is true. False when the scan cannot tell (no
// traceEvents array, brackets or strings left open, more than `max_header` bytes outside the
// array, or those bytes not a JSON object): the caller then reads the file with the full parser,
// which says what is wrong. The file's offset is left anywhere.
bool ScanKinetoHeader(int fd, uint64_t max_header, json* header);

}  // namespace tt::kineto
