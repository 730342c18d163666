// Writing the events of one timeline (an XSpace line) into a stream, whose events must be in
// time order and whose begin/end pairs must nest.
#pragma once
#include <cstdint>
#include <vector>

#include "format/event_class.h"
#include "format/stream_file.h"

namespace tt {

// One event of a line, converted, before it is placed in its stream.
struct LineEvent {
  uint64_t start = 0, end = 0;
  uint32_t name = 0;
  layout::Category category = layout::Category::kUser;
  bool instant = false;
  // A flow event (layout::kFlow) at `start`, with `flow_id` and `flow_phase`: written after the
  // slices that begin at the same time, so that it binds to the innermost of them.
  bool flow = false;
  uint8_t flow_phase = 0;
  uint64_t flow_id = 0;
  size_t args = 0;  // first argument in the line's argument array
  uint32_t nargs = 0;
};

// Writes a named event (slice_begin_args, complete, instant, counter) as its class's values
// where `classes` gives it one, else self-described; `fixed` is complete's duration or the
// bits of counter's value.
void PutNamedEvent(StreamFileWriter& w, ClassSpace* classes, uint8_t kind, uint64_t ts,
                   uint32_t name, layout::Category cat, uint64_t fixed, const Arg* args,
                   uint32_t n);

// Writes `items` in time order, as begin/end pairs where they nest, and as complete slices
// (stamped at their end) where one overlaps the innermost open slice without nesting.
// `args` holds every event's arguments (LineEvent::args and nargs index it).
void WriteLineEvents(StreamFileWriter& w, std::vector<LineEvent>& items,
                     const std::vector<Arg>& args, ClassSpace* classes);

}  // namespace tt
