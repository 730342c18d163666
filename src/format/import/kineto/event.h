// One Kineto trace event as the importer reads it (internal to format/import/kineto/): the
// top-level fields it uses, each as JSON gives it, and of the arguments only those it reads.
// Built straight from an event's bytes (span_parser.h ParseEventSpan) without a JSON object
// per event (building one was most of a large profile's reading), or from nlohmann's value
// where that parser declines (ToKinetoEvent): the same event either way.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "format/import/kineto/json_args.h"

namespace tt::kineto {

struct KinetoEvent {
  std::string ph, cat, name;   // "" where absent or not a string
  json pid, tid, ts, dur, id;  // null where absent
  json args;                   // null where absent; an object keeps only ImportedArg's members
  // Not part of the event: the bytes of the event this storage last held (ParseEventSpan
  // reuses the storage of small ones only).
  size_t span = 0;
  bool operator==(const KinetoEvent& o) const {
    return ph == o.ph && cat == o.cat && name == o.name && pid == o.pid && tid == o.tid &&
           ts == o.ts && dur == o.dur && id == o.id && args == o.args;
  }
};

// Called with each event, which it may take (move from).
using KinetoEventFn = std::function<void(KinetoEvent& event)>;

// The members of "args" that the importer reads (events.cc, collectives.cc, op_cost.cc,
// json_args.cc): a member it is to read must be named here, else it is never there.
bool ImportedArg(std::string_view key);
// Its place in that list (under 32), or -1 for a key not there.
int ImportedArgIndex(std::string_view key);

// The top-level field `key` of an event when the importer reads it, else null.
json* EventField(KinetoEvent* e, std::string_view key);
// A string field (ph, cat, name) when `key` names one, else null.
std::string* EventString(KinetoEvent* e, std::string_view key);

// nlohmann's value of one event (an object) as the importer reads it.
KinetoEvent ToKinetoEvent(json&& event);

}  // namespace tt::kineto
