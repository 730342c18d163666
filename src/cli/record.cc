// `tensortrace record`: runs a command with the runtime preloaded, follows its children, and
// leaves a finalised trace directory.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <thread>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/record_control.h"
#include "cli/record_finish.h"
#include "cli/record_import.h"
#include "cli/record_losses.h"
#include "cli/record_output.h"
#include "cli/record_python.h"
#include "cli/record_sources.h"
#include "cli/record_tables.h"
#include "cli/trace_dir.h"
#include "core/files.h"
#include "core/ids.h"
#include "core/time.h"
#include "core/tsc.h"
#include "format/hardware.h"
#include "format/import/memory_budget.h"
#include "format/import/untrusted.h"
#include "format/launcher.h"
#include "format/repair.h"
#include "model/inventory.h"
#include "model/job/images.h"
#include "sources/registry.h"

namespace tt::cli {

using model::Drops;
using model::ProcessSummary;
using model::Summarise;
using model::ThreadSummary;
using model::TraceSummary;

namespace {

const char kRecordHelp[] =
    R"(usage: tensortrace record [-o DIR] [--force] [--buffer-size BYTES] [--max-size BYTES]
                          [--wait-children SECONDS] [--import-max-size BYTES]
                          [--import-max-memory BYTES] [--quiet]
                          [--on-demand | --every S --for C]
                          [--tf-host-level 1|2|3]
                          [--python-tracer] [--steps A:B] [--window-s N] [--tables]
                          [--tf-cpu-allocator bfc|default] [--sources LIST]
                          -- COMMAND [ARGS...]

Runs COMMAND with tracing on in it and in every process it starts, and writes one trace
directory. Exits with COMMAND's exit status (128+N if a signal N ended it).
ITT-instrumented libraries (oneDNN, TensorFlow's included) report into the trace: unless they
are set already, INTEL_LIBITTNOTIFY64 names the runtime library, INTEL_ITTNOTIFY_GROUPS=all
and ONEDNN_ITT_TASK_LEVEL=2 (every primitive). NVTX ranges and marks (NCCL, TensorFlow/JAX/XLA
annotations, PyTorch's emit_nvtx) report too: unless it is set already, NVTX_INJECTION64_PATH
names the runtime library. NCCL reports its collectives, proxy and network work through our
profiler plugin: unless it is set already, NCCL_PROFILER_PLUGIN names libtensortrace_nccl.so.

  -o, --output DIR         trace directory (default: tensortrace-YYYYMMDD-HHMMSS here); %h,
                           %r, %p expand to the host, the launcher's rank (RANK,
                           OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, TF_CONFIG) and pid,
                           so each rank of a launcher records its own: -o 'out/%h-%r')
  --force                  reuse DIR if it holds an earlier trace (its content is replaced;
                           never while another record writes into DIR)
  --buffer-size BYTES      size of each thread's mapped packet (default 1M, at least 64K;
                           K, M and G suffixes)
  --max-size BYTES         stop writing once a process's streams reach this size; further
                           events are dropped and counted (default: no limit)
  --wait-children SECONDS  after COMMAND exits, how long to wait for processes it left
                           running (default 5); the streams of those still running then are
                           closed at their packets (docs/trace-format.md)
  --import-max-size BYTES  the largest file of a framework profile (.xplane.pb, capture.json)
                           read back into the trace; a larger one is skipped with a warning
                           (default 1G; K, M and G suffixes)
  --import-max-memory BYTES  record's memory past which importing a profile stops, keeping
                           the events read so far and saying so (default: half the memory
                           available when the import starts, at least 256M)
  --on-demand              every source armed, nothing written until `tensortrace capture
                           DIR` opens a capture window (several per run; the frameworks'
                           profilers are started and stopped with each)
  --every S --for C        a C-second capture window every S seconds, the first at once: a
                           long job traced for its whole life at the cost the user chooses
  --quiet                  print only the trace path
  -h, --help               this help

)";

volatile sig_atomic_t g_forward[65];
volatile sig_atomic_t g_child = 0;
// Passed on to COMMAND: by default each would end `record` and orphan it.
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

