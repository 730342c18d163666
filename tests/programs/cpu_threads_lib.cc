// Two native threads that no Python thread state ever names (as gloo's, oneDNN's or
// TensorFlow's pool threads), for tests/programs/cpu_threads.py: in each step, "tt-spinner" spins
// for MS ms inside a range "spin_work" and "tt-sleeper" sleeps as long inside "sleep_work",
// while the caller's thread waits for both inside a step range "train_step". The ranges go
// through tensortrace's C API (include/tensortrace/tensortrace.h), found in the preloaded
// runtime; without it the threads work unrecorded.
#include <dlfcn.h>
#include <time.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace {

using Push = void (*)(const char*);
using Pop = void (*)();
using Name = void (*)(const char*);

struct Api {
  Push push = reinterpret_cast<Push>(dlsym(RTLD_DEFAULT, "tt_range_push"));
  Pop pop = reinterpret_cast<Pop>(dlsym(RTLD_DEFAULT, "tt_range_pop"));
  Name name = reinterpret_cast<Name>(dlsym(RTLD_DEFAULT, "tt_set_thread_name"));
  void Begin(const char* n) const {
    if (push) push(n);
  }
  void End() const {
    if (pop) pop();
  }
};

int64_t CpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// A step's go and its two ends, shared by the caller and the two threads.
struct Steps {
  std::mutex mu;
  std::condition_variable cv;
  int go = 0;    // steps started
  int done = 0;  // threads' ends of steps
  bool stop = false;
};

void Worker(Steps* s, const Api* api, bool spin, int ms) {
  if (api->name) api->name(spin ? "tt-spinner" : "tt-sleeper");
  for (int step = 1;; ++step) {
    {
      std::unique_lock<std::mutex> lock(s->mu);
      s->cv.wait(lock, [&] { return s->go >= step || s->stop; });
      if (s->stop) return;
    }
    api->Begin(spin ? "spin_work" : "sleep_work");
    if (spin) {  // its own CPU time, so that a descheduled spinner still spins MS ms of CPU
      int64_t until = CpuNs() + int64_t{ms} * 1000000;
      while (CpuNs() < until) {
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
    api->End();
    {
      std::lock_guard<std::mutex> lock(s->mu);
      ++s->done;
    }
    s->cv.notify_all();
  }
}

}  // namespace

// Runs `steps` steps of `ms` ms; the threads start `settle_ms` before the first (the sampler
// lists a process's threads every 50 ms). Called through ctypes (without the GIL).
extern "C" __attribute__((visibility("default"))) void cpu_threads_run(int steps, int ms,
                                                                       int settle_ms) {
  static const Api api;
  Steps s;
  std::thread spinner(Worker, &s, &api, true, ms), sleeper(Worker, &s, &api, false, ms);
  std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
  for (int step = 1; step <= steps; ++step) {
    api.Begin("train_step");
    {
      std::lock_guard<std::mutex> lock(s.mu);
      s.go = step;
    }
    s.cv.notify_all();
    std::unique_lock<std::mutex> lock(s.mu);
    s.cv.wait(lock, [&] { return s.done >= 2 * step; });
    lock.unlock();
    api.End();
  }
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.stop = true;
  }
  s.cv.notify_all();
  spinner.join();
  sleeper.join();
}
