// The Python source's events (python/tensortrace/sampler.py calls these through ctypes in the
// preloaded runtime): what the bootstrap's sampler saw of the interpreter, written into the
// sampler thread's own stream, since a thread's stream is written only by that thread.
//   tt_py_frame(id, text)     defines frame `id` ("file:line:function"), once, before any use
//   tt_py_sample(tid, ids, since, at)
//                             thread `tid`'s stack changed: its frames' ids, outermost first,
//                             comma-separated; it holds until the thread's next sample. `at` is
//                             when the sampler looked and `since` (0: first look) its previous
//                             look, which still saw the stack before (CLOCK_MONOTONIC ns, the
//                             trace's clock)
//   tt_py_cpu(tid, cpu_ns, since, at)
//                             thread `tid` had used `cpu_ns` of CPU time (its CPU clock) at `at`;
//                             written when it changed since the previous look `since` (0: first
//                             look), which still read the thread's previous tt_py_cpu value
//   tt_py_gil(tid, gil_ns, since, at)
//                             thread `tid` held the GIL at the look at `at`: its time holding
//                             it by the looks, `gil_ns`, counts the time from the previous look
//                             `since` (a thread's first: a read of 0 at `at`, `since` 0)
//   tt_py_thread(hash, tid)   thread `tid`'s std::hash of its std::thread::id, for a thread that
//                             writes no stream of its own (the metadata's thread_hashes, by
//                             which the XSpace import places TensorFlow's host lines)
//   tt_set_rank(rank, world_size, source)
//                             the process's rank as the framework knows it (JAX's process
//                             index), into the trace metadata (runtime/process.h)
//   tt_py_site(op, ids)       where a graph op was created (TensorFlow records the Python stack
//                             of each node it traces): the node's name and that stack's frames
//   tt_tf_collective_op(op, type, bytes)
//                             a collective op of a traced graph and its input's bytes (static
//                             shape and dtype), which its XSpace event lacks (analysis/comm)
//   tt_tf_eager_collective(type, group, key, bytes)
//                             an eager collective op's group and instance keys and its bytes
//   tt_py_tracer_started()    the exact tracer (native_tracer.cc) runs in this process: an
//                             instant "python.tracer" and the source's detail
//   tt_py_enter(name), tt_py_leave()
//                             a Python function's call and return on the calling thread (the
//                             exact tracer): a slice of category python
// The analysis (analysis/code_index) reads them back by these names and keys.
#include <cstdint>

#include "format/keys.h"
#include "runtime/emit.h"
#include "runtime/process.h"

using tt::Arg;
using tt::layout::ArgType;
using tt::layout::Category;

namespace {

Arg StringArg(const char* key, const char* text) {
  Arg a;
  a.key = tt::rt::InternName(key);
  a.type = ArgType::kString;
  a.v.str = tt::rt::InternName(text ? text : "");
  return a;
}

Arg IntArg(const char* key, int64_t v) {
  Arg a;
  a.key = tt::rt::InternName(key);
  a.type = ArgType::kInt;
  a.v.i = v;
  return a;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void tt_py_frame(uint32_t id, const char* text) {
  if (!tt::rt::Enabled()) return;
  Arg args[2] = {IntArg(tt::keys::kFrameId, id), StringArg(tt::keys::kFrame, text)};
  tt::rt::EmitInstant(tt::keys::kPythonFrame, Category::kPython, args, 2);
}

__attribute__((visibility("default"))) void tt_py_sample(int64_t tid, const char* frames,
                                                         int64_t since, int64_t at) {
  if (!tt::rt::Enabled()) return;
  Arg args[4] = {IntArg(tt::keys::kTid, tid), StringArg(tt::keys::kFrames, frames),
                 IntArg(tt::keys::kSince, since), IntArg(tt::keys::kAt, at)};
  tt::rt::EmitInstant(tt::keys::kPythonSample, Category::kPython, args, 4);
}

__attribute__((visibility("default"))) void tt_py_cpu(int64_t tid, int64_t cpu_ns, int64_t since,
                                                      int64_t at) {
  if (!tt::rt::Enabled()) return;
  Arg args[4] = {IntArg(tt::keys::kTid, tid), IntArg(tt::keys::kCpuNs, cpu_ns),
                 IntArg(tt::keys::kSince, since), IntArg(tt::keys::kAt, at)};
  tt::rt::EmitInstant(tt::keys::kPythonCpu, Category::kPython, args, 4);
}

__attribute__((visibility("default"))) void tt_py_gil(int64_t tid, int64_t gil_ns, int64_t since,
                                                      int64_t at) {
  if (!tt::rt::Enabled()) return;
  Arg args[4] = {IntArg(tt::keys::kTid, tid), IntArg(tt::keys::kGilNs, gil_ns),
                 IntArg(tt::keys::kSince, since), IntArg(tt::keys::kAt, at)};
  tt::rt::EmitInstant(tt::keys::kPythonGil, Category::kPython, args, 4);
}

__attribute__((visibility("default"))) void tt_py_thread(int64_t hash, int64_t tid) {
  if (tid > 0) tt::rt::NoteThreadHash(hash, static_cast<uint64_t>(tid));
}

__attribute__((visibility("default"))) void tt_py_site(const char* op, const char* frames) {
  if (!tt::rt::Enabled()) return;
  Arg args[2] = {StringArg(tt::keys::kOpName, op), StringArg(tt::keys::kFrames, frames)};
  tt::rt::EmitInstant(tt::keys::kPythonSite, Category::kPython, args, 2);
}

__attribute__((visibility("default"))) void tt_py_tracer_started(void) {
  tt::rt::EmitSource("python", "exact tracer (--python-tracer)");
  tt::rt::EmitInstant(tt::keys::kPythonTracer, Category::kPython, nullptr, 0);
}

__attribute__((visibility("default"))) void tt_py_enter(const char* name) {
  tt::rt::EmitBegin(name, Category::kPython);
}

__attribute__((visibility("default"))) void tt_py_leave(void) { tt::rt::EmitEnd(); }

__attribute__((visibility("default"))) void tt_set_rank(int64_t rank, int64_t world_size,
                                                        const char* source) {
  tt::rt::SetProcessRank(rank, world_size, source);
}

// A TensorFlow collective op of a traced graph and its input's bytes (tf_sites.py).
__attribute__((visibility("default"))) void tt_tf_collective_op(const char* op, const char* type,
                                                                int64_t bytes) {
  if (!tt::rt::Enabled()) return;
  Arg args[3] = {StringArg(tt::keys::kOpName, op), StringArg(tt::keys::kOpType, type),
                 IntArg(tt::keys::kBytes, bytes)};
  tt::rt::EmitInstant(tt::keys::kTfCollectiveOp, Category::kPython, args, 3);
}

// An eager TensorFlow collective op: its group and instance keys and its bytes (tf_sites.py).
__attribute__((visibility("default"))) void tt_tf_eager_collective(const char* type,
                                                                   int64_t group_key,
                                                                   int64_t instance_key,
                                                                   int64_t bytes) {
  if (!tt::rt::Enabled()) return;
  Arg args[4] = {StringArg(tt::keys::kOpType, type), IntArg(tt::keys::kProcessGroup, group_key),
                 IntArg(tt::keys::kInstanceKey, instance_key), IntArg(tt::keys::kBytes, bytes)};
  tt::rt::EmitInstant(tt::keys::kTfCollectiveOp, Category::kPython, args, 4);
}

}  // extern "C"
