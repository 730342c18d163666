#include "runtime/process.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "core/files.h"
#include "format/launcher.h"
#include "format/metadata.h"
#include "runtime/emit.h"
#include "runtime/loss_page.h"
#include "runtime/prepare.h"
#include "tensortrace/tensortrace.h"

namespace tt::rt {

constinit std::atomic<int> g_state{kOff};
namespace {
constinit const uint32_t kAlwaysCapturing = 1;
}
constinit const uint32_t* g_capture = &kAlwaysCapturing;
thread_local constinit Stream* t_stream __attribute__((tls_model("initial-exec"))) = nullptr;

void SetState(State s) {
  g_state.store(s);
  __atomic_store_n(&tt_active_, s != kOff ? 1 : 0, __ATOMIC_RELAXED);
}

namespace {

struct Globals {
  std::atomic<bool> lock{false};
  bool initialised = false;  // the process directory exists (this image, or this child)
  bool finished = false;
  std::string* dir = nullptr;  // heap, never freed: usable from late destructors
  std::string* root = nullptr;
  ProcessMeta* meta = nullptr;
  uint32_t pid = 0;
  Stream* proc = nullptr;
  Stream* streams = nullptr;
  std::atomic<uint64_t> instance{0};
  uint64_t packet_bytes = 1 << 20;
  uint64_t max_bytes = 0;  // 0: no cap
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> drops[kDropReasonCount];
  std::atomic<uint64_t> truncated_names{0};
  // A LossCause once this process could not create its trace: its events are counted in the
  // loss page instead (tracing stays on for that). -1: none.
  std::atomic<int> lost{-1};
  char error[512] = {0};
  pthread_key_t key = 0;
  // "hash=tid," per attached thread, for the metadata's thread_hashes (under lock; full: the
  // rest are left out).
  char thread_hashes[32768] = {0};
  size_t thread_hashes_len = 0;
};
constinit Globals g;

thread_local bool t_attaching __attribute__((tls_model("initial-exec"))) = false;
// This thread could not get a stream (size cap, disk): its events are dropped and counted,
// without trying again for each one, with the reason it could not.
thread_local bool t_no_stream __attribute__((tls_model("initial-exec"))) = false;
thread_local DropReason t_no_stream_reason __attribute__((tls_model("initial-exec"))) =
    kDropNoSpace;

const char* const kDropReasonText[kDropReasonCount] = {
    "re-entered from a signal handler",
    "no buffer space (size cap, disk or memory)",
    "name table full",
    "CUPTI dropped device records (buffer cap or CUPTI's own limit)",
    "disk full",
    "no file descriptors",
    "permission denied",
    "recording had ended (written after record finished)",
    "file size limit (the program's ulimit -f)"};

uint64_t EnvBytes(const char* name, uint64_t dflt) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  char* end;
  unsigned long long x = std::strtoull(v, &end, 10);
  return *end ? dflt : x;
}

std::string ReadCmdline() {
  std::string raw;
  try {
    raw = ReadFile("/proc/self/cmdline");
  } catch (...) {
    return "";
  }
  std::string out;
  size_t start = 0;
  while (start < raw.size()) {
    size_t z = raw.find('\0', start);
    if (z == std::string::npos) z = raw.size();
    std::string arg = raw.substr(start, z - start);
    if (!out.empty()) out += ' ';
    if (arg.empty() || arg.find_first_of(" \t'\"\\$") != std::string::npos) {
      out += '\'';
      for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    } else {
      out += arg;
    }
    start = z + 1;
  }
  return out;
}

// False (errno kept, the error noted) if it could not be written.
bool WriteMetadata() {
  try {
    // No fsync: it would cost the traced program milliseconds at its start and exit, and the
    // page cache keeps the file through any crash of the process (write and close are checked).
    WriteFileAtomic(*g.dir + "/metadata", GenerateMetadata(*g.meta), /*sync=*/false);
    return true;
  } catch (const std::exception& e) {
    int err = errno;
    DisableTracing(e.what());
    errno = err;
    return false;
  }
}

// This process cannot create its trace (`err` from the call that failed). With the loss page,
// tracing stays on and every event is counted there as lost, with the cause; without it,
// tracing is off. Removes what was made of the process directory. Returns false.
bool LoseTrace(int err, const char* what) {
  std::snprintf(g.error, sizeof g.error, "%s: %s", what, std::strerror(err));
  if (g.dir && !g.dir->empty()) {
    unlink((*g.dir + "/metadata").c_str());
    rmdir(g.dir->c_str());
    g.dir->clear();
  }
  g.initialised = false;
  if (!HaveLossPage() || RecordingEnded()) {
    SetState(kOff);
    return false;
  }
  g.lost.store(LossCauseOfErrno(err));
  SetState(kOn);
  return false;
}

void ClockOffsetEvent(const char* clock, int64_t off) {
  // The offset of the shifted clock, which imports convert their times with: under the test
  // knob they move with the process's own events (the metadata keeps the true offsets).
  off -= static_cast<int64_t>(g_clock.test_shift_ns);
  size_t n = std::strlen(clock);
  WriteProcEvent(layout::kClockOffset, n + 1 + 8, [&](uint8_t* p) {
    p = PutStr(p, clock, n);
    Store<int64_t>(p, off);
    return p + 8;
  });
}

void ThreadKeyDestructor(void* v) {
  auto* s = static_cast<Stream*>(v);
  if (s->pending_drops.load(std::memory_order_relaxed) && !s->busy) FoldDrops(s);
  if (t_stream == s) t_stream = nullptr;
  Lock();
  for (Stream** pp = &g.streams; *pp; pp = &(*pp)->next) {
    if (*pp == s) {
      *pp = s->next;
      break;
    }
  }
  Unlock();
  CloseSpare(s, true);  // out of the registry: the preparer can no longer claim it
  CloseStream(s);
}

void AtForkPrepare() { Lock(); }
void AtForkParent() { Unlock(); }
void AtForkChild() {
  // This child owns none of the parent's streams; it starts its own trace at its first event.
  g.lock.store(false, std::memory_order_relaxed);
  for (Stream* s = g.streams; s;) {
    Stream* n = s->next;
    CloseSpare(s, false);
    CloseStream(s);
    s = n;
  }
  g.streams = nullptr;
  ForgetPreparer();
  ResetDeviceQueues();
  if (g.proc) CloseStream(g.proc);
  g.proc = nullptr;
  t_stream = nullptr;
  t_no_stream = false;
  g.lost.store(-1);
  g.truncated_names.store(0);
  ForgetLossSlot();
  g.initialised = false;
  g.finished = false;
  if (g.dir) g.dir->clear();
  g.bytes.store(0);
  for (auto& d : g.drops) d.store(0);
  if (g_state.load() == kOn) SetState(kPendingChild);
}

// Says once, on stderr, that this process could not start its trace.
void ReportLostTrace() {
  int lost = g.lost.load();
  if (lost >= 0)
    std::fprintf(stderr,
                 "tensortrace: process %d cannot write its trace (%s: %s); its events are "
                 "counted as lost\n",
                 getpid(), LossCauseText(static_cast<uint32_t>(lost)), g.error);
  else if (!RecordingEnded())
    std::fprintf(stderr, "tensortrace: tracing is off in process %d: %s\n", getpid(),
                 g.error[0] ? g.error : "initialisation failed");
}

// Creates this process's directory, metadata and process stream. Caller holds the lock
// (or is the only thread, at load time).
bool InitProcess() {
  g.pid = static_cast<uint32_t>(getpid());
  if (RecordingEnded()) {  // a process started after record finished is not traced
    SetState(kOff);
    return false;
  }
  InitClock();
  InitClassTable();
  if (!InitInternTable()) {
    DisableTracing("cannot map the name table");
    return false;
  }
  uint32_t gen = 0;
  std::string dir;
  for (;; ++gen) {
    dir = *g.root + "/p" + std::to_string(g.pid) + (gen ? "." + std::to_string(gen) : "");
    if (MakeDirectory(dir)) break;
    if (errno != EEXIST || gen > 1000) return LoseTrace(errno, "cannot create its directory");
  }
  *g.dir = dir;
  ProcessMeta& m = *g.meta;
  int64_t parent = m.pid;  // set when this is a fork child
  m = ProcessMeta{};
  m.trace_uuid = RandomUuid();
  m.clock_uuid = BootId();
  m.offset_start_ns = MeasureRealtimeOffsetNs();
  const char* off = std::getenv("TENSORTRACE_CLOCK_OFFSET");
  m.clock_offset_ns = off ? std::strtoll(off, nullptr, 10) : m.offset_start_ns;
  m.pid = g.pid;
  m.ppid = parent ? parent : getppid();
  m.exec_generation = gen;
  m.hostname = HostName();
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0)
    m.cpus = static_cast<uint32_t>(CPU_COUNT(&cpus));
  m.cmdline = ReadCmdline();
  LauncherRank rank = RankFromEnvironment([](const char* k) { return std::getenv(k); });
  m.rank = rank.rank, m.local_rank = rank.local_rank, m.world_size = rank.world_size;
  m.rank_source = rank.source;
  m.job = JobFromEnvironment([](const char* k) { return std::getenv(k); });
  const char* session = std::getenv("TENSORTRACE_SESSION");
  m.session = session ? session : UuidToString(RandomUuid());
  m.start_realtime_ns = ReadClockNs(CLOCK_REALTIME);
  g.initialised = true;
  if (!WriteMetadata()) return LoseTrace(errno, "cannot write its metadata");
  g.proc = OpenStream(layout::TrackKind::kProcess, g.pid, "proc", 64 << 10);
  if (!g.proc) return LoseTrace(errno, "cannot create the process stream");
  ClockOffsetEvent("realtime", m.offset_start_ns);
  return true;
}

