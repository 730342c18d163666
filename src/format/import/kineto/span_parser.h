// JSON's common case parsed from contiguous bytes (an event the Kineto scan found, header_scan.h)
// into the value nlohmann's parser gives for them: ASCII strings without escapes, integers of
// up to 18 digits, other numbers as nlohmann reads them, literals, nesting to 64. Anything else,
// and anything wrong, is false: nlohmann's parser, slower, then decides.
#pragma once
#include "format/import/kineto/event.h"
#include "format/import/kineto/json_args.h"

namespace tt::kineto {

bool ParseJsonSpan(const char* begin, const char* end, json* out);
// One event's bytes (an object) into the event as the importer reads it: what ParseJsonSpan
// then ToKinetoEvent gives, with the members the importer does not read checked, not built.
// False where ParseJsonSpan would be (nlohmann's parser then decides). *out's storage, which
// an earlier event left there, is reused (its strings and its arguments' arrays): the result is
// the same as into a new event.
bool ParseEventSpan(const char* begin, const char* end, KinetoEvent* out);

}  // namespace tt::kineto
