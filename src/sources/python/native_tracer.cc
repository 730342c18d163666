// The Python source's exact mode (record --python-tracer, where the framework's own tracer
// delivers nothing: TensorFlow): a C profile function (the interpreter's profile hook, as
// sys.setprofile installs, without a Python call per event) on every Python thread, writing
// each call of a Python function as a slice of category python on the thread's own stream,
// named as Kineto names its Python events ("/path/file.py(12): qualname", the function's first
// line), which the code view reads as the thread's exact stack (analysis/pass/code_index.cc).
//
// A thread whose profile hook is the program's keeps it: ours is installed only where there is
// none, and a hook the program installs later replaces ours on that thread (the bootstrap warns
// once). A return whose call was not written (the tracer started inside it, or it is the
// bootstrap's own code) writes nothing, so each thread's slices nest.
#define Py_BUILD_CORE 1
#include <Python.h>
#include <frameobject.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "native_code.h"

extern "C" {
void tt_py_enter(const char* name);  // the runtime (python_events.cc)
void tt_py_leave(void);
void tt_py_tracer_started(void);
}

namespace {

struct Tracer {
  std::string own_dir;  // the bootstrap's files: not the program's
  // Each code object's slice name ("" for the bootstrap's); each key holds a reference, so that
  // its address is not reused by another code object while it is a key. Under the GIL.
  std::unordered_map<PyCodeObject*, std::string> names;
};

Tracer* g_tracer = nullptr;
bool g_stopped = false;  // for good: threads started later get no hook of ours
// Per thread, for each call open: whether its slice was written.
thread_local std::vector<char> t_open;

const std::string& NameOf(Tracer* t, PyCodeObject* code) {
  auto [it, fresh] = t->names.try_emplace(code);
  if (!fresh) return it->second;
  Py_INCREF(code);
  tt_native::CodeNames n = tt_native::NamesOf(code, t->own_dir);
  if (!n.own)
    it->second = std::string(n.file) + "(" + std::to_string(code->co_firstlineno) + "): " + n.name;
  return it->second;
}

int Profile(PyObject*, PyFrameObject* frame, int what, PyObject*) {
  Tracer* t = g_tracer;
  if (!t) return 0;
  if (what == PyTrace_CALL) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    const std::string& name = NameOf(t, code);
    Py_DECREF(code);
    t_open.push_back(!name.empty());
    if (!name.empty()) tt_py_enter(name.c_str());  // a stable pointer: the runtime's fast path
  } else if (what == PyTrace_RETURN) {
    if (t_open.empty()) return 0;  // a call made before the tracer started
    if (t_open.back()) tt_py_leave();
    t_open.pop_back();
  }
  return 0;
}

}  // namespace

extern "C" {

// Starts the tracer on every thread of the interpreter that has no profile hook; `own_dir`:
// the bootstrap's directory. With the GIL (ctypes.PyDLL). 0 on success.
__attribute__((visibility("default"))) int tt_pytrace_start(const char* own_dir) {
  if (g_tracer) return -1;
  tt_py_tracer_started();
  g_tracer = new Tracer();
  g_tracer->own_dir = own_dir ? own_dir : "";
  PyInterpreterState* interp = PyInterpreterState_Get();
  for (PyThreadState* ts = PyInterpreterState_ThreadHead(interp); ts; ts = PyThreadState_Next(ts))
    if (!ts->c_profilefunc) _PyEval_SetProfile(ts, Profile, nullptr);
  return 0;
}

// The calling thread (a thread started after tt_pytrace_start, from the bootstrap's
// threading.setprofile hook): ours replaces that Python hook. With the GIL.
__attribute__((visibility("default"))) void tt_pytrace_thread() {
  if (g_tracer && !g_stopped) PyEval_SetProfile(Profile, nullptr);
}

// Stops it on every thread where it runs (the framework's own tracer takes over: PyTorch's).
// With the GIL.
__attribute__((visibility("default"))) void tt_pytrace_stop() {
  if (!g_tracer) return;
  g_stopped = true;
  PyInterpreterState* interp = PyInterpreterState_Get();
  for (PyThreadState* ts = PyInterpreterState_ThreadHead(interp); ts; ts = PyThreadState_Next(ts))
    if (ts->c_profilefunc == Profile) _PyEval_SetProfile(ts, nullptr, nullptr);
}

// Whether the calling thread's profile hook is ours (the program's replaced it where not).
__attribute__((visibility("default"))) int tt_pytrace_on_this_thread() {
  return PyThreadState_Get()->c_profilefunc == Profile ? 1 : 0;
}

}  // extern "C"