__attribute__((constructor)) void LoadTimeInit() {
  const char* dir = std::getenv("TENSORTRACE_DIR");
  if (!dir || !*dir) return;
  g.root = new std::string(dir);
  g.dir = new std::string();
  g.meta = new ProcessMeta();
  g.packet_bytes = EnvBytes("TENSORTRACE_BUFFER_SIZE", 1 << 20);
  if (g.packet_bytes < (64 << 10)) g.packet_bytes = 64 << 10;
  if (g.packet_bytes > (1ull << 30)) g.packet_bytes = 1ull << 30;
  g.packet_bytes &= ~uint64_t{4095};
  g.max_bytes = EnvBytes("TENSORTRACE_MAX_BYTES", 0);
  if (pthread_key_create(&g.key, ThreadKeyDestructor) != 0) return;
  pthread_atfork(AtForkPrepare, AtForkParent, AtForkChild);
  MapLossPage(dir);
  if (const uint32_t* word = CaptureWord()) {
    g_capture = word;
  } else if (const char* od = std::getenv("TENSORTRACE_ON_DEMAND"); od && *od == '1') {
    // Without the page no capture window could ever open or close: nothing is recorded.
    std::fprintf(stderr,
                 "tensortrace: tracing is off in process %d: an on-demand recording, but the "
                 "trace directory's loss page cannot be mapped\n",
                 getpid());
    return;
  }
  SetState(kOn);
  if (!InitProcess()) ReportLostTrace();
}

