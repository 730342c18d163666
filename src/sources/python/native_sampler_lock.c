/* The interpreter's list lock (what CPython's own sys._current_frames holds while it walks the
 * thread states) and the GIL's holder, for native_sampler.cc: CPython 3.11's internal runtime
 * header is C11 (its atomics) and does not compile as C++, so the calls that need it live
 * here. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_runtime.h>

void tt_pysample_lock_threads(void) {
  PyThread_acquire_lock(_PyRuntime.interpreters.mutex, WAIT_LOCK);
}

void tt_pysample_unlock_threads(void) { PyThread_release_lock(_PyRuntime.interpreters.mutex); }

/* The native id of the thread holding the GIL now, 0 where none of `interp`'s threads holds
 * it: read without the GIL, as CPython's own ceval reads `locked`, under the list lock, so that
 * the holder, if it is in the list, cannot be deleted while its id is read (a py_function's
 * thread state, made for each call, is gone by the time the sampler has the GIL). */
long tt_pysample_gil_holder(PyInterpreterState* interp) {
  struct _gil_runtime_state* gil = &_PyRuntime.ceval.gil;
  if (_Py_atomic_load_relaxed(&gil->locked) <= 0) return 0;
  long tid = 0;
  tt_pysample_lock_threads();
  PyThreadState* holder = (PyThreadState*)_Py_atomic_load_relaxed(&gil->last_holder);
  for (PyThreadState* t = PyInterpreterState_ThreadHead(interp); t; t = PyThreadState_Next(t))
    if (t == holder) tid = (long)t->native_thread_id;
  tt_pysample_unlock_threads();
  return tid;
}
