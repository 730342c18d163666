// Writes events of every kind that event classes cover, through the runtime's internal
// emitters, with values the test can recompute (tests/format/event_class_test.cc):
//   TENSORTRACE_DIR=DIR class_job N
// For i in 0..N-1: instant "tick" {step = i * 37 (int, every width from i8 to i32 as i grows),
// loss = i / 2 (double, f32 on disk), unit = "ms"}; counter "queue" = i + 0.25; complete
// "work" of duration i {bytes = i * 1000}; slice "phase" {n = -i} around slice "plain"; an
// instant "wide" with 8 arguments k0..k7 = i + k (more than a class holds). Then 300 instants
// "name-K" {k = K} (more names than a process has classes), then "name-0" and "name-299"
// {k = -1 - r} for r in 0..4, alternately; then a fork whose child writes N more "tick"
// instants. Prints "classes done".
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/emit.h"

using tt::Arg;
using tt::layout::ArgType;
using tt::layout::Category;
namespace rt = tt::rt;

namespace {

Arg Int(uint32_t key, int64_t v) {
  Arg a;
  a.key = key;
  a.type = ArgType::kInt;
  a.v.i = v;
  return a;
}

void Ticks(long n) {
  uint32_t step = rt::InternName("step"), loss = rt::InternName("loss"),
           unit = rt::InternName("unit"), ms = rt::InternName("ms");
  for (long i = 0; i < n; ++i) {
    Arg a[3] = {Int(step, i * 37), {}, {}};
    a[1].key = loss;
    a[1].type = ArgType::kFloat;
    a[1].v.f = static_cast<double>(i) / 2;
    a[2].key = unit;
    a[2].type = ArgType::kString;
    a[2].v.str = ms;
    rt::EmitInstant("tick", Category::kUser, a, 3);
  }
}

}  // namespace

int main(int argc, char** argv) {
  long n = argc > 1 ? std::atol(argv[1]) : 100;
  Ticks(n);
  uint32_t bytes = rt::InternName("bytes"), nkey = rt::InternName("n");
  uint32_t keys[8];
  for (int k = 0; k < 8; ++k) keys[k] = rt::InternName(("k" + std::to_string(k)).c_str());
  for (long i = 0; i < n; ++i) {
    rt::EmitCounter("queue", Category::kAllocation, static_cast<double>(i) + 0.25);
    Arg b[1] = {Int(bytes, i * 1000)};
    rt::EmitComplete("work", Category::kFrameworkOp, static_cast<uint64_t>(i), b, 1);
    Arg p[1] = {Int(nkey, -i)};
    rt::EmitBeginArgs("phase", Category::kStep, p, 1);
    rt::EmitBegin("plain", Category::kUser);
    rt::EmitEnd();
    rt::EmitEnd();
    Arg w[8];
    for (int k = 0; k < 8; ++k) w[k] = Int(keys[k], i + k);
    rt::EmitInstant("wide", Category::kUser, w, 8);
  }
  uint32_t kk = rt::InternName("k");
  for (int k = 0; k < 300; ++k) {
    Arg a[1] = {Int(kk, k)};
    rt::EmitInstant(("name-" + std::to_string(k)).c_str(), Category::kPython, a, 1);
  }
  // The first name again (it has a class) and the last (written without one), alternately.
  std::string first = "name-0", last = "name-299";
  for (int r = 0; r < 5; ++r) {
    Arg a[1] = {Int(kk, -1 - r)};  // as narrow as name-0's k (a class includes the width)
    rt::EmitInstant(first.c_str(), Category::kPython, a, 1);
    rt::EmitInstant(last.c_str(), Category::kPython, a, 1);
  }
  pid_t child = fork();
  if (child == 0) {
    Ticks(n);
    std::exit(0);  // exit, not _exit: the runtime writes the classes into the metadata at exit
  }
  int st = 0;
  waitpid(child, &st, 0);
  std::printf("classes done\n");
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