__attribute__((destructor)) void UnloadTimeFinish() { FinishProcess(); }

}  // namespace

void Lock() {
  while (g.lock.exchange(true, std::memory_order_acquire)) {
    while (g.lock.load(std::memory_order_relaxed)) __builtin_ia32_pause();
  }
}
void Unlock() { g.lock.store(false, std::memory_order_release); }

void NoteThreadHashLocked(int64_t hash, uint64_t tid) {
  size_t room = sizeof g.thread_hashes - g.thread_hashes_len;
  int n = std::snprintf(g.thread_hashes + g.thread_hashes_len, room, "%lld=%llu,",
                        static_cast<long long>(hash), static_cast<unsigned long long>(tid));
  if (n > 0 && static_cast<size_t>(n) < room) g.thread_hashes_len += static_cast<size_t>(n);
  g.thread_hashes[g.thread_hashes_len] = 0;
}

void NoteThreadHash(int64_t hash, uint64_t tid) {
  Lock();
  NoteThreadHashLocked(hash, tid);
  Unlock();
}

Stream* ProcessStream() { return g.proc; }
Stream* StreamsLocked() { return g.streams; }
void RegisterStreamLocked(Stream* s) {
  s->next = g.streams;
  g.streams = s;
}
const char* ProcessDir() { return g.dir && !g.dir->empty() ? g.dir->c_str() : nullptr; }
uint32_t Pid() { return g.pid; }
uint64_t NewStreamInstance() { return g.instance.fetch_add(1) + 1; }
uint64_t DefaultPacketBytes() { return g.packet_bytes; }
const Uuid& TraceUuid() { return g.meta->trace_uuid; }

