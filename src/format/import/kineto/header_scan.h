// A Kineto file read by a scan of its bytes rather than a JSON parser per byte. Kineto writes
// some header fields (baseTimeNanoseconds, traceName) after the traceEvents array, so the header
// needs a look at the whole file; a full JSON parse of it took about half of a large profile's
// import. Here the bytes are scanned for the extent of the top-level traceEvents array and of
// each of its events (strings, escapes and nesting followed): only the bytes around the array
// are parsed for the header, and each event's bytes, contiguous, by ParseJsonSpan
// (span_parser.h; nlohmann's parser where it declines).
#pragma once
#include <cstdint>
#include <functional>

#include "format/import/kineto/event.h"
#include "format/import/kineto/json_args.h"

namespace tt::kineto {

// Called with each event, which it may take (move from): the caller is done with it.
using EventFn = std::function<void(json& event)>;

// Where each event goes: as nlohmann's value (`as_json`), or as the importer reads it (`flat`,
// event.h: no JSON object built for it); at most one set, none for the header alone.
struct EventSink {
  const EventFn* as_json = nullptr;
  const KinetoEventFn* flat = nullptr;
  bool Wanted() const { return as_json || flat; }
};

// Reads the open file `fd` from its current offset. On success, *header holds the top-level
// fields other than traceEvents and the result is true. False when the scan cannot tell (no
// traceEvents array, brackets or strings left open, more than `max_header` bytes outside the
// array, or those bytes not a JSON object): the caller then reads the file with the full parser,
// which says what is wrong. The file's offset is left anywhere.
bool ScanKinetoHeader(int fd, uint64_t max_header, json* header);

// ScanKinetoHeader that also hands each object of traceEvents, in order, to `on_event` (when
// set), each parsed from its own bytes. Stricter where events are wanted: anything in the array
// but objects separated by commas, or an event that does not parse, ends the scan (false), as
// does a header before the array that is not JSON (then no event was handed over). On false,
// *delivered says how many events were handed over: the full parser, reading the file again,
// finds the same ones first and must skip them.
bool ScanKinetoFile(int fd, uint64_t max_header, json* header, const EventSink& sink,
                    uint64_t* delivered);

}  // namespace tt::kineto
