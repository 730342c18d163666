// TT_HOT: a function of the tracing hot path, inlined into every emitter even where the
// compiler's size heuristics would call it instead (a call there costs more than its body).
#pragma once

#define TT_HOT inline __attribute__((always_inline))
