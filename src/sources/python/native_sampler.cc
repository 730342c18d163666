// The Python source's sampler, native: a thread of ours (not a Python thread) that every N ms
// takes the GIL and reads each Python thread's frames straight from the interpreter's own
// structures, then writes a sample when a thread's stack changed (tt_py_sample, as
// python/tensortrace/sampler.py would); then, without the GIL, reads each thread's CPU
// clock and writes it where it changed (tt_py_cpu), which replay's CPU sharing reads as what
// share of a core each thread's work asked for. It creates no Python object, so the interpreter's
// garbage collections happen when and where they would untraced (a sampler in Python moved
// them: docs/trace-format.md "Python events"), which is what lets sampling be on by default.
// The CPU clocks it reads are those of every thread of the process, not only Python's: the
// threads of /proc/self/task (listed again every kListNs), so that the work of gloo's, oneDNN's,
// OpenMP's, TensorFlow's and autograd's pool threads has its CPU time too; and a new thread's
// handle hash (native_threads.cc), which places TensorFlow's host lines on their threads.
// And which thread held the GIL at each look (read just before the sampler asks for it): the
// time since the previous read is counted to that thread (tt_py_gil), which replay reads as
// the share of its work that needs the GIL.
//
// The frame layout it reads is CPython 3.11's (internal/pycore_frame.h): CMake builds this
// library only against 3.11's headers and the bootstrap loads it only into a 3.11 interpreter
// (tt_pysample_abi). Loaded by the bootstrap with ctypes.PyDLL (start holds the GIL); it calls
// the preloaded runtime's tt_py_* functions, resolved when it is loaded.
#define Py_BUILD_CORE 1
#include <Python.h>
#include <dirent.h>
#include <internal/pycore_frame.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "native_code.h"
#include "native_threads.h"

extern "C" {
void tt_py_frame(uint32_t id, const char* text);
void tt_py_sample(int64_t tid, const char* frames, int64_t since, int64_t at);
void tt_py_cpu(int64_t tid, int64_t cpu_ns, int64_t since, int64_t at);
void tt_py_gil(int64_t tid, int64_t gil_ns, int64_t since, int64_t at);
void tt_py_thread(int64_t hash, int64_t tid);
void tt_set_thread_name(const char* name);
int tt_enabled(void);
void tt_pysample_lock_threads();  // native_sampler_lock.c
void tt_pysample_unlock_threads();
long tt_pysample_gil_holder(PyInterpreterState* interp);
}