void OnSignal(int sig, siginfo_t* info, void*) {
  // Signals the terminal sends reach the whole process group, COMMAND included: forward only
  // those sent to us alone (kill, timeout, a supervisor).
  if (info && info->si_code == SI_KERNEL) return;
  // At once (kill is async-signal-safe): the main loop may already sit in a blocking waitpid.
  int e = errno;
  if (g_child > 0)
    kill(g_child, sig);
  else if (sig > 0 && sig < 65)
    g_forward[sig] = 1;  // before fork: the main loop sends it
  errno = e;
}

std::string DefaultDir() {
  char buf[64];
  time_t now = time(nullptr);
  struct tm tm;
  localtime_r(&now, &tm);
  strftime(buf, sizeof buf, "tensortrace-%Y%m%d-%H%M%S", &tm);
  std::string d = buf;
  for (int k = 1; PathExists(d); ++k) d = std::string(buf) + "-" + std::to_string(k);
  return d;
}

// The runtime library: beside this executable (the build tree) or in ../lib (installed).
std::string FindRuntime() {
  if (const char* env = std::getenv("TENSORTRACE_LIB")) return env;
  std::filesystem::path exe = std::filesystem::canonical("/proc/self/exe");
  for (auto dir : {exe.parent_path(), exe.parent_path().parent_path() / "lib"}) {
    auto p = dir / "libtensortrace.so";
    if (std::filesystem::exists(p)) return p.string();
  }
  throw Error("record: cannot find libtensortrace.so beside " + exe.string() +
              " or in ../lib; set TENSORTRACE_LIB to its path");
}

// JSON text of `s`; bytes that are not valid UTF-8 (a command line may hold any) are written as
// the text \xNN, so the file stays valid JSON (format/import/untrusted.h).
std::string JsonEscape(const std::string& raw) {
  std::string s = ValidUtf8(raw), o;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o;
}

// record's options, as parsed.
struct RecordOptions {
  std::string dir;
  bool force = false, quiet = false, tables = false;
  uint64_t buffer = 1 << 20, max_size = 0;
  uint64_t import_max = kImportMaxBytes;  // per file read back from the program
  uint64_t import_memory = 0;             // 0: DefaultImportBudget() when the import starts
  double wait_children = 5;
  std::vector<std::string> cmd;
  PythonCaptureOptions py;
  CaptureMode capture;
};

// The capture windows' options, checked against each other and the framework options.
void CheckCaptureMode(const RecordOptions& o) {
  const CaptureMode& c = o.capture;
  if ((c.every_s > 0) != (c.for_s > 0))
    throw Error("record: --every and --for go together (a window of C seconds every S)");
  if (c.every_s > 0 && c.for_s >= c.every_s)
    throw Error("record: --for must be shorter than --every (a window of C seconds every S)");
  if (c.on_demand && c.every_s > 0)
    throw Error("record: --on-demand and --every are two ways of choosing windows: give one");
  if (c.Any() && (o.py.window_s > 0 || !o.py.steps.empty()))
    throw Error(
        "record: --window-s and --steps choose what the frameworks' profilers capture; "
        "with --on-demand or --every the capture windows do");
}

// Parses record's arguments into `o`; false when it printed --help instead.
bool ParseRecordArgs(const std::vector<std::string>& argv, RecordOptions* o) {
  ArgReader a("record", argv);
  std::string v;
  while (!a.Done()) {
    if (a.Flag("-h") || a.Flag("--help")) {
      std::cout << kRecordHelp << kRecordTablesHelp << sources::SourcesHelp() << kPythonCaptureHelp;
      return false;
    } else if (a.Option("-o", &o->dir) || a.Option("--output", &o->dir)) {
      if (o->dir.empty()) throw Error("record: -o: the output directory name is empty");
    } else if (a.Flag("--force")) {
      o->force = true;
    } else if (a.Flag("--quiet")) {
      o->quiet = true;
    } else if (a.Flag("--tables")) {
      o->tables = true;
    } else if (a.Flag("--on-demand")) {
      o->capture.on_demand = true;
    } else if (a.Option("--every", &v)) {
      o->capture.every_s = ParseSeconds("--every", v);
    } else if (a.Option("--for", &v)) {
      o->capture.for_s = ParseSeconds("--for", v);
    } else if (a.Option("--buffer-size", &v)) {
      o->buffer = ParseBytes("--buffer-size", v);
      if (o->buffer < (64 << 10) || o->buffer > (1ull << 30))
        throw Error("record: --buffer-size must be between 64K and 1G, got " + v);
    } else if (a.Option("--max-size", &v)) {
      o->max_size = ParseBytes("--max-size", v);
    } else if (a.Option("--import-max-size", &v)) {
      o->import_max = ParseBytes("--import-max-size", v);
    } else if (a.Option("--import-max-memory", &v)) {
      o->import_memory = ParseBytes("--import-max-memory", v);
      if (o->import_memory == 0) throw Error("record: --import-max-memory must be above 0");
    } else if (a.Option("--wait-children", &v)) {
      o->wait_children = ParseSeconds("--wait-children", v);
    } else if (a.Option("--sources", &v)) {
      SetSources(v);
    } else if (ParsePythonCaptureOption(a, &o->py)) {
    } else if (a.Flag("--")) {
      o->cmd = a.Rest();
    } else if (a.Peek().empty() || a.Peek()[0] != '-') {
      o->cmd = a.Rest();  // the command may follow without "--"
    } else {
      a.Unknown();
    }
  }
  return true;
}

