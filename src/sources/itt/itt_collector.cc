// The ITT collector. An instrumented library's static part dlopens the library named by
// INTEL_LIBITTNOTIFY64 (`record` names libtensortrace.so, the library it preloads) and calls its
// __itt_api_init, which fills the static part's table of function pointers with the functions
// below. Each one is a thin adapter over the runtime's emitters:
//   task / region begin-end        nested slices on the calling thread, with a "domain"
//                                  argument; oneDNN domains give primitive slices named by the
//                                  task (the primitive kind), other domains user slices
//   metadata_add / metadata_str_add  an instant named by the key inside the open task
//   frame_begin/end/submit_v3      step slices named by the domain (so --step-name works)
//   counters                       counter events;  thread_set_name: the thread's name
//   marker                         an instant;  event_start/end: nested slices
// Entries we do not implement keep the static part's stubs, which return 0 once initialised.
// Each domain is listed for `info` at its first use in a process.
#include <pthread.h>

#include <cstdio>
#include <cstring>
#include <type_traits>

#include "core/time.h"
#include "format/keys.h"
#include "runtime/emit.h"
#include "sources/itt/itt_abi.h"
#include "sources/itt/itt_handles.h"

namespace tt::itt {
namespace {

using layout::ArgType;
using layout::Category;

// ITT slices this thread opened and has not closed, so that an unmatched end never closes an
// enclosing slice that someone else opened.
thread_local constinit uint32_t t_open __attribute__((tls_model("initial-exec"))) = 0;
// A forked child's trace holds none of the parent's begins: the forking thread starts afresh.
void ForgetOpenInChild() { t_open = 0; }
[[maybe_unused]] const int g_atfork = pthread_atfork(nullptr, nullptr, ForgetOpenInChild);

const char* NameOf(const StringHandle* h) { return h && h->strA ? h->strA : "(unnamed)"; }
const char* NameOf(const Domain* d) { return d && d->nameA ? d->nameA : "(unnamed)"; }

// The "domain" argument of a user annotation; false when names are exhausted.
bool DomainArg(const Domain* d, Arg* a) {
  a->key = rt::InternName(keys::kDomain);
  a->type = ArgType::kString;
  a->v.str = rt::InternName(NameOf(d));
  return a->key && a->v.str;
}

// Lists the domain for `info` (a source event) at its first use in this process. A domain's
// extra2 is reserved to the collector: it holds the process generation it was reported in.
// Two threads may both report it first; `info` keeps one.
void ReportDomainSlow(const Domain* d, uintptr_t gen) {
  __atomic_store_n(&const_cast<Domain*>(d)->extra2, reinterpret_cast<void*>(gen), __ATOMIC_RELAXED);
  if (d->nameA) rt::EmitSource("itt", d->nameA);
}
inline void ReportDomain(const Domain* d) {
  uintptr_t gen = g_process_generation.load(std::memory_order_relaxed);
  auto seen = reinterpret_cast<uintptr_t>(__atomic_load_n(&d->extra2, __ATOMIC_RELAXED));
  if (__builtin_expect(seen != gen, 0)) ReportDomainSlow(d, gen);
}

void BeginSlice(const Domain* d, const char* name) {
  if (!d || !rt::Enabled()) return;
  ReportDomain(d);
  ++t_open;
  Category cat = CategoryOf(d);
  Arg a;
  // A primitive carries its domain too: oneDNN's says what the task is (execution).
  if ((cat == Category::kUser || cat == Category::kPrimitive) && DomainArg(d, &a))
    rt::EmitBeginArgs(name, cat, &a, 1);
  else
    rt::EmitBegin(name, cat);
}

void EndSlice() {
  if (t_open == 0) return;
  --t_open;
  rt::EmitEnd();
}

// ---- the ITT entries (signatures of ittnotify.h) ----

Domain* DomainCreate(const char* name) { return CreateDomain(name); }

StringHandle* StringHandleCreate(const char* name) { return CreateStringHandle(name); }

void TaskBegin(const Domain* d, Id, Id, StringHandle* name) { BeginSlice(d, NameOf(name)); }

void TaskBeginFn(const Domain* d, Id, Id, void* fn) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "fn@%p", fn);
  BeginSlice(d, buf);
}

void TaskEnd(const Domain*) { EndSlice(); }

void RegionBegin(const Domain* d, Id, Id, StringHandle* name) { BeginSlice(d, NameOf(name)); }

void RegionEnd(const Domain*, Id) { EndSlice(); }

void FrameBegin(const Domain* d, Id*) {
  if (!d || !rt::Enabled()) return;
  ReportDomain(d);
  ++t_open;
  rt::EmitBegin(NameOf(d), Category::kStep);
}

void FrameEnd(const Domain*, Id*) { EndSlice(); }

