// The Python source read back (python/tensortrace/sampler.py, sources/python/): per process its
// frames, each thread's sampled stacks over time, and where graph ops were created; and the
// stack an op is attributed to (the code view's question: which line of the program made it).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/pass/thread_cpu.h"
#include "core/error.h"
#include "model/model.h"

namespace tt::analysis {

struct CodeFrame {
  std::string file, function;
  int64_t line = 0;
  bool library = false;  // the interpreter's or an installed package's, not the program's own
};

// A thread's stack from `ts` on; the sampler's previous look (`since`, 0: none) still saw the
// stack before, so the change happened in (since, ts].
struct CodeSample {
  uint64_t ts = 0, since = 0;
  uint32_t stack = 0;
  bool operator<(const CodeSample& o) const { return ts < o.ts; }
};

struct ProcessCode {
  std::vector<CodeFrame> frames;              // by index
  std::vector<std::vector<uint32_t>> stacks;  // by index: frame indices, outermost first
  std::vector<char> idle;                     // by stack: its thread waits (queue, sleep...)
  std::unordered_map<uint64_t, std::vector<CodeSample>> samples;  // tid -> samples by time
  std::unordered_map<std::string, uint32_t> site_of;              // graph node name -> stack index
  uint64_t main_tid = 0;                                          // the process's pid
  std::string cmdline;                                            // its command line
  // Each sampled file by every tail of its path ("pkg/mod.py", "mod.py"), for Resolve.
  std::unordered_map<std::string, const CodeFrame*> by_tail;
  // By tid: the thread's CPU time, where the native sampler read it (python.cpu).
  std::unordered_map<uint64_t, ThreadCpu> cpu;
  // By tid: the time the thread held the GIL, as the native sampler's looks saw it (python.gil;
  // a ThreadCpu: the same kind of total, read at looks).
  std::unordered_map<uint64_t, ThreadCpu> gil;
  bool Empty() const { return stacks.empty(); }
  // A tracer's frame whose file is relative to its sys.path entry (Kineto's "torch/nn/x.py",
  // "train.py"): the full path and library-ness of the sampled file it names, if any.
  void Resolve(CodeFrame* f) const;
};

// The stack index an op [start, end] belongs to, or kNoStack: its creation site (a TensorFlow
// graph node of that name), else the stack of its own thread when that thread is Python's, else
// that of the process's Python thread that was not waiting at the time (the main thread first).
inline constexpr uint32_t kNoStack = UINT32_MAX;
uint32_t StackOfOp(const ProcessCode& pc, std::string_view node, uint64_t tid, uint64_t start,
                   uint64_t end);

// StackOfOp for one track's ops, remembering each op name's creation site (one lookup per
// name, not per op).
class OpStacks {
 public:
  OpStacks(const ProcessCode& pc, const model::Process& proc) : pc_(pc), proc_(proc) {}
  uint32_t Of(uint32_t name, uint64_t tid, uint64_t start, uint64_t end);
  // A long interval of thread `tid` (the input pipeline's work in a DataLoader worker, many
  // samples long) split among the stacks its samples saw, each sample an equal share of it;
  // with no sample inside, whole to Of's stack. Empty when the thread has no samples.
  std::vector<std::pair<uint32_t, uint64_t>> Split(uint64_t tid, uint64_t start, uint64_t end);

 private:
  const ProcessCode& pc_;
  const model::Process& proc_;
  std::unordered_map<uint32_t, uint32_t> site_;  // op name id -> site stack (kNoStack: none)
};

// The stacks the sampler saw on the process's main Python thread during [start, end] (a gap
// in a step, where no op ran: the program sleeping, waiting or running Python between ops),
// each with its share of the time: each look inside an equal share; with no look inside, the
// whole to the main thread's nearest look (waiting or not), or, where the main thread has no
// samples, to the stack StackOfOp gives the interval. Empty without samples.
std::vector<std::pair<uint32_t, uint64_t>> StacksDuring(const ProcessCode& pc, uint64_t start,
                                                        uint64_t end);
// A stack's innermost frame in the program's own files, "train.py:41 (main)"; else, all its
// frames a library's, its innermost frame's package, "[torch]"; "" for kNoStack or an empty one.
std::string LineOfStack(const ProcessCode& pc, uint32_t stack);

// A Python function slice of a framework's tracer as a frame: Kineto's "file.py(12): fn",
// "<built-in method ...>"; else the whole name as the function (a library frame). A relative
// file is the program's own only if it has no directory ("train.py", beside the script).
CodeFrame FrameOfSlice(std::string_view name);
// Whether a python slice is a function call (not the bootstrap's "nn.Module: ..." ranges).
bool IsPythonFrameName(std::string_view name);

// Whether a file is the program's own: not in the standard library, site-packages or
// dist-packages, and not one of the interpreter's "<frozen ...>" modules.
bool IsLibraryFile(std::string_view file);
// The top-level package a library file belongs to ("keras", "torch", "threading").
std::string LibraryPackage(std::string_view file);

struct CodeIndex {
  std::vector<ProcessCode> processes;  // indexed like TraceModel::processes
  bool any = false;                    // some process has Python samples or sites
};

// Reads the Python source's tracks (named python/tensortrace/sampler.py's THREAD_NAME and
// src/sources/python/native_sampler.cc's thread).
CodeIndex LoadCodeIndex(const model::TraceModel& m, std::vector<Problem>* problems);

// The thread names of the Python source's streams: the bootstrap's thread (sites; samples when
// sampling runs in Python) and the native sampler's.
inline constexpr std::string_view kSamplerThread = "tensortrace-python";
inline constexpr std::string_view kNativeSamplerThread = "tensortrace-pysample";

}  // namespace tt::analysis