// What a recording shares with every process it traces.
struct Session {
  std::string id;           // TENSORTRACE_SESSION
  uint64_t start_mono = 0;  // CLOCK_MONOTONIC at start
};

// The environment the command inherits: the runtime preloaded, the session's settings, and
// each source that is on armed through the sources' table (sources/registry.h).
Session SetEnvironment(const RecordOptions& o, const std::string& abs_dir, const std::string& lib) {
  uint64_t mult = CalibrateTsc(20);
  int64_t clock_offset = MeasureRealtimeOffsetNs();
  Session s;
  s.id = UuidToString(RandomUuid());
  s.start_mono = ReadClockNs(CLOCK_MONOTONIC);

  std::string preload = lib;
#ifdef TT_SANITIZER_PRELOAD
  preload = std::string(TT_SANITIZER_PRELOAD) + ":" + preload;
#endif
  if (const char* old = std::getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv("TENSORTRACE_DIR", abs_dir.c_str(), 1);
  setenv("TENSORTRACE_SESSION", s.id.c_str(), 1);
  setenv("TENSORTRACE_CLOCK_OFFSET", std::to_string(clock_offset).c_str(), 1);
  setenv("TENSORTRACE_TSC", std::to_string(mult).c_str(), 1);
  setenv("TENSORTRACE_BUFFER_SIZE", std::to_string(o.buffer).c_str(), 1);
  if (o.max_size) setenv("TENSORTRACE_MAX_BYTES", std::to_string(o.max_size).c_str(), 1);
  sources::ArmOptions arm;
  arm.runtime_lib = lib;
  arm.quiet = o.quiet;
  arm.python = o.py;
  sources::ArmSources(SourceOn, arm);
  return s;
}

// The command, once started: its pid, and errno when exec failed (0: it ran).
struct Spawned {
  pid_t child = -1;
  int exec_errno = 0;
};

// What `record` changes for itself and gives the command back as it found it. SIGXFSZ and
// SIGPIPE ignored: a file-size limit or a closed pipe (a reader of a planted FIFO, a closed
// stderr) makes record's writes fail with a message instead of ending it, which would lose the
// command's exit status. RLIMIT_FSIZE raised to its hard limit: the user's limit is the
// program's, not the trace's; inside the program the runtime keeps to it (its stream files
// stop growing there and the events are counted as dropped, "file size limit").
struct KeptForCommand {
  struct sigaction xfsz {};
  struct sigaction pipe {};
  struct rlimit fsize {};
  bool have_fsize = false;
};

KeptForCommand ShieldRecord() {
  KeptForCommand k;
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGXFSZ, &ign, &k.xfsz);
  sigaction(SIGPIPE, &ign, &k.pipe);
  if (getrlimit(RLIMIT_FSIZE, &k.fsize) == 0) {
    k.have_fsize = true;
    struct rlimit raised = k.fsize;
    raised.rlim_cur = raised.rlim_max;
    setrlimit(RLIMIT_FSIZE, &raised);
  }
  return k;
}

// In the command's process, before exec.
void GiveBack(const KeptForCommand& k) {
  sigaction(SIGXFSZ, &k.xfsz, nullptr);
  sigaction(SIGPIPE, &k.pipe, nullptr);
  if (k.have_fsize) setrlimit(RLIMIT_FSIZE, &k.fsize);
}

