// JSON's common case parsed from contiguous bytes (an event the Kineto scan found, header_scan.h)
// into the value nlohmann's parser gives for them: ASCII strings without escapes, integers of
// up to 18 digits, other numbers as nlohmann reads them, literals, nesting to 64. Anything else,
// and anything wrong, is false: nlohmann's parser, slower, then decides.
#pragma once
#include "format/import/kineto/json_args.h"

namespace tt::kineto {

bool ParseJsonSpan(const char* begin, const char* end, json* out);

}  // namespace tt::kineto
