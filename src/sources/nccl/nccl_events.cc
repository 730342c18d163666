// The NCCL source's events (nccl_events.h), written into the calling thread's own stream as
// communication slices whose names start with "nccl." (docs/trace-format.md lists them and
// their arguments); analysis/comm/comm_collect.cc reads the collectives back by that prefix.
#include "sources/nccl/nccl_events.h"

#include "runtime/emit.h"
#include "runtime/process.h"

using tt::Arg;
using tt::layout::ArgType;
using tt::layout::Category;

namespace {
constexpr uint32_t kMaxArgs = 16;
}  // namespace

extern "C" {

__attribute__((visibility("default"))) uint64_t tt_nccl_now_(void) {
  // A thread's first call: its stream first, so that the start is read on the stream's clock.
  if (!tt::rt::t_stream && tt::rt::Enabled()) tt::rt::AttachThread();
  return tt::rt::ThreadNowNs();
}

__attribute__((visibility("default"))) void tt_nccl_slice_(const char* name, uint64_t start_ns,
                                                           uint64_t end_ns,
                                                           const struct tt_nccl_arg* args,
                                                           uint32_t nargs) {
  if (!tt::rt::Enabled() || !name || (nargs && !args)) return;
  Arg a[kMaxArgs];
  uint32_t n = 0;
  for (uint32_t i = 0; i < nargs && n < kMaxArgs; ++i) {
    a[n] = Arg{};
    a[n].key = tt::rt::InternName(args[i].key);
    if (!a[n].key) continue;
    if (args[i].str) {
      a[n].type = ArgType::kString;
      a[n].v.str = tt::rt::InternName(args[i].str);
      if (!a[n].v.str) continue;
    } else {
      a[n].type = ArgType::kUint;
      a[n].v.u = args[i].u;
    }
    ++n;
  }
  uint64_t end = end_ns ? end_ns : tt::rt::ThreadNowNs();
  tt::rt::EmitComplete(name, Category::kCommunication, end > start_ns ? end - start_ns : 0, a, n,
                       end);
}

__attribute__((visibility("default"))) void tt_nccl_dropped_(uint64_t n) {
  if (tt::rt::Enabled()) tt::rt::CountDropReason(tt::rt::kDropNoSpace, n);
}

}  // extern "C"
