// A program for the tests to record, one behaviour per mode:
//   threads T N      T threads, each N push/pop pairs and N marks
//   fork N           N pairs here, then a forked child does N pairs named "child"
//   exec N           N pairs, then exec of itself as `leaf N`
//   leaf N           N pairs named "leaf"
//   kill N           N pairs, prints "ready <pid>", then writes events until killed
//   segv N           N pairs, then a segmentation fault
//   signals N        N pairs in a loop while a 50 us timer's handler calls tt_mark; prints
//                    the handler's call count
//   exit K           exits with status K after one mark
//   thread-exit N    a thread writes N pairs and exits; the main thread writes N more
//   tasks N          N pairs, prints the names of the process's threads ("tasks NAME ..."), then
//                    N more pairs
//   close-fds N FILE N pairs, closes every descriptor above 2 (as daemons do), writes FILE,
//                    N more pairs, then checks FILE still holds exactly what it wrote
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tensortrace/tensortrace.h"

static void Pairs(const char* name, long n) {
  for (long i = 0; i < n; ++i) {
    tt_range_push(name);
    tt_range_pop();
  }
}

static volatile sig_atomic_t g_handler_calls = 0;
static void OnAlarm(int) {
  g_handler_calls = g_handler_calls + 1;
  tt_mark("from-handler");
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODE ARGS\n", argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  long n = argc > 2 ? std::atol(argv[2]) : 0;
  if (mode == "threads") {
    long per = argc > 3 ? std::atol(argv[3]) : 0;
    std::vector<std::thread> ts;
    for (long t = 0; t < n; ++t)
      ts.emplace_back([t, per] {
        std::string name = "thread-" + std::to_string(t);
        tt_set_thread_name(name.c_str());
        for (long i = 0; i < per; ++i) {
          tt_range_push("work");
          tt_mark("tick");
          tt_range_pop();
        }
        tt_counter("done", static_cast<double>(per));
      });
    for (auto& t : ts) t.join();
    return 0;
  }
  if (mode == "fork") {
    Pairs("parent", n);
    pid_t c = fork();
    if (c == 0) {
      Pairs("child", n);
      _exit(0);
    }
    int st;
    waitpid(c, &st, 0);
    Pairs("parent-after", 1);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
  }
  if (mode == "exec") {
    Pairs("before-exec", n);
    std::string count = std::to_string(n);
    execl("/proc/self/exe", argv[0], "leaf", count.c_str(), static_cast<char*>(nullptr));
    return 127;
  }
  if (mode == "leaf") {
    Pairs("leaf", n);
    return 0;
  }
  if (mode == "kill") {
    Pairs("before-kill", n);
    std::printf("ready %d\n", getpid());
    std::fflush(stdout);
    for (;;) Pairs("after-ready", 1000);
  }
  if (mode == "segv") {
    Pairs("before-segv", n);
    signal(SIGSEGV, SIG_DFL);
    // A real fault (a store to a page with no access), not a null dereference, which
    // UndefinedBehaviorSanitizer would stop before it faults.
    void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *static_cast<volatile int*>(page) = 1;
    return 0;
  }
  if (mode == "signals") {
    signal(SIGALRM, OnAlarm);
    itimerval it{{0, 50}, {0, 50}};
    setitimer(ITIMER_REAL, &it, nullptr);
    Pairs("busy", n);
    itimerval off{};
    setitimer(ITIMER_REAL, &off, nullptr);
    signal(SIGALRM, SIG_IGN);
    std::printf("handler_calls %d\n", static_cast<int>(g_handler_calls));
    return 0;
  }
  if (mode == "exit") {
    tt_mark("exiting");
    return static_cast<int>(n);
  }
  if (mode == "thread-exit") {
    std::thread t([n] { Pairs("short-lived", n); });
    t.join();
    Pairs("main", n);
    return 0;
  }
  if (mode == "tasks") {
    Pairs("before", n);
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
    std::printf("tasks%s\n", names.c_str());
    Pairs("after", n);
    return 0;
  }
  if (mode == "close-fds" && argc > 3) {
    Pairs("before-close", n);
    for (int fd = 3; fd < 1024; ++fd) close(fd);
    int fd = open(argv[3], O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (write(fd, "mine", 4) != 4) return 3;
    Pairs("after-close", n);
    char buf[64] = {0};
    ssize_t got = pread(fd, buf, sizeof buf, 0);
    struct stat st;
    fstat(fd, &st);
    close(fd);
    return got == 4 && std::memcmp(buf, "mine", 4) == 0 && st.st_size == 4 ? 0 : 4;
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