uint64_t ReservePacketBytes(uint64_t bytes) {
  uint64_t total = g.bytes.fetch_add(bytes) + bytes;
  if (g.max_bytes && total > g.max_bytes) {
    g.bytes.fetch_sub(bytes);
    return 0;
  }
  return bytes;
}
void ReleasePacketBytes(uint64_t bytes) { g.bytes.fetch_sub(bytes); }

void CountDropReason(DropReason r, uint64_t n) {
  g.drops[r].fetch_add(n, std::memory_order_relaxed);
}

DropReason DropReasonOfErrno(int err) {
  if (err == ESHUTDOWN) return kDropEnded;
  if (err == EFBIG) return kDropFileSizeLimit;
  switch (LossCauseOfErrno(err)) {
    case kLossDiskFull:
      return kDropDiskFull;
    case kLossNoFds:
      return kDropNoFds;
    case kLossPermission:
      return kDropPermission;
    default:
      return kDropNoSpace;
  }
}

void CountTruncatedName() { g.truncated_names.fetch_add(1, std::memory_order_relaxed); }

void DisableTracing(const char* why) {
  if (g.error[0] == 0) std::snprintf(g.error, sizeof g.error, "%s", why);
  SetState(kOff);
}

Stream* AttachThread() {
  if (t_attaching) {  // a signal handler interrupted this thread's own attach
    CountDropReason(kDropBusy, 1);
    return nullptr;
  }
  if (t_no_stream) {
    CountDropReason(t_no_stream_reason, 1);
    return nullptr;
  }
  t_attaching = true;
  Stream* s = nullptr;
  if (g_state.load() == kPendingChild) {
    Lock();
    if (g_state.load() == kPendingChild) {
      if (InitProcess())
        SetState(kOn);
      else
        ReportLostTrace();
    }
    Unlock();
  }
  if (int lost = g.lost.load(std::memory_order_relaxed); lost >= 0) {
    CountLost(static_cast<LossCause>(lost), 1);  // this process has no trace to write into
  } else if (g_state.load() == kOn) {
    auto tid = static_cast<uint64_t>(syscall(SYS_gettid));
    s = OpenStream(layout::TrackKind::kThread, tid, "t", g.packet_bytes);
    if (!s) {
      t_no_stream_reason = DropReasonOfErrno(errno);
      CountDropReason(t_no_stream_reason, 1);
      t_no_stream = true;
    } else {
      // TensorFlow's profiler names its host lines by std::hash<std::thread::id> (libstdc++'s,
      // like ours), not the tid: kept so that the XSpace import can place them on this thread.
      auto hash = static_cast<int64_t>(std::hash<std::thread::id>{}(std::this_thread::get_id()));
      Lock();
      RegisterStreamLocked(s);
      NoteThreadHashLocked(hash, tid);
      Unlock();
      pthread_setspecific(g.key, s);
      t_stream = s;
      char path[64], comm[64] = {0};
      std::snprintf(path, sizeof path, "/proc/self/task/%llu/comm",
                    static_cast<unsigned long long>(tid));
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd >= 0) {
        ssize_t n = read(fd, comm, sizeof comm - 1);
        close(fd);
        if (n > 0 && comm[n - 1] == '\n') comm[n - 1] = 0;
        if (n > 0) EmitThreadName(comm);
      }
    }
  }
  t_attaching = false;
  return s;
}

