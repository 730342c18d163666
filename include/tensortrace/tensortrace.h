/* tensortrace: annotations a program can add to its trace.
 *
 * Link with -ltensortrace, or load the library with ctypes. Outside `tensortrace record` every
 * call returns at once and does nothing. Names are copied (interned) at the first use, so any
 * string may be passed, including a temporary buffer. The functions are thread-safe and may be
 * called from signal handlers (an event that interrupts another on the same thread is dropped
 * and counted). */
#ifndef TENSORTRACE_TENSORTRACE_H_
#define TENSORTRACE_TENSORTRACE_H_

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TT_API __attribute__((visibility("default")))
#else
#define TT_API
#endif

/* Opens a range (a slice) named `name` on the calling thread; ranges nest. */
TT_API void tt_range_push(const char* name);
/* Closes the innermost open range of the calling thread. */
TT_API void tt_range_pop(void);
/* An instant event. */
TT_API void tt_mark(const char* name);
/* A sample of the counter `name`. */
TT_API void tt_counter(const char* name, double value);
/* Names the calling thread in the trace (the thread's own name is recorded already). */
TT_API void tt_set_thread_name(const char* name);
/* 1 while this process is being recorded (and, on demand, a capture window is open), else 0. */
TT_API int tt_enabled(void);
/* 1 while this process is being recorded, inside a capture window or between two, else 0. */
TT_API int tt_armed(void);

/* Nonzero while this process records. The macros below test it before calling, so that a
 * disabled annotation costs one load and one branch; like LTTng's tracepoints, they then do not
 * evaluate their arguments. Define TT_NO_INLINE_CHECK to call the functions directly. */
TT_API extern int tt_active_;

#ifndef TT_NO_INLINE_CHECK
#define tt_range_push(name) (tt_active_ ? tt_range_push(name) : (void)0)
#define tt_range_pop() (tt_active_ ? tt_range_pop() : (void)0)
#define tt_mark(name) (tt_active_ ? tt_mark(name) : (void)0)
#define tt_counter(name, value) (tt_active_ ? tt_counter(name, value) : (void)0)
#define tt_set_thread_name(name) (tt_active_ ? tt_set_thread_name(name) : (void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif /* TENSORTRACE_TENSORTRACE_H_ */
