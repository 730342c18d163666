// TT_HOT: a function of the tracing hot path, inlined into every emitter even where the
// compiler's size heuristics would call it instead (a call there costs more than its body).
#pragma once

#define TT_HOT inline __attribute__((always_inline))

// TT_UNROLL(n): "#pragma GCC unroll n" on the loop that follows, in optimised builds only. At
// -O0 GCC ignores the pragma with a warning ("ignoring loop annotation"), an error under
// -Werror; there is nothing to unroll for in a Debug build anyway.
#define TT_PRAGMA(text) _Pragma(#text)
#ifdef __OPTIMIZE__
#define TT_UNROLL(n) TT_PRAGMA(GCC unroll n)
#else
#define TT_UNROLL(n)
#endif