// Starts the command in a child process; an exec failure comes back through a pipe.
Spawned Spawn(const std::vector<std::string>& cmd, const KeptForCommand& kept) {
  // Orphaned descendants are re-parented to us, so we can wait for them too.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  struct sigaction sa {};
  sa.sa_sigaction = OnSignal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  for (int s : kForwarded) sigaction(s, &sa, nullptr);

  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) throw Error("record: pipe: " + std::string(strerror(errno)));
  pid_t child = fork();
  if (child < 0) throw Error("record: fork: " + std::string(strerror(errno)));
  if (child == 0) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int s : kForwarded) sigaction(s, &dfl, nullptr);
    GiveBack(kept);
    std::vector<char*> args;
    for (auto& s : cmd) args.push_back(const_cast<char*>(s.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    int e = errno;
    if (write(err_pipe[1], &e, sizeof e) < 0) {
    }
    _exit(127);
  }
  g_child = child;
  close(err_pipe[1]);
  int exec_errno = 0;
  ssize_t got;
  do {
    got = read(err_pipe[0], &exec_errno, sizeof exec_errno);
  } while (got < 0 && errno == EINTR);
  close(err_pipe[0]);
  return {child, got == static_cast<ssize_t>(sizeof exec_errno) ? exec_errno : 0};
}