Timestamp GetTimestamp() { return ReadClockNs(CLOCK_MONOTONIC); }

void FrameSubmit(const Domain* d, Id*, Timestamp begin, Timestamp end) {
  if (!d || !rt::Enabled()) return;
  ReportDomain(d);
  if (end == kTimestampNone) end = GetTimestamp();
  if (begin == kTimestampNone || begin > end) begin = end;
  rt::EmitComplete(NameOf(d), Category::kStep, end - begin, nullptr, 0, end);
}

// Element i of an array of T as an argument.
template <typename T>
Arg Value(const void* data, size_t i) {
  T x;
  std::memcpy(&x, static_cast<const char*>(data) + i * sizeof(T), sizeof x);
  Arg a;
  if constexpr (std::is_floating_point_v<T>) {
    a.type = ArgType::kFloat;
    a.v.f = x;
  } else if constexpr (std::is_signed_v<T>) {
    a.type = ArgType::kInt;
    a.v.i = x;
  } else {
    a.type = ArgType::kUint;
    a.v.u = x;
  }
  return a;
}

// One metadata value (an __itt_metadata_type) as an argument; false for an unknown type.
bool MetaArg(int type, const void* data, size_t i, Arg* a) {
  switch (type) {
    case kMetaU64:
      *a = Value<uint64_t>(data, i);
      return true;
    case kMetaS64:
      *a = Value<int64_t>(data, i);
      return true;
    case kMetaU32:
      *a = Value<uint32_t>(data, i);
      return true;
    case kMetaS32:
      *a = Value<int32_t>(data, i);
      return true;
    case kMetaU16:
      *a = Value<uint16_t>(data, i);
      return true;
    case kMetaS16:
      *a = Value<int16_t>(data, i);
      return true;
    case kMetaFloat:
      *a = Value<float>(data, i);
      return true;
    case kMetaDouble:
      *a = Value<double>(data, i);
      return true;
    default:
      return false;
  }
}

// The begin event is already written when metadata arrives, so it becomes an instant inside
// the task, named by the key, with the values as arguments.
void MetadataAdd(const Domain* d, Id, StringHandle* key, int type, size_t count, void* data) {
  if (!d || !data || !rt::Enabled()) return;
  Arg args[8];
  uint32_t n = 0;
  for (size_t i = 0; i < count && n < 8; ++i) {
    if (!MetaArg(type, data, i, &args[n])) break;
    args[n].key = rt::InternName(keys::kIttValues[n]);
    ++n;
  }
  rt::EmitInstant(NameOf(key), CategoryOf(d), args, n);
}

void MetadataStrAdd(const Domain* d, Id, StringHandle* key, const char* data, size_t length) {
  if (!d || !data || !rt::Enabled()) return;
  char buf[1024];
  size_t n =
      length == 0 || length == static_cast<size_t>(-1) ? strnlen(data, sizeof buf - 1) : length;
  if (n > sizeof buf - 1) n = sizeof buf - 1;
  std::memcpy(buf, data, n);
  buf[n] = 0;
  Arg a;
  a.key = rt::InternName(keys::kValue);
  a.type = ArgType::kString;
  a.v.str = rt::InternName(buf);
  rt::EmitInstant(NameOf(key), CategoryOf(d), &a, a.v.str ? 1 : 0);
}

void Marker(const Domain* d, Id, StringHandle* name, int) {
  if (!d || !rt::Enabled()) return;
  ReportDomain(d);
  Category cat = CategoryOf(d);
  Arg a;
  bool with_domain = cat == Category::kUser && DomainArg(d, &a);
  rt::EmitInstant(name ? NameOf(name) : NameOf(d), cat, &a, with_domain ? 1 : 0);
}

void ThreadSetName(const char* name) {
  if (name) rt::EmitThreadName(name);
}

// ---- counters ----

void* CounterCreate(const char* name, const char* domain) {
  return CreateCounter(name, domain, kMetaU64);
}

void* CounterCreateTyped(const char* name, const char* domain, int type) {
  return CreateCounter(name, domain, type);
}

int64_t* Running(CounterInfo* c) { return reinterpret_cast<int64_t*>(&c->extra2); }

void CounterSetValue(void* id, void* value) {
  auto* c = static_cast<CounterInfo*>(id);
  if (!c || !value || !rt::Enabled()) return;
  Arg a;
  int type = c->type == kMetaUnknown ? kMetaU64 : c->type;
  if (!MetaArg(type, value, 0, &a)) return;
  double v = a.type == ArgType::kFloat  ? a.v.f
             : a.type == ArgType::kUint ? static_cast<double>(a.v.u)
                                        : static_cast<double>(a.v.i);
  if (a.type != ArgType::kFloat)
    __atomic_store_n(Running(c), a.type == ArgType::kUint ? static_cast<int64_t>(a.v.u) : a.v.i,
                     __ATOMIC_RELAXED);
  rt::EmitCounter(c->nameA ? c->nameA : "(unnamed)", Category::kUser, v);
}

