/* The probes of the ttbench tracepoint provider, linked into tt_bench_lttng. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "ttbench_tp.h"
