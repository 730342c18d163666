// `tensortrace capture TARGET`: asks a running on-demand recording (record --on-demand) for a
// capture window, through the control socket in its trace directory (format/captures.h).
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/error.h"
#include "core/files.h"
#include "format/captures.h"

namespace tt::cli {

namespace {

const char kCaptureHelp[] =
    R"(usage: tensortrace capture TARGET [--duration SECONDS | --steps N] [--status]

Opens a capture window in a running recording made with `record --on-demand`: for SECONDS
(default 5) every traced process writes its events, and the frameworks' profilers
(TensorFlow, JAX, PyTorch) capture, into the same trace; then it is silent again. Waits for
the window to close and prints it. One window at a time; as many per run as wanted.

  TARGET              the recording's directory, or the pid of a process it traces
  --duration SECONDS  the window's length (at most 86400)
  --steps N           close the window once N training steps ended in it (those the
                      framework reports: a Keras fit's, a PyTorch optimizer's, JAX's
                      jax.profiler.StepTraceAnnotation), at most --duration (default
                      then 600 s); exit status 1 if fewer did
  --status            print whether a window is open and how many there were, and exit
  -h, --help          this help
)";

// The trace directory of a traced process: its TENSORTRACE_DIR (readable by its own user only).
std::string DirOfPid(const std::string& pid) {
  std::string env;
  try {
    env = ReadFile("/proc/" + pid + "/environ");
  } catch (const Error&) {
    throw Error("no process " + pid + " of yours is running (or its environment cannot be read)");
  }
  std::istringstream in(env);
  std::string var;
  while (std::getline(in, var, '\0'))
    if (var.rfind("TENSORTRACE_DIR=", 0) == 0) return var.substr(16);
  throw Error("process " + pid + " is not traced by tensortrace record");
}

// Connects to DIR's control socket; one line when it cannot.
int Connect(const std::string& dir) {
  std::string path = dir + "/" + kControlSocket;
  struct stat st;
  if (!IsDirectory(dir)) throw Error(dir + " is not a trace directory");
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == EACCES)
      throw Error("cannot reach " + path + ": permission denied (another user's recording)");
    throw Error(dir + " has no control socket: it is not an on-demand recording " +
                "(`record --on-demand`), or that recording has ended");
  }
  if (!S_ISSOCK(st.st_mode) || st.st_uid != getuid())
    throw Error(path + " is not a control socket of yours");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) throw Error("path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int e = errno;
    if (fd >= 0) close(fd);
    throw Error("the recording in " + dir + " does not answer (" + strerror(e) + "): it has ended");
  }
  return fd;
}

std::string ReadReply(int fd) {
  std::string line;
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

}  // namespace

int Capture(const std::vector<std::string>& argv) {
  ArgReader a("capture", argv);
  std::string target, v;
  double seconds = 0;
  uint64_t steps = 0;
  bool status = false;
  while (!a.Done()) {
    if (a.Flag("-h") || a.Flag("--help")) {
      std::cout << kCaptureHelp;
      return 0;
    } else if (a.Option("--duration", &v)) {
      seconds = ParseSeconds("--duration", v);
      if (seconds <= 0 || seconds > 86400)
        throw Error("capture: --duration must be above 0 and at most 86400 seconds, got " + v);
    } else if (a.Option("--steps", &v)) {
      steps = ParseUint("--steps", v, 1'000'000'000);
      if (steps == 0) throw Error("capture: --steps must be at least 1");
    } else if (a.Flag("--status")) {
      status = true;
    } else if (!a.Peek().empty() && a.Peek()[0] != '-' && target.empty()) {
      target = a.TakePositional();
    } else {
      a.Unknown();
    }
  }
  if (target.empty()) throw Error("capture: no TARGET given (a recording's directory or a pid)");
  if (seconds == 0) seconds = steps ? 600 : 5;
  bool pid = target.find_first_not_of("0123456789") == std::string::npos;
  std::string dir = pid ? DirOfPid(target) : target;
  int fd = Connect(dir);
  std::string ask = status
                        ? "status\n"
                        : "capture " + std::to_string(seconds) + " " + std::to_string(steps) + "\n";
  (void)!send(fd, ask.data(), ask.size(), MSG_NOSIGNAL);
  std::string first = ReadReply(fd);
  std::string last = status || first.rfind("started ", 0) != 0 ? first : ReadReply(fd);
  close(fd);
  if (first.rfind("error: ", 0) == 0) throw Error("capture: " + first.substr(7));
  if (status) {
    std::cout << first << "\n";
    return 0;
  }
  unsigned long n = 0, start = 0, end = 0, counted = 0;
  if (std::sscanf(last.c_str(), "captured %lu %lu %lu %lu", &n, &start, &end, &counted) != 4)
    throw Error("capture: the recording in " + dir + " ended before the window closed");
  std::cout << "tensortrace: capture window " << n << " of " << dir << ": "
            << FormatDuration(end - start);
  if (steps) std::cout << ", " << counted << " step(s)";
  std::cout << "\n";
  if (steps && counted < steps) {
    std::cerr << "tensortrace capture: only " << counted << " of " << steps
              << " step(s) ended in the window before its limit of " << seconds
              << " s (steps are those of a Keras fit or a PyTorch optimizer)\n";
    return 1;
  }
  return 0;
}

}  // namespace tt::cli
