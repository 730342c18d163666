// The public C API (include/tensortrace/tensortrace.h): user annotations.
#define TT_NO_INLINE_CHECK  // the definitions below are the functions the macros call
#include "runtime/emit.h"
#include "tensortrace/tensortrace.h"

using tt::layout::Category;

extern "C" {

// The flag the header's macros test; the runtime sets it (process.cc, SetState).
TT_API int tt_active_ = 0;

TT_API void tt_range_push(const char* name) { tt::rt::EmitBegin(name, Category::kUser); }

TT_API void tt_range_pop(void) { tt::rt::EmitEnd(); }

TT_API void tt_mark(const char* name) { tt::rt::EmitInstant(name, Category::kUser, nullptr, 0); }

TT_API void tt_counter(const char* name, double value) {
  tt::rt::EmitCounter(name, Category::kUser, value);
}

TT_API void tt_set_thread_name(const char* name) { tt::rt::EmitThreadName(name); }

TT_API int tt_enabled(void) { return tt::rt::Enabled() ? 1 : 0; }
TT_API int tt_armed(void) { return tt::rt::Armed() ? 1 : 0; }

}  // extern "C"