namespace {

// Frame numbers of this library start here, so that they never meet those the bootstrap's
// Python thread gives to TensorFlow's creation sites (numbered from 1) in the same process.
constexpr uint32_t kFirstId = 1u << 30;

// How often the process's threads are listed again (/proc/self/task) for their CPU clocks: a
// thread started since is read from the next listing on.
constexpr int64_t kListNs = 50'000'000;

// What a thread's stack was at the last look: while it is the same, so is the stack. The
// innermost frame's address and instruction are not enough: a function called again at the
// same depth gets the same address (each thread's frames are a stack), and a thread that waits
// for the GIL waits at the same instruction (a loop's back edge), so one function called from
// two callers in turn looked the same (tests/programs/py_two_callers.py: one sample of each
// caller in 20 calls); so every frame's code and instruction are hashed too (a walk of a few
// dozen pointers).
struct Top {
  const void* frame = nullptr;
  const void* instr = nullptr;
  uint64_t frames = 0;  // the hash of every frame's code and instruction, innermost first
  bool operator==(const Top&) const = default;
};

struct Sampler {
  PyInterpreterState* interp = nullptr;
  PyThreadState* own = nullptr;  // this sampler's thread state, made once
  std::string own_dir;           // the bootstrap's frames (not the program's) are left out
  unsigned long skip = 0;        // the bootstrap's thread (threading.get_ident()), not sampled
  int64_t interval_ns = 0;
  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  // Frame numbers by (code, line). Each key holds a reference to its code object, so that the
  // address cannot be reused by another code while it is a key here.
  std::map<std::pair<PyCodeObject*, int>, uint32_t> ids;
  uint32_t next_id = kFirstId;
  std::map<unsigned long, Top> last;  // by the thread's id
  int64_t prev_look = 0;
  // Each thread's CPU time: the threads of the last look (native ids), and by thread the CPU
  // time last written (thread_cpu.h: written when it changed), and when it was last read.
  std::vector<long> looked;
  std::map<long, int64_t> cpu;
  int64_t prev_cpu_look = 0;
  std::vector<long> tasks;         // every thread of the process but this one, at the last listing
  int64_t listed = 0;              // when (0: never)
  long own_tid = 0, skip_tid = 0;  // this thread's and the bootstrap's (native ids)
  std::set<long> noted;            // threads whose handle's hash was noted (or looked for)
  bool silent = false;  // a look was skipped: outside a capture window (record --on-demand)
  // The GIL: its holder just before this look (native id, 0: none) and when it was read, the
  // time each thread held it by the reads so far (by native id), and when the previous read
  // was (0: none since the start or a silent spell, whose time is counted to nobody).
  long gil_holder = 0;
  int64_t gil_read = 0;
  std::map<long, int64_t> gil;
  int64_t prev_gil_look = 0;
};

Sampler* g_sampler = nullptr;

int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The frame's number (0: the bootstrap's own frame), defining it on first use. Holds the GIL.
uint32_t FrameId(Sampler* s, PyCodeObject* code, int line) {
  auto [it, fresh] = s->ids.try_emplace({code, line}, 0);
  if (!fresh) return it->second;
  Py_INCREF(code);
  tt_native::CodeNames n = tt_native::NamesOf(code, s->own_dir);
  if (n.own) return 0;
  it->second = s->next_id++;
  std::string text = std::string(n.file) + ":" + std::to_string(line) + ":" + n.name;
  tt_py_frame(it->second, text.c_str());
  return it->second;
}

// The innermost frame of `t` that has begun running its code (a frame being set up has no line
// yet), or null.
_PyInterpreterFrame* Innermost(PyThreadState* t) {
  _PyInterpreterFrame* f = t->cframe ? t->cframe->current_frame : nullptr;
  while (f && _PyFrame_IsIncomplete(f)) f = f->previous;
  return f;
}

// The hash of `f`'s and its callers' code objects and instructions (Top::frames).
uint64_t HashFrames(_PyInterpreterFrame* f) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the pointers
  for (; f; f = f->previous)
    for (const void* p :
         {static_cast<const void*>(f->f_code), static_cast<const void*>(f->prev_instr)}) {
      h ^= reinterpret_cast<uintptr_t>(p);
      h *= 1099511628211ull;
    }
  return h;
}

// `f` and its callers as frame numbers, outermost first, comma-separated.
std::string Stack(Sampler* s, _PyInterpreterFrame* f) {
  std::vector<uint32_t> ids;
  for (; f; f = f->previous) {
    if (_PyFrame_IsIncomplete(f)) continue;
    int line = PyCode_Addr2Line(
        f->f_code, _PyInterpreterFrame_LASTI(f) * static_cast<int>(sizeof(_Py_CODEUNIT)));
    if (uint32_t id = FrameId(s, f->f_code, line < 0 ? 0 : line)) ids.push_back(id);
  }
  std::string out;
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    if (!out.empty()) out += ',';
    out += std::to_string(*it);
  }
  return out;
}

// The CPU clock of thread `tid` of this process (the kernel's encoding, as glibc's
// pthread_getcpuclockid makes it: a thread that has ended makes clock_gettime fail).
clockid_t ThreadCpuClock(long tid) {
  return static_cast<clockid_t>((~static_cast<unsigned long>(tid) << 3) | 6);
}

