/* The interpreter's list lock (what CPython's own sys._current_frames holds while it walks the
 * thread states), for native_sampler.cc: CPython 3.11's internal runtime header is C11 (its
 * atomics) and does not compile as C++, so the two calls that need it live here. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_runtime.h>

void tt_pysample_lock_threads(void) {
  PyThread_acquire_lock(_PyRuntime.interpreters.mutex, WAIT_LOCK);
}

void tt_pysample_unlock_threads(void) { PyThread_release_lock(_PyRuntime.interpreters.mutex); }
