// Exercises the runtime's per-thread caches of names and classes where they could go wrong
// (tests/runtime/cache_test.cc):
//   TENSORTRACE_DIR=DIR cache_job ROUNDS
// Each round writes, in order:
//   - instants named by one reused buffer whose text changes between calls: the lengths of
//     cache_job::kLens, then a 31-character name and the same with a 32nd character, then the
//     first again; then cache_job::Twins(), each twice;
//   - instants named by texts whose NUL is the last byte of a page followed by an inaccessible
//     page (a 16-byte load past it would crash the program), each twice; two with a null name;
//   - instants "alt" {v} whose value changes width at every call (i8, i16, i32, i64) and a
//     string, so the shapes of one name take turns in its cache set; a counter "alt" too;
//   - the events of cache_job::kMemo through one name pointer, "memo", whose kinds,
//     categories, keys and argument counts change from one to the next;
//   - "fit-i", "fit-f", "fit-u" and "fit-t" (cache_job.h: values at the edges of each
//     encoding, and a key whose type changes).
// Prints "cache done".
#include "cache_job.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>

#include "runtime/emit.h"

using tt::Arg;
using tt::layout::ArgType;
using tt::layout::Category;
namespace rt = tt::rt;

using cache_job::kLens;
using cache_job::kWidths;
using cache_job::Named;

const char kMemoName[] = "memo";  // one pointer for every event of kMemo

int main(int argc, char** argv) {
  long rounds = argc > 1 ? std::atol(argv[1]) : 3;
  char buf[cache_job::kMaxLen + 1];
  long page = sysconf(_SC_PAGESIZE);
  auto* pages = static_cast<char*>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (pages == MAP_FAILED || mprotect(pages + page, page, PROT_NONE) != 0) return 2;
  uint32_t v = rt::InternName("v"), word = rt::InternName("word");
  for (long r = 0; r < rounds; ++r) {
    for (size_t len : kLens) {
      std::string s = Named(len);
      std::memcpy(buf, s.c_str(), s.size() + 1);
      rt::EmitInstant(buf, Category::kUser, nullptr, 0);
    }
    std::string a31(31, 'x'), a32 = a31 + "y";
    for (const std::string* s : {&a31, &a32, &a31}) {
      std::memcpy(buf, s->c_str(), s->size() + 1);
      rt::EmitInstant(buf, Category::kUser, nullptr, 0);
    }
    for (const std::string& s : cache_job::Twins()) {
      std::memcpy(buf, s.c_str(), s.size() + 1);
      rt::EmitInstant(buf, Category::kUser, nullptr, 0);
      rt::EmitInstant(buf, Category::kUser, nullptr, 0);
    }
    for (const std::string& s : cache_job::kEdgeNames) {
      char* edge = pages + page - (s.size() + 1);
      std::memcpy(edge, s.c_str(), s.size() + 1);
      rt::EmitInstant(edge, Category::kUser, nullptr, 0);
      rt::EmitInstant(edge, Category::kUser, nullptr, 0);
    }
    // A null name (ctypes' None) is written as "", each time.
    for (int k = 0; k < 2; ++k) rt::EmitInstant(nullptr, Category::kUser, nullptr, 0);
    for (int k = 0; k < 5; ++k) {
      Arg a;
      a.key = v;
      if (k < 4) {
        a.type = ArgType::kInt;
        a.v.i = kWidths[k] * (r + 1);
      } else {
        a.type = ArgType::kString;
        a.v.str = word;
      }
      rt::EmitInstant("alt", Category::kUser, &a, 1);
      rt::EmitCounter("alt", Category::kUser, static_cast<double>(k + r));
    }
    for (const cache_job::MemoEvent& m : cache_job::kMemo) {
      Arg a[8];
      for (uint32_t i = 0; i < m.nargs; ++i) {
        std::string key = i == 0 && m.other_key ? "other" : "k" + std::to_string(i);
        a[i].key = rt::InternName(key.c_str());
        a[i].v.i = 10 * i + r;
      }
      Category cat = m.framework ? Category::kFrameworkOp : Category::kUser;
      if (m.kind == cache_job::kB) {
        rt::EmitBeginArgs(kMemoName, cat, a, m.nargs);
        rt::EmitEnd();
      } else {
        rt::EmitInstant(kMemoName, cat, a, m.nargs);
      }
    }
  }
  uint32_t fv = rt::InternName("v"), five = rt::InternName("five");
  auto one = [](const char* name, Arg a) { rt::EmitInstant(name, Category::kUser, &a, 1); };
  auto arg = [fv](ArgType type) {
    Arg a;
    a.key = fv;
    a.type = type;
    return a;
  };
  for (int64_t x : cache_job::kFitInts) {
    for (int64_t y : cache_job::kFitInts) {
      for (int64_t v : {x, y}) {
        Arg a = arg(ArgType::kInt);
        a.v.i = v;
        one("fit-i", a);
      }
    }
  }
  for (uint64_t x : cache_job::kFitUints) {
    for (uint64_t y : cache_job::kFitUints) {
      for (uint64_t v : {x, y}) {
        Arg a = arg(ArgType::kUint);
        a.v.u = v;
        one("fit-u", a);
      }
    }
  }
  constexpr size_t kDoubles = std::size(cache_job::kFitDoubleBits);
  for (size_t x = 0; x < kDoubles; ++x) {
    for (size_t y = 0; y < kDoubles; ++y) {
      for (size_t v : {x, y}) {
        Arg a = arg(ArgType::kFloat);
        a.v.f = cache_job::FitDouble(v);
        one("fit-f", a);
      }
    }
  }
  for (int round = 0; round < 2; ++round) {
    for (ArgType t : cache_job::kFitTypes) {
      Arg a = arg(t);
      if (t == ArgType::kFloat) {
        a.v.f = 5;
      } else if (t == ArgType::kString) {
        a.v.str = five;
      } else {
        a.v.i = 5;
      }
      if (round == 1) std::memset(a.pad, 0xab, sizeof a.pad);
      one("fit-t", a);
      one("fit-t", a);
    }
  }
  std::printf("cache done\n");
  return 0;
}