// The process's threads but `own` (the sampler's) and `skip` (the bootstrap's), by their ids.
std::vector<long> ListThreads(long own, long skip) {
  std::vector<long> tids;
  DIR* d = opendir("/proc/self/task");
  if (!d) return tids;
  while (dirent* e = readdir(d)) {
    long tid = std::strtol(e->d_name, nullptr, 10);
    if (tid > 0 && tid != own && tid != skip) tids.push_back(tid);
  }
  closedir(d);
  return tids;
}

// Each listed thread's handle hash, the first time it is listed (tt_py_thread): what places
// TensorFlow's host lines of it on it. The threads are walked only when one is new.
void NoteHandles(Sampler* s) {
  if (std::all_of(s->tasks.begin(), s->tasks.end(), [s](long t) { return s->noted.count(t); }))
    return;
  for (const auto& [tid, hash] : tt_native::ThreadHandleHashes())
    if (s->noted.insert(tid).second) tt_py_thread(static_cast<int64_t>(hash), tid);
  s->noted.insert(s->tasks.begin(), s->tasks.end());
}

// The threads whose CPU clocks are read: the Python threads of this look and the process's
// other threads as last listed.
std::vector<long> CpuThreads(Sampler* s, int64_t at) {
  if (s->listed == 0 || at - s->listed >= kListNs) {
    s->tasks = ListThreads(s->own_tid, s->skip_tid);
    s->listed = at;
    NoteHandles(s);
  }
  std::vector<long> tids = s->looked;
  tids.insert(tids.end(), s->tasks.begin(), s->tasks.end());
  std::sort(tids.begin(), tids.end());
  tids.erase(std::unique(tids.begin(), tids.end()), tids.end());
  return tids;
}

// Each thread's CPU time, written where it changed since the previous look (a waiting thread
// costs one system call). Without the GIL: the threads run meanwhile.
void LookCpu(Sampler* s) {
  int64_t since = s->prev_cpu_look, at = s->prev_cpu_look = MonotonicNs();
  std::map<long, int64_t> now;
  for (long tid : CpuThreads(s, at)) {
    timespec ts;
    if (clock_gettime(ThreadCpuClock(tid), &ts) != 0) continue;
    int64_t cpu = static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
    now[tid] = cpu;
    auto was = s->cpu.find(tid);
    if (was != s->cpu.end() && was->second == cpu) continue;
    tt_py_cpu(tid, cpu, was != s->cpu.end() ? since : 0, at);
  }
  s->cpu = std::move(now);
}

// Counts the time since the previous look's read of the GIL's holder to the thread that held it
// at this one's, `at` (a sample: over many looks, each thread's share of the time it held it),
// and writes its total.
// A thread's first write comes with a read of 0 at the previous look, so that its time is
// bounded from there (analysis/pass/thread_cpu.h).
void CountGil(Sampler* s, long holder, int64_t at) {
  int64_t since = s->prev_gil_look;
  s->prev_gil_look = at;
  if (holder == 0 || since == 0) return;
  auto [it, fresh] = s->gil.try_emplace(holder, 0);
  if (fresh) tt_py_gil(holder, 0, 0, since);
  it->second += at - since;
  tt_py_gil(holder, it->second, since, at);
}

