// record's capture windows (record --on-demand, --every S --for C): the loss page's capture
// word switched on and off (every traced process sees it at once, format/loss_page.h), each
// window's times kept in DIR/captures, and the control socket DIR/control.sock that
// `tensortrace capture` asks for a window through.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace tt::cli {

struct CaptureMode {
  bool on_demand = false;  // windows asked for through the control socket
  double every_s = 0;      // > 0: a window of for_s seconds every every_s seconds
  double for_s = 0;
  bool Any() const { return on_demand || every_s > 0; }
};

class CaptureControl {
 public:
  // Starts serving `dir`'s socket (on demand) or the periodic windows; `page_fd` is the loss
  // page's descriptor. Throws tt::Error when the socket cannot be made.
  CaptureControl(const std::string& dir, int page_fd, const CaptureMode& mode);
  ~CaptureControl();
  CaptureControl(const CaptureControl&) = delete;
  CaptureControl& operator=(const CaptureControl&) = delete;
  // The command has ended: an open window closes now, the socket goes, DIR/captures is final.
  void Finish();

 private:
  void Serve();
  void Periodic();
  void Answer(int fd);
  // Opens a window (false if one is open), with the step count at which it has its steps
  // (capture --steps; 0: none); Close ends it and writes DIR/captures.
  bool Open(size_t* number, uint32_t step_target);
  void Close();
  void WriteWindows();
  bool Sleep(double seconds);  // false when Finish was called meanwhile
  bool WaitForSteps(uint32_t first, uint64_t steps, double seconds);

  std::string dir_;
  int page_fd_;
  CaptureMode mode_;
  int listen_fd_ = -1;
  std::mutex mu_;
  std::vector<std::pair<uint64_t, uint64_t>> windows_;  // CLOCK_MONOTONIC ns; end 0: open
  std::atomic<bool> done_{false};
  std::vector<std::thread> threads_;
};

}  // namespace tt::cli
