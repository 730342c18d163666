#include "cli/record_losses.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include "core/files.h"
#include "format/args.h"
#include "format/loss_page.h"

namespace tt::cli {

int CreateLossPage(const std::string& dir, bool quiet, bool capturing) {
  std::string path = dir + "/losses";
  // No O_CLOEXEC: the command inherits it. Above the low numbers a program may expect free.
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, kFileMode);
  std::vector<uint8_t> page(kLossBytes, 0);
  Store<uint32_t>(page.data() + kLossOffMagic, kLossMagic);
  Store<uint32_t>(page.data() + kLossOffVersion, kLossVersion);
  Store<uint32_t>(page.data() + kLossOffCapture, capturing ? 1 : 0);
  // Written, not only sized: its blocks are allocated now, so a store into the mapping never
  // needs disk space later (a full disk would make it SIGBUS).
  if (fd < 0 || fchmod(fd, kFileMode) != 0 ||
      pwrite(fd, page.data(), page.size(), 0) != static_cast<ssize_t>(page.size())) {
    if (!quiet)
      std::cerr << "tensortrace record: warning: cannot create " << path << ": "
                << std::strerror(errno) << "; events of processes that cannot write a trace "
                << "will not be counted\n";
    if (fd >= 0) close(fd);
    unlink(path.c_str());
    return -1;
  }
  int high = fcntl(fd, F_DUPFD, 100);
  if (high >= 0) {
    close(fd);
    fd = high;
  }
  struct stat st;
  if (fstat(fd, &st) == 0) {
    std::string v =
        std::to_string(fd) + ":" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    setenv("TENSORTRACE_LOSSES_FD", v.c_str(), 1);
  }
  return fd;
}

void SetCapturing(int fd, bool on) {
  uint32_t v = on ? 1 : 0;
  // The processes map the same page cache: they see the store at once.
  (void)!pwrite(fd, &v, sizeof v, kLossOffCapture);
}

uint32_t StepsCounted(int fd) {
  uint32_t n = 0;
  return pread(fd, &n, sizeof n, kLossOffSteps) == sizeof n ? n : 0;
}

void SetStepTarget(int fd, uint32_t target) {
  (void)!pwrite(fd, &target, sizeof target, kLossOffStepTarget);
}

void EndLossPage(int fd) {
  if (fd < 0) return;
  uint32_t one = 1;
  // The processes map the same page cache: they see the store at once.
  (void)!pwrite(fd, &one, sizeof one, kLossOffEnded);
  close(fd);
}

}  // namespace tt::cli