// One look at every thread of the interpreter. Holds the GIL, and the interpreter's list lock
// (what sys._current_frames holds): a thread state may be deleted without the GIL.
void Look(Sampler* s) {
  int64_t since = s->prev_look, at = s->prev_look = MonotonicNs();
  std::map<unsigned long, Top> seen;
  s->looked.clear();
  tt_pysample_lock_threads();
  for (PyThreadState* t = PyInterpreterState_ThreadHead(s->interp); t; t = PyThreadState_Next(t)) {
    if (t->thread_id == s->skip) s->skip_tid = static_cast<long>(t->native_thread_id);
    if (t == s->own || t->thread_id == s->skip) continue;
    s->looked.push_back(static_cast<long>(t->native_thread_id));
    _PyInterpreterFrame* f = Innermost(t);
    if (!f) continue;
    Top top{f, f->prev_instr, HashFrames(f)};
    seen[t->thread_id] = top;
    auto was = s->last.find(t->thread_id);
    if (was != s->last.end() && was->second == top) continue;
    std::string stack = Stack(s, f);
    tt_py_sample(static_cast<int64_t>(t->native_thread_id), stack.c_str(),
                 was != s->last.end() ? since : 0, at);
  }
  tt_pysample_unlock_threads();
  s->last = std::move(seen);
  CountGil(s, s->gil_holder == s->skip_tid ? 0 : s->gil_holder, s->gil_read);
}

// After a silent spell: every frame is defined again and every stack written whole, since
// what was written before it may have been written while events were dropped. Holds the GIL.
void Forget(Sampler* s) {
  for (auto& [key, id] : s->ids) Py_DECREF(key.first);
  s->ids.clear();
  s->last.clear();
  s->cpu.clear();
  s->gil.clear();
  s->prev_gil_look = 0;
  s->silent = false;
}

void Run(Sampler* s) {
  tt_set_thread_name("tensortrace-pysample");
  s->own_tid = static_cast<long>(syscall(SYS_gettid));
  std::unique_lock<std::mutex> lock(s->mu);
  for (;;) {
    bool stopping =
        s->cv.wait_for(lock, std::chrono::nanoseconds(s->interval_ns), [s] { return s->stop; });
    lock.unlock();
    // Outside a capture window nothing would be written: the GIL is left to the program.
    if (!tt_enabled()) {
      s->silent = true;
    } else {
      s->gil_read = MonotonicNs();
      s->gil_holder = tt_pysample_gil_holder(s->interp);
      PyEval_RestoreThread(s->own);  // takes the GIL
      if (s->silent) Forget(s);
      Look(s);                              // a last one when stopping, as the program ends
      if (!tt_enabled()) s->silent = true;  // the window closed during the look
      PyEval_SaveThread();
      if (!s->silent) LookCpu(s);
    }
    if (stopping) return;
    lock.lock();
  }
}

}  // namespace

extern "C" {

// The CPython version this library reads the frames of (PY_VERSION_HEX's major and minor).
__attribute__((visibility("default"))) int tt_pysample_abi() { return PY_VERSION_HEX >> 16; }

// Starts sampling every `interval_ms` ms; `own_dir` is the bootstrap's directory, `skip` its
// thread's ident. Called with the GIL held (ctypes.PyDLL). 0 on success.
__attribute__((visibility("default"))) int tt_pysample_start(double interval_ms,
                                                             const char* own_dir,
                                                             unsigned long skip) {
  if (g_sampler || interval_ms <= 0) return -1;
  auto* s = new Sampler();
  s->interp = PyInterpreterState_Get();
  s->own = PyThreadState_New(s->interp);
  if (!s->own) {
    delete s;
    return -1;
  }
  s->own_dir = own_dir ? own_dir : "";
  s->skip = skip;
  s->interval_ns = static_cast<int64_t>(interval_ms * 1e6);
  s->thread = std::thread(Run, s);
  g_sampler = s;
  return 0;
}

// Stops the thread after one last look; called without the GIL (ctypes.CDLL releases it), at
// exit before the interpreter finalises.
__attribute__((visibility("default"))) void tt_pysample_stop() {
  Sampler* s = g_sampler;
  if (!s || !s->thread.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    s->stop = true;
  }
  s->cv.notify_one();
  s->thread.join();
}

// In a forked child: the parent's thread is not here and its thread state is gone, so the
// sampler is forgotten (never freed: its std::thread names a thread the child does not have)
// and may start again.
__attribute__((visibility("default"))) void tt_pysample_forget() { g_sampler = nullptr; }

}  // extern "C"
