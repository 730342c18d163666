// Arguments for the test programs that write events through the runtime's own emitters: an
// integer or an interned string under an interned key.
#pragma once
#include <cstdint>

#include "runtime/emit.h"

namespace tt::test_job {

inline Arg Int(const char* key, int64_t v) {
  Arg a;
  a.key = rt::InternName(key);
  a.type = layout::ArgType::kInt;
  a.v.i = v;
  return a;
}

inline Arg Str(const char* key, const char* v) {
  Arg a;
  a.key = rt::InternName(key);
  a.type = layout::ArgType::kString;
  a.v.str = rt::InternName(v);
  return a;
}

}  // namespace tt::test_job