void FinishProcess() {
  if (!g.initialised || g.finished) return;
  // Drops counted while busy: the calling thread puts its own in its packet; other threads'
  // go to the process summary only (their packets are theirs to write).
  if (t_stream && !t_stream->busy && t_stream->pending_drops.load(std::memory_order_relaxed))
    FoldDrops(t_stream);
  Lock();
  g.finished = true;
  for (Stream* s = g.streams; s; s = s->next) {
    if (s != t_stream) CountDropReason(kDropBusy, s->pending_drops.load(std::memory_order_relaxed));
    // No packet mapped ahead is left at the end of a file: threads that go on writing after
    // this map their packets themselves.
    CloseSpare(s, true);
  }
  for (int r = 0; r < kDropReasonCount; ++r) {
    uint64_t n = g.drops[r].load();
    if (!n) continue;
    size_t len = std::strlen(kDropReasonText[r]);
    WriteProcEvent(layout::kDropSummary, len + 1 + 8, [&](uint8_t* p) {
      p = PutStr(p, kDropReasonText[r], len);
      return PutU64(p, n);
    });
  }
  if (g.error[0]) {
    size_t len = std::strlen(g.error);
    WriteProcEvent(layout::kNote, 1 + 8 + len + 1, [&](uint8_t* p) {
      p = PutU8(p, static_cast<uint8_t>(layout::Severity::kError));
      p = PutStr(p, "runtime", 7);
      return PutStr(p, g.error, len);
    });
  }
  int64_t off = MeasureRealtimeOffsetNs();
  ClockOffsetEvent("realtime", off);
  g.meta->offset_end_ns = off;
  g.meta->end_state = "exited";
  g.meta->end_offset_by = "process";
  g.meta->tracing_error = g.error;
  g.meta->thread_hashes = g.thread_hashes;
  g.meta->truncated_names = g.truncated_names.load();
  g.meta->classes.clear();
  ListClasses(&g.meta->classes);
  WriteMetadata();
  Unlock();
  if (g.error[0])
    std::fprintf(stderr, "tensortrace: tracing was stopped in process %u: %s\n", g.pid, g.error);
}

void SetProcessRank(int64_t rank, int64_t world_size, const char* source) {
  if (rank < 0 || !source) return;
  Lock();
  if (g.initialised) {
    ProcessMeta& m = *g.meta;
    if (m.rank != rank) m.local_rank = -1;  // the launcher's local rank was of another rank
    m.rank = rank;
    m.world_size = world_size > 0 ? world_size : -1;
    m.rank_source = source;
    WriteMetadata();
  }
  Unlock();
}

void EmitSource(const char* name, const char* detail) {
  // Between capture windows too: the sources arm themselves once, whenever that is.
  if (!Armed() || !name || !detail) return;
  // A forked child opens its trace at its first event: this may be it.
  if (!t_stream && !AttachThread()) return;
  size_t n = strnlen(name, kMaxNameLen), d = strnlen(detail, kMaxNameLen);
  Lock();
  WriteProcEvent(layout::kSource, n + 1 + d + 1, [&](uint8_t* p) {
    p = PutStr(p, name, n);
    return PutStr(p, detail, d);
  });
  Unlock();
}

}  // namespace tt::rt
