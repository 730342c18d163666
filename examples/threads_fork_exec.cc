// A small program to record: worker threads with nested ranges, counters and marks; a forked
// child that annotates too; and an exec of itself in a second child.
//   tensortrace record -- build/tt_example [iterations]
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tensortrace/tensortrace.h"

static void Work(int worker, int iterations) {
  std::string name = "worker-" + std::to_string(worker);
  tt_set_thread_name(name.c_str());
  for (int i = 0; i < iterations; ++i) {
    tt_range_push("step");
    tt_range_push("compute");
    volatile double x = 0;
    for (int k = 0; k < 200; ++k) x = x + k * 0.5;
    tt_range_pop();
    tt_counter("progress", i);
    tt_range_pop();
  }
  tt_mark("worker done");
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--exec-child") == 0) {
    tt_range_push("exec child");
    tt_mark("hello from exec");
    tt_range_pop();
    return 0;
  }
  int iterations = argc > 1 ? std::atoi(argv[1]) : 1000;
  tt_range_push("main");
  std::vector<std::thread> threads;
  for (int w = 0; w < 3; ++w) threads.emplace_back(Work, w, iterations);
  for (auto& t : threads) t.join();

  pid_t forked = fork();
  if (forked == 0) {
    Work(100, iterations / 10);
    _exit(0);
  }
  pid_t execd = fork();
  if (execd == 0) {
    execl("/proc/self/exe", argv[0], "--exec-child", static_cast<char*>(nullptr));
    _exit(127);
  }
  int st1 = 0, st2 = 0;
  waitpid(forked, &st1, 0);
  waitpid(execd, &st2, 0);
  tt_range_pop();
  std::printf("example: %d threads x %d steps, forked and exec'd children done (%s)\n", 3,
              iterations, tt_enabled() ? "traced" : "not traced");
  return WIFEXITED(st1) && WIFEXITED(st2) && WEXITSTATUS(st1) == 0 && WEXITSTATUS(st2) == 0 ? 0 : 1;
}
