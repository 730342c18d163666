// The NCCL source's entries into the runtime (libtensortrace.so exports them; the profiler
// plugin, libtensortrace_nccl.so, which NCCL opens, calls them). C names, so that the plugin
// needs none of the runtime's internals.
#pragma once
#include <stdint.h>

extern "C" {

// One argument: a string where `str` is non-null, else the unsigned `u`.
struct tt_nccl_arg {
  const char* key;
  const char* str;
  uint64_t u;
};

// The calling thread's event clock (ns), to stamp an event's start.
uint64_t tt_nccl_now_(void);
// A communication slice named `name` from `start_ns` to `end_ns` (0: now), written into the
// calling thread's stream; at most 16 arguments.
void tt_nccl_slice_(const char* name, uint64_t start_ns, uint64_t end_ns,
                    const struct tt_nccl_arg* args, uint32_t nargs);
// Counts `n` events the plugin could not keep (its handle pool was full) in the process's
// drops, as having had no room.
void tt_nccl_dropped_(uint64_t n);
}
