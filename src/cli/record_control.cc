#include "cli/record_control.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "cli/record_losses.h"
#include "core/error.h"
#include "core/files.h"
#include "core/time.h"
#include "format/captures.h"

namespace tt::cli {

namespace {

// A line from the client, up to its newline (at most 256 bytes, 5 s).
std::string ReadLine(int fd) {
  std::string line;
  char c;
  pollfd p{fd, POLLIN, 0};
  while (line.size() < 256 && poll(&p, 1, 5000) == 1 && read(fd, &c, 1) == 1 && c != '\n')
    line += c;
  return line;
}

void Say(int fd, const std::string& text) {
  std::string t = text + "\n";
  (void)!send(fd, t.data(), t.size(), MSG_NOSIGNAL);
}

}  // namespace

CaptureControl::CaptureControl(const std::string& dir, int page_fd, const CaptureMode& mode)
    : dir_(dir), page_fd_(page_fd), mode_(mode) {
  if (mode_.on_demand) {
    std::string path = dir_ + "/" + kControlSocket;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path)
      throw Error("record: the trace directory's path is too long for its control socket (" +
                  std::to_string(path.size()) + " bytes, at most " +
                  std::to_string(sizeof addr.sun_path - 1) + "): " + path);
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    // The directory is the user's own (0700): only they can reach the socket.
    if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        chmod(path.c_str(), 0600) != 0 || listen(listen_fd_, 8) != 0)
      throw Error("record: cannot make the control socket " + path + ": " + strerror(errno));
    threads_.emplace_back([this] { Serve(); });
  }
  if (mode_.every_s > 0) threads_.emplace_back([this] { Periodic(); });
  WriteWindows();
}

CaptureControl::~CaptureControl() { Finish(); }

void CaptureControl::Finish() {
  if (done_.exchange(true)) return;
  // The server may start one more answer after done_: join until none is left.
  for (;;) {
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> l(mu_);
      threads.swap(threads_);
    }
    if (threads.empty()) break;
    for (auto& t : threads) t.join();
  }
  Close();
  if (listen_fd_ >= 0) {
    close(listen_fd_);
    unlink((dir_ + "/" + kControlSocket).c_str());
  }
}

bool CaptureControl::Sleep(double seconds) {
  auto until = std::chrono::steady_clock::now() +
               std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
  while (!done_.load()) {
    auto now = std::chrono::steady_clock::now();
    if (now >= until) return true;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(until - now, std::chrono::milliseconds(20)));
  }
  return false;
}

bool CaptureControl::Open(size_t* number, uint32_t step_target) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (done_.load() || (!windows_.empty() && windows_.back().second == 0)) return false;
    windows_.push_back({ReadClockNs(CLOCK_MONOTONIC), 0});
    SetStepTarget(page_fd_, step_target);
    SetCapturing(page_fd_, true);
    *number = windows_.size();
  }
  WriteWindows();  // an open window is listed too (end 0), should record itself be killed
  return true;
}

void CaptureControl::Close() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (windows_.empty() || windows_.back().second != 0) return;
    SetCapturing(page_fd_, false);
    SetStepTarget(page_fd_, 0);
    windows_.back().second = ReadClockNs(CLOCK_MONOTONIC);
  }
  WriteWindows();
}

void CaptureControl::WriteWindows() {
  std::lock_guard<std::mutex> l(mu_);
  try {
    WriteFileAtomic(dir_ + "/" + kCapturesFile, FormatCaptures(windows_));
  } catch (const Error&) {
    // The trace directory is gone or full: the recording says so itself.
  }
}

// A window of for_s seconds every every_s seconds, the first at once.
void CaptureControl::Periodic() {
  for (;;) {
    size_t n;
    Open(&n, 0);
    if (!Sleep(mode_.for_s)) return;
    Close();
    if (!Sleep(mode_.every_s - mode_.for_s)) return;
  }
}

void CaptureControl::Serve() {
  while (!done_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 50) != 1) continue;
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> l(mu_);
    threads_.emplace_back([this, fd] {
      Answer(fd);
      close(fd);
    });
  }
}

// Waits until `steps` steps have ended in the window (the loss page's count), at most
// `seconds`; false when Finish was called meanwhile.
bool CaptureControl::WaitForSteps(uint32_t first, uint64_t steps, double seconds) {
  auto until = std::chrono::steady_clock::now() +
               std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
  while (StepsCounted(page_fd_) - first < steps && std::chrono::steady_clock::now() < until)
    if (!Sleep(0.01)) return false;
  return true;
}

// "capture SECONDS [STEPS]": "started N", then "captured N START_NS END_NS STEPS" once the
// window closed: after SECONDS, or once STEPS steps ended in it (at most SECONDS), or early if
// the command ended; STEPS: the steps the frameworks counted in it. "status": "open N" or
// "closed N" (N windows so far).
void CaptureControl::Answer(int fd) {
  std::string line = ReadLine(fd);
  if (line == "status") {
    std::lock_guard<std::mutex> l(mu_);
    bool open = !windows_.empty() && windows_.back().second == 0;
    Say(fd, std::string(open ? "open " : "closed ") + std::to_string(windows_.size()));
    return;
  }
  double seconds = 0;
  unsigned long long steps = 0;
  int got = std::sscanf(line.c_str(), "capture %lf %llu", &seconds, &steps);
  if (got < 1 || !(seconds > 0 && seconds <= 86400)) {
    Say(fd, "error: expected 'capture SECONDS [STEPS]' (0 < SECONDS <= 86400), got '" + line + "'");
    return;
  }
  size_t n = 0;
  uint32_t first = StepsCounted(page_fd_);
  if (!Open(&n, steps ? static_cast<uint32_t>(first + steps) : 0)) {
    Say(fd, "error: a capture window is open already (one at a time)");
    return;
  }
  Say(fd, "started " + std::to_string(n));
  if (steps)
    WaitForSteps(first, steps, seconds);
  else
    Sleep(seconds);
  Close();
  uint32_t counted = StepsCounted(page_fd_) - first;
  std::lock_guard<std::mutex> l(mu_);
  Say(fd, "captured " + std::to_string(n) + " " + std::to_string(windows_[n - 1].first) + " " +
              std::to_string(windows_[n - 1].second) + " " + std::to_string(counted));
}

}  // namespace tt::cli
