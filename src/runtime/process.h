// The tracing session inside one process: configuration from the environment, the process
// directory, the process stream, the registry of thread streams, and fork/exit handling.
#pragma once
#include <atomic>
#include <cstdint>

#include "runtime/stream.h"

namespace tt::rt {

enum State : int { kOff = 0, kOn = 1, kPendingChild = 2 };
extern std::atomic<int> g_state;

// The loss page's capture word (format/loss_page.h), or a word that stays 1: zero between the
// capture windows of an on-demand recording, when no event is written.
extern const uint32_t* g_capture;

// Whether events are written now: tracing is on, and (on demand) a capture window is open.
inline bool Enabled() {
  return g_state.load(std::memory_order_relaxed) != kOff &&
         __atomic_load_n(g_capture, __ATOMIC_RELAXED) != 0;
}
// Whether tracing is on in this process, in a capture window or between two: sources arm
// themselves and say so whenever this holds.
inline bool Armed() { return g_state.load(std::memory_order_relaxed) != kOff; }
// Sets g_state and the public tt_active_ flag that mirrors it (tensortrace.h).
void SetState(State s);

// The calling thread's stream; null until its first event.
// constinit: no dynamic initialisation, so no TLS wrapper call on the hot path.
extern thread_local constinit Stream* t_stream __attribute__((tls_model("initial-exec")));

// Slow path of every event on a thread without a stream. Null when tracing is off.
Stream* AttachThread();

// Process-wide lock for the slow paths (interning, stream registry, process stream).
void Lock();
void Unlock();

// Adds a stream to the registry (closed in a forked child, drops summed at exit). Under Lock().
void RegisterStreamLocked(Stream* s);
// Notes thread `tid`'s std::hash of its std::thread::id (libstdc++'s hash of its pthread_t), for
// the metadata's thread_hashes: TensorFlow's profiler names its host lines by it, and the
// XSpace import places them on the thread by it. A thread's stream notes its own; the Python
// sampler (src/sources/python/native_threads.cc) those of the threads that write none.
void NoteThreadHashLocked(int64_t hash, uint64_t tid);
void NoteThreadHash(int64_t hash, uint64_t tid);
// The first stream of the registry (follow `next`). Under Lock().
Stream* StreamsLocked();
void ResetDeviceQueues();  // device.cc; under Lock()

// The process stream; only under Lock().
Stream* ProcessStream();
const char* ProcessDir();  // null until the process directory exists
uint32_t Pid();
uint64_t NewStreamInstance();
uint64_t DefaultPacketBytes();

// Drop reasons kept for the summary written at exit.
// kDropCupti: device records CUPTI dropped, or that the CUPTI source had no buffer for.
// kDropDiskFull, kDropNoFds, kDropPermission: a stream file could not be created or extended
// (ENOSPC/EDQUOT, EMFILE/ENFILE, EACCES/EPERM/EROFS); kDropEnded: `record` had finished;
// kDropFileSizeLimit: a stream file would have passed the program's RLIMIT_FSIZE (EFBIG).
enum DropReason {
  kDropBusy,
  kDropNoSpace,
  kDropNames,
  kDropCupti,
  kDropDiskFull,
  kDropNoFds,
  kDropPermission,
  kDropEnded,
  kDropFileSizeLimit,
  kDropReasonCount
};
void CountDropReason(DropReason r, uint64_t n);
// The reason of a failed stream operation from its errno (ESHUTDOWN: `record` had finished;
// anything unnamed: kDropNoSpace).
DropReason DropReasonOfErrno(int err);
// Names longer than kMaxNameLen, cut to it when interned (once per name; intern.cc).
void CountTruncatedName();

// A source event in the process stream: what a collector saw (e.g. an ITT domain), listed by
// `info`. Nothing when tracing is off.
void EmitSource(const char* name, const char* detail);

// The process's rank and world size as a framework learnt them after start (JAX's
// jax.distributed.initialize): they replace the launcher's in the metadata, which is written
// again; `source` names where they came from. No-op before the process's trace exists.
void SetProcessRank(int64_t rank, int64_t world_size, const char* source);

// Stops tracing in this process for good; the reason goes to the trace and to stderr at exit.
void DisableTracing(const char* why);

// Writes the end of the process trace (clock offset, drop summary, metadata).
void FinishProcess();

}  // namespace tt::rt
