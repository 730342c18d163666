/* LTTng-UST tracepoint provider for the runtime benchmark's reference measurement: the same
 * payloads as tensortrace records (a range begin with a name, a range end, an instant with a
 * name, an int64 and a double). */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ttbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "ttbench_tp.h"

#if !defined(TTBENCH_TP_H_) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TTBENCH_TP_H_

#include <stdint.h>

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(ttbench, range_begin,
                           LTTNG_UST_TP_ARGS(const char*, name),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_string(name, name)))

LTTNG_UST_TRACEPOINT_EVENT(ttbench, range_end, LTTNG_UST_TP_ARGS(), LTTNG_UST_TP_FIELDS())

LTTNG_UST_TRACEPOINT_EVENT(ttbench, instant,
                           LTTNG_UST_TP_ARGS(const char*, name, int64_t, step, double, loss),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_string(name, name)
                                                   lttng_ust_field_integer(int64_t, step, step)
                                                   lttng_ust_field_float(double, loss, loss)))

#endif /* TTBENCH_TP_H_ */

#include <lttng/tracepoint-event.h>
