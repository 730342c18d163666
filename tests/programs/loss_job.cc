// A program for the loss tests (tests/cli/loss_test.cc), one hostile behaviour per mode:
//   unshare N          N pairs "before", unshare(CLONE_NEWUSER), N pairs "after"; prints
//                      "unshare ok" (exit 0) or "unshare failed: ERROR" (exit 3)
//   setuid-fork N      N pairs "parent", then drops to uid/gid 65534 and forks a child that
//                      writes N pairs "child" (it cannot create its trace: permission denied)
//   setuid-exec N      N pairs "parent", drops to uid/gid 65534 and execs itself as `leaf N`
//                      (the new image cannot create its trace; it reaches the loss page only
//                      through the descriptor record left open)
//   leaf N             N pairs "leaf"
//   nofile N           lowers RLIMIT_NOFILE to 3, writes N pairs "main" (no stream can be
//                      opened), then forks a child that writes N pairs "child"; restores the
//                      limit and prints "child PID"
//   two-threads N      starts an idle thread, writes N pairs "main", prints the names of the
//                      process's threads ("tasks NAME ..."), then lets the thread end
//   long-names         one mark with a 1 MB name, one with a 5000-byte name, one "short"
//   daemon N DIR       double-forks a daemon that writes N pairs "daemon", writes DIR/ready (the
//                      middle process ends then) and waits for DIR/go, writes N pairs "late",
//                      writes DIR/done and calls _exit; the parent writes 1000 pairs "parent" and
//                      returns at once
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "tensortrace/tensortrace.h"

static void Pairs(const char* name, long n) {
  for (long i = 0; i < n; ++i) {
    tt_range_push(name);
    tt_range_pop();
  }
}

static int WaitChild(pid_t c) {
  int st = 0;
  while (waitpid(c, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void Touch(const std::string& path) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) close(fd);
}

static int Daemon(long n, const std::string& dir) {
  Pairs("parent", 1000);
  pid_t c = fork();
  if (c != 0) return WaitChild(c);
  setsid();
  // The middle process ends once the daemon has written its first part, so that the daemon is
  // still running, mid-stream, when record ends.
  int ready[2];
  if (pipe(ready) != 0) _exit(4);
  if (fork() != 0) {
    char c;
    close(ready[1]);
    _exit(read(ready[0], &c, 1) == 1 ? 0 : 5);
  }
  close(ready[0]);
  // As daemons do: every descriptor closed (record's output pipes, the loss page's; the
  // runtime keeps its mapping), the standard ones on /dev/null.
  for (int fd = 3; fd < 1024; ++fd)
    if (fd != ready[1]) close(fd);
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd < 3; ++fd) dup2(null, fd);
  Pairs("daemon", n);
  Touch(dir + "/ready");
  (void)!write(ready[1], "r", 1);
  struct stat st;
  for (int i = 0; i < 60000 && stat((dir + "/go").c_str(), &st) != 0; ++i) usleep(1000);
  Pairs("late", n);
  Touch(dir + "/done");
  _exit(0);
}

static std::string TaskNames() {
  std::string names;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      char comm[64] = {0};
      std::string path = std::string("/proc/self/task/") + e->d_name + "/comm";
      if (FILE* f = std::fopen(path.c_str(), "r")) {
        if (std::fgets(comm, sizeof comm, f)) comm[std::strcspn(comm, "\n")] = 0;
        std::fclose(f);
      }
      names += std::string(" ") + comm;
    }
    closedir(d);
  }
  return names;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODE ARGS\n", argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  long n = argc > 2 ? std::atol(argv[2]) : 0;
  if (mode == "unshare") {
    Pairs("before", n);
    if (unshare(CLONE_NEWUSER) != 0) {
      std::printf("unshare failed: %s\n", std::strerror(errno));
      return 3;
    }
    Pairs("after", n);
    std::printf("unshare ok\n");
    return 0;
  }
  if (mode == "setuid-fork") {
    Pairs("parent", n);
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
      std::printf("setuid failed: %s\n", std::strerror(errno));
      return 4;
    }
    // Dumpable again (setuid cleared it), so that a sanitizer's leak check can still inspect
    // this process at its exit.
    prctl(PR_SET_DUMPABLE, 1);
    pid_t c = fork();
    if (c == 0) {
      Pairs("child", n);
      _exit(0);
    }
    std::printf("child %d\n", static_cast<int>(c));
    return WaitChild(c);
  }
  if (mode == "setuid-exec") {
    Pairs("parent", n);
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) return 4;
    std::fflush(stdout);
    execl(argv[0], argv[0], "leaf", argv[2], static_cast<char*>(nullptr));
    return 5;
  }
  if (mode == "leaf") {
    Pairs("leaf", n);
    std::printf("leaf %d\n", static_cast<int>(getpid()));
    return 0;
  }
  if (mode == "nofile") {
    struct rlimit old, rl;
    if (getrlimit(RLIMIT_NOFILE, &old) != 0) return 4;
    rl = {3, old.rlim_max};
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) return 4;
    Pairs("main", n);
    std::fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
      Pairs("child", n);
      _exit(0);
    }
    int st = WaitChild(c);
    // Restored for the exit (a sanitizer's leak check opens files then).
    setrlimit(RLIMIT_NOFILE, &old);
    std::printf("child %d\n", static_cast<int>(c));
    return st;
  }
  if (mode == "two-threads") {
    int go[2];
    if (pipe(go) != 0) return 4;
    std::thread idle([&] {
      char c;
      (void)!read(go[0], &c, 1);
    });
    Pairs("main", n);
    std::printf("tasks%s\n", TaskNames().c_str());
    (void)!write(go[1], "x", 1);
    idle.join();
    return 0;
  }
  if (mode == "long-names") {
    std::string huge(1 << 20, 'h'), big(5000, 'b');
    tt_mark(huge.c_str());
    tt_mark(big.c_str());
    tt_mark("short");
    return 0;
  }
  if (mode == "daemon" && argc > 3) return Daemon(n, argv[3]);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