// Waits for the command, forwarding the signals sent to us, then up to `wait_children`
// seconds for the processes it left; returns the command's wait status.
int WaitForAll(pid_t child, double wait_children) {
  int status = 0;
  bool main_done = false;
  auto reap_deadline = std::chrono::steady_clock::time_point::max();
  for (;;) {
    for (int s = 1; s < 65; ++s)
      if (g_forward[s]) {
        g_forward[s] = 0;
        kill(child, s);
      }
    int st;
    pid_t p = waitpid(-1, &st, main_done ? WNOHANG : 0);
    if (p == child) {
      g_child = 0;  // reaped: its pid may be reused
      status = st;
      main_done = true;
      reap_deadline = std::chrono::steady_clock::now() +
                      std::chrono::milliseconds(static_cast<int64_t>(wait_children * 1000));
      continue;
    }
    if (p > 0) continue;
    if (p < 0 && errno == EINTR) continue;
    if (p < 0 && errno == ECHILD) break;
    if (main_done) {
      if (std::chrono::steady_clock::now() >= reap_deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  return status;
}

// The drops' causes, processes that could not write a trace, names cut (summary lines).
void PrintLosses(const TraceSummary& sum) {
  std::map<std::string, uint64_t> why;
  uint64_t cut = 0;
  for (const auto& p : sum.processes) {
    for (const auto& [reason, n] : p.drop_reasons) why[reason] += n;
    cut += p.meta.truncated_names;
  }
  for (const auto& l : sum.lost)
    for (uint32_t c = 0; c < kLossCauseCount; ++c)
      if (l.counts[c]) why[LossCauseText(c)] += l.counts[c];
  if (!why.empty()) {
    std::string list;
    for (const auto& [reason, n] : why)
      list += (list.empty() ? "" : ", ") + reason + ": " + std::to_string(n);
    std::cerr << "tensortrace: dropped by cause: " << TerminalSafe(list) << "\n";
  }
  if (!sum.lost.empty())
    std::cerr << "tensortrace: " << sum.lost.size()
              << " process(es) could not write a trace; their events are counted as dropped "
                 "(tensortrace info)\n";
  if (cut)
    std::cerr << "tensortrace: " << cut << " name(s) longer than 4096 bytes were cut to 4096\n";
}

// Writes the session file (tensortrace.json) and prints the summary.
void WriteSession(const std::string& dir, const RecordOptions& o, const Session& session,
                  int exit_code, uint64_t end_mono, size_t repaired, int exec_errno) {
  RemovePlantedSessionFile(dir + "/tensortrace.json", "record");
  try {
    TraceSummary sum = Summarise(OpenTrace(dir));
    uint64_t drops = model::TotalDrops(sum);
    std::string cmdline;
    for (const auto& c : o.cmd) cmdline += (cmdline.empty() ? "" : " ") + c;
    std::string json = "{\n  \"tool\": \"tensortrace\",\n  \"session\": \"" + session.id +
                       "\",\n  \"command\": \"" + JsonEscape(cmdline) +
                       "\",\n  \"exit_code\": " + std::to_string(exit_code) +
                       ",\n  \"duration_ns\": " + std::to_string(end_mono - session.start_mono) +
                       ",\n  \"finalised_by_record\": " + std::to_string(repaired) + "\n}\n";
    WriteHardwareFile(dir);  // the peak MFU is measured against (format/hardware.h)
    try {
      WriteFileAtomic(dir + "/tensortrace.json", json);
    } catch (const Error& e) {
      // A directory there, or a plant since: refused, never opened; the streams are there all
      // the same, and readers say the session file is missing.
      std::cerr << "tensortrace record: warning: " << TerminalSafe(e.what())
                << "; the trace has no session file\n";
    }
    if (o.quiet) {
      std::cerr << dir << "\n";
    } else {
      std::cerr << "tensortrace: trace written to " << TerminalSafe(dir) << "\n"
                << "tensortrace: " << sum.processes.size() << " processes, " << sum.threads
                << " threads, " << sum.events << " events, " << drops << " dropped, "
                << FormatDuration(end_mono - session.start_mono) << "\n";
      PrintLosses(sum);
      for (const auto& pr : sum.problems)
        std::cerr << "tensortrace: warning: " << TerminalSafe(pr.ToString()) << "\n";
    }
  } catch (const std::exception& e) {
    if (exec_errno == 0)
      std::cerr << "tensortrace record: no trace was written: " << TerminalSafe(e.what()) << "\n";
  }
}

}  // namespace

int Record(const CommandArgs& argv) {
  RecordOptions o;
  if (!ParseRecordArgs(argv, &o)) return 0;
  if (o.cmd.empty()) throw Error("record: no command given (usage: tensortrace record -- COMMAND)");
  CheckCaptureMode(o);
  if (o.dir.empty()) o.dir = DefaultDir();
  if (o.dir.find('%') != std::string::npos)
    o.dir = ExpandOutputPattern(o.dir, HostName(),
                                RankFromEnvironment([](const char* k) { return std::getenv(k); }),
                                getpid());
  const std::string& dir = o.dir;
  KeptForCommand kept = ShieldRecord();
  // Everything record writes lies where the command can write too: regular files only.
  WriteRegularFilesOnly();
  // Held (flock) until record exits: a second recording into `dir` is refused meanwhile.
  int lock = PrepareTraceDir(dir, o.force);
  (void)lock;
  std::string abs_dir = std::filesystem::absolute(dir).lexically_normal().string();
  std::string lib = FindRuntime();
  Session session = SetEnvironment(o, abs_dir, lib);

  int losses = CreateLossPage(abs_dir, o.quiet, !o.capture.Any());
  std::unique_ptr<CaptureControl> control;
  if (o.capture.Any()) {
    if (losses < 0) throw Error("record: no capture window can open without the loss page");
    setenv("TENSORTRACE_ON_DEMAND", "1", 1);
    control = std::make_unique<CaptureControl>(abs_dir, losses, o.capture);
  } else {
    unsetenv("TENSORTRACE_ON_DEMAND");  // a recording inside an on-demand one records whole
  }
  Spawned run = Spawn(o.cmd, kept);
  int status = WaitForAll(run.child, o.wait_children);
  // What the command created in the trace (xspace/ captures) under its own umask.
  MakeTreePrivate(dir);
  if (control) control->Finish();
  EndLossPage(losses);
  int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (run.exec_errno) {
    std::cerr << "tensortrace record: cannot run '" << o.cmd[0] << "': " << strerror(run.exec_errno)
              << "\n";
    exit_code = run.exec_errno == ENOENT ? 127 : 126;
  }
  uint64_t end_mono = ReadClockNs(CLOCK_MONOTONIC);

  size_t repaired = FinaliseProcesses(dir, run.child, run.exec_errno, "record");
  // Profiles the frameworks wrote (TensorFlow/JAX XSpace) become streams of their processes.
  ImportCapturedProfiles(dir, o.quiet,
                         {o.import_max, o.import_memory ? o.import_memory : DefaultImportBudget()});
  DeclareNamesOfEndedProcesses(dir, "record");
  WriteSession(dir, o, session, exit_code, end_mono, repaired, run.exec_errno);
  if (o.tables && !run.exec_errno) WriteRecordTables(dir, o.quiet);
  return exit_code;
}

}  // namespace tt::cli