void CounterSetValueEx(void* id, void*, Timestamp, void* value) { CounterSetValue(id, value); }

void CounterAdd(void* id, int64_t delta) {
  auto* c = static_cast<CounterInfo*>(id);
  if (!c || !rt::Enabled()) return;
  int64_t v = __atomic_add_fetch(Running(c), delta, __ATOMIC_RELAXED);
  rt::EmitCounter(c->nameA ? c->nameA : "(unnamed)", Category::kUser, static_cast<double>(v));
}

void CounterInc(void* id) { CounterAdd(id, 1); }
void CounterIncDelta(void* id, unsigned long long d) { CounterAdd(id, static_cast<int64_t>(d)); }
void CounterDec(void* id) { CounterAdd(id, -1); }
void CounterDecDelta(void* id, unsigned long long d) { CounterAdd(id, -static_cast<int64_t>(d)); }

// ---- __itt_event: named events by a small integer ----

int EventCreate(const char* name, int namelen) {
  if (!name || namelen <= 0) return 0;
  char buf[1024];
  size_t n =
      static_cast<size_t>(namelen) < sizeof buf ? static_cast<size_t>(namelen) : sizeof buf - 1;
  std::memcpy(buf, name, n);
  buf[n] = 0;
  return StringHandleIndex(CreateStringHandle(buf));
}

int EventStart(int event) {
  const StringHandle* h = StringHandleAt(event);
  if (!h || !rt::Enabled()) return 0;
  ++t_open;
  rt::EmitBegin(h->strA, Category::kUser);
  return 0;
}

int EventEnd(int) {
  EndSlice();
  return 0;
}

struct Entry {
  const char* name;
  void* fn;
};

template <typename F>
void* Fn(F* f) {
  return reinterpret_cast<void*>(f);
}

// The names are those of the static part's table (ittnotify_static.h, Linux spellings).
const Entry kEntries[] = {
    {"__itt_domain_create", Fn(DomainCreate)},
    {"__itt_string_handle_create", Fn(StringHandleCreate)},
    {"__itt_task_begin", Fn(TaskBegin)},
    {"__itt_task_begin_fn", Fn(TaskBeginFn)},
    {"__itt_task_end", Fn(TaskEnd)},
    {"__itt_region_begin", Fn(RegionBegin)},
    {"__itt_region_end", Fn(RegionEnd)},
    {"__itt_frame_begin_v3", Fn(FrameBegin)},
    {"__itt_frame_end_v3", Fn(FrameEnd)},
    {"__itt_frame_submit_v3", Fn(FrameSubmit)},
    {"__itt_get_timestamp", Fn(GetTimestamp)},
    {"__itt_metadata_add", Fn(MetadataAdd)},
    {"__itt_metadata_str_add", Fn(MetadataStrAdd)},
    {"__itt_marker", Fn(Marker)},
    {"__itt_thread_set_name", Fn(ThreadSetName)},
    {"__itt_counter_create", Fn(CounterCreate)},
    {"__itt_counter_create_typed", Fn(CounterCreateTyped)},
    {"__itt_counter_set_value", Fn(CounterSetValue)},
    {"__itt_counter_set_value_ex", Fn(CounterSetValueEx)},
    {"__itt_counter_inc", Fn(CounterInc)},
    {"__itt_counter_inc_delta", Fn(CounterIncDelta)},
    {"__itt_counter_dec", Fn(CounterDec)},
    {"__itt_counter_dec_delta", Fn(CounterDecDelta)},
    {"__itt_event_create", Fn(EventCreate)},
    {"__itt_event_start", Fn(EventStart)},
    {"__itt_event_end", Fn(EventEnd)},
};

}  // namespace
}  // namespace tt::itt

// The entry the static part looks up (the version-2 protocol of ittnotify_static.c); exported.
extern "C" __attribute__((visibility("default"))) void __itt_api_init(tt::itt::Global* g, int) {
  using namespace tt::itt;
  if (!g) return;
  // Domains created before we were loaded live in the static part's list; older static parts
  // create them disabled.
  for (Domain* d = g->domain_list; d; d = d->next) {
    __atomic_store_n(&d->extra1, CategoryTag(DomainCategory(d->nameA)), __ATOMIC_RELAXED);
    d->flags = 1;
  }
  for (ApiInfo* a = g->api_list_ptr; a && a->name; ++a) {
    for (const Entry& e : kEntries) {
      if (a->func_ptr && std::strcmp(a->name, e.name) == 0) {
        *a->func_ptr = e.fn;
        break;
      }
    }
  }
}
