// The NVTX collector. `record` names libtensortrace.so (the library it preloads) in
// NVTX_INJECTION64_PATH; each NVTX client DSO then calls InitializeInjectionNvtx2 below
// (nvtx_abi.h has the protocol), which stores our functions in that DSO's CORE and CORE2
// slots. Each is a thin adapter over the runtime's emitters:
//   push/pop (with or without domain)  nested slices on the calling thread
//   start/end                          a complete slice on the thread that ends the range,
//                                      stamped at its end with the start's time as begin, and
//                                      a "start_tid" argument when another thread started it:
//                                      start/end ranges need not nest nor stay on one thread,
//                                      and a thread's stream can only be written by itself
//   marks                              instants
//   domains                            the slices' category: "TSL" (TensorFlow/JAX/XLA) ->
//                                      framework ops named by the message ("node:OpType");
//                                      "NCCL" -> communication, with a "collective" argument;
//                                      the default domain (PyTorch's emit_nvtx) -> framework
//                                      ops; any other -> user slices with a "domain" argument
//   registered strings                 messages by handle
//   category names                     a "category" argument (the name, else the number)
//   payloads                           a "payload" argument of the payload's type; extended
//                                      payloads: their scalar and string fields by the
//                                      registered schema (nvtx_payload.h), else
//                                      "payload_schema" and "payload_bytes"
//   nvtxNameOsThread                   the thread's name (applied by that thread at its next
//                                      NVTX call when another thread names it)
// Each domain is listed for `info` as an "nvtx" source when it is first created.
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "core/time.h"
#include "format/keys.h"
#include "runtime/emit.h"
#include "sources/nvtx/nvtx_abi.h"
#include "sources/nvtx/nvtx_handles.h"
#include "sources/nvtx/nvtx_payload.h"

namespace tt::nvtx {
namespace {

using layout::ArgType;
using layout::Category;

constexpr size_t kNameCap = 512;  // wide, PyTorch and start/end names are cut at this
constexpr uint32_t kMaxArgs = 12;

// NVTX push ranges this thread opened and has not closed: a pop without a push must not close
// a slice that another source opened.
thread_local constinit int t_open __attribute__((tls_model("initial-exec"))) = 0;
thread_local constinit uint32_t t_tid __attribute__((tls_model("initial-exec"))) = 0;
// A forked child's trace holds none of the parent's begins; its tid is new.
void ResetInChild() {
  t_open = 0;
  t_tid = 0;
}
[[maybe_unused]] const int g_atfork = pthread_atfork(nullptr, nullptr, ResetInChild);

uint32_t Tid() {
  if (__builtin_expect(t_tid == 0, 0)) t_tid = static_cast<uint32_t>(syscall(SYS_gettid));
  return t_tid;
}

// ---- names given to other threads (nvtxNameOsThread with a tid that is not the caller's) ----

constexpr uint32_t kPendingNames = 64;
struct PendingName {
  std::atomic<uint32_t> tid;  // 0: free
  char name[128];
};
PendingName g_pending[kPendingNames];
std::atomic<uint32_t> g_npending{0};

void ApplyPendingNameSlow() {
  uint32_t me = Tid();
  for (PendingName& p : g_pending) {
    if (p.tid.load(std::memory_order_acquire) != me) continue;
    rt::EmitThreadName(p.name);
    p.tid.store(0, std::memory_order_release);
    g_npending.fetch_sub(1, std::memory_order_relaxed);
  }
}
inline void ApplyPendingName() {
  if (__builtin_expect(g_npending.load(std::memory_order_relaxed) != 0, 0)) ApplyPendingNameSlow();
}

void NameThread(uint32_t tid, const char* name) {
  if (!name || !rt::Enabled()) return;
  if (tid == Tid()) {
    rt::EmitThreadName(name);
    return;
  }
  for (PendingName& p : g_pending) {
    uint32_t free = 0;
    if (!p.tid.compare_exchange_strong(free, ~0u, std::memory_order_acquire)) continue;
    size_t n = strnlen(name, sizeof p.name - 1);
    std::memcpy(p.name, name, n);
    p.name[n] = 0;
    g_npending.fetch_add(1, std::memory_order_relaxed);
    p.tid.store(tid, std::memory_order_release);
    return;
  }
}

// ---- one event's name and arguments ----

struct Event {
  const Domain* domain;
  Category category;
  const char* name = "";  // the client's string while the call lasts, or buf
  char buf[kNameCap];     // converted or shortened names
  Arg args[kMaxArgs];
  uint32_t nargs = 0;
};

void AddArg(Event* e, const char* key, Arg a) {
  a.key = rt::InternName(key);
  if (a.key && e->nargs < kMaxArgs) e->args[e->nargs++] = a;
}
void AddString(Event* e, const char* key, const char* value) {
  Arg a;
  a.type = ArgType::kString;
  a.v.str = rt::InternName(value);
  if (a.v.str) AddArg(e, key, a);
}
void AddUint(Event* e, const char* key, uint64_t v) {
  Arg a;
  a.type = ArgType::kUint;
  a.v.u = v;
  AddArg(e, key, a);
}

void AddField(Event* e, const Field& f) {
  Arg a;
  switch (f.kind) {
    case Field::kInt:
      a.type = ArgType::kInt;
      a.v.i = f.i;
      break;
    case Field::kUint:
      a.type = ArgType::kUint;
      a.v.u = f.u;
      break;
    case Field::kFloat:
      a.type = ArgType::kFloat;
      a.v.f = f.f;
      break;
    case Field::kString:
      AddString(e, f.key, f.s);
      return;
  }
  AddArg(e, f.key, a);
}

// The client's string is used in place: the runtime interns it during the call.
void UseName(Event* e, const char* s) { e->name = s ? s : ""; }

void UseWideName(Event* e, const wchar_t* s) {
  WideToUtf8(s, e->buf, kNameCap);
  e->name = e->buf;
}

void SetMessage(Event* e, const EventAttributes* a) {
  e->name = "";
  if (!a || a->size < sizeof(EventAttributes)) return;
  switch (a->message_type) {
    case kMessageAscii:
      UseName(e, a->message.ascii);
      break;
    case kMessageUnicode:
      UseWideName(e, a->message.unicode);
      break;
    case kMessageRegistered:
      UseName(e, a->message.registered ? a->message.registered->str : nullptr);
      break;
    default:
      break;
  }
}

void AddPayload(Event* e, const EventAttributes* a) {
  if (!a || a->size < sizeof(EventAttributes)) return;
  Arg v;
  switch (a->payload_type) {
    case kPayloadU64:
      v.type = ArgType::kUint;
      v.v.u = a->payload.u64;
      break;
    case kPayloadI64:
      v.type = ArgType::kInt;
      v.v.i = a->payload.i64;
      break;
    case kPayloadDouble:
      v.type = ArgType::kFloat;
      v.v.f = a->payload.d;
      break;
    case kPayloadU32:
      v.type = ArgType::kUint;
      v.v.u = a->payload.u32;
      break;
    case kPayloadI32:
      v.type = ArgType::kInt;
      v.v.i = a->payload.i32;
      break;
    case kPayloadFloat:
      v.type = ArgType::kFloat;
      v.v.f = a->payload.f;
      break;
    case kPayloadExt: {
      // NCCL's parameters (communicator, bytes, reduction) come this way, laid out by a
      // schema registered through the payload extension (nvtx_payload.h).
      const auto* pd = reinterpret_cast<const PayloadData*>(a->payload.u64);
      if (!pd || a->reserved0 <= 0) return;
      bool decoded = DecodePayloads(e->domain, pd, static_cast<size_t>(a->reserved0),
                                    [e](const Field& f) { AddField(e, f); });
      if (!decoded) {  // no schema known: what it was, at least
        AddUint(e, keys::kPayloadSchema, pd->schema_id);
        AddUint(e, keys::kPayloadBytes, pd->size);
      }
      return;
    }
    default:
      return;
  }
  AddArg(e, keys::kPayload, v);
}

// PyTorch's emit_nvtx messages read "aten::mm, seq = 12, op_id = 3, sizes = [...]": the op's
// name, and the rest as arguments (seq links forward and backward ops).
void SplitTorchMessage(Event* e) {
  const char* comma = std::strstr(e->name, ", ");
  if (!comma || !std::strstr(e->name, "::") || std::strstr(e->name, "::") > comma) return;
  const char* rest = comma + 2;
  if (std::strncmp(rest, "seq = ", 6) == 0) {
    char* end = nullptr;
    unsigned long long seq = std::strtoull(rest + 6, &end, 10);
    if (end != rest + 6) AddUint(e, keys::kSeq, seq);
    rest = *end == ',' && end[1] == ' ' ? end + 2 : end;
  }
  if (*rest) AddString(e, keys::kDetail, rest);  // interned now, before the name is cut
  size_t n = static_cast<size_t>(comma - e->name);
  if (n > kNameCap - 1) n = kNameCap - 1;
  std::memmove(e->buf, e->name, n);  // name may already be buf (a wide message)
  e->buf[n] = 0;
  e->name = e->buf;
}

// Fills `e` for a call in domain `d` (null: the default domain).
void Describe(Event* e, const Domain* d, const EventAttributes* a) {
  ApplyPendingName();
  e->domain = d ? d : DefaultDomain();
  e->category = e->domain->category;
  SetMessage(e, a);
  if (e->category == Category::kUser) AddString(e, keys::kDomain, e->domain->name);
  if (d == nullptr) SplitTorchMessage(e);
  if (e->category == Category::kCommunication && std::strncmp(e->name, "nccl", 4) == 0 &&
      e->name[4])
    AddString(e, keys::kCollective, e->name + 4);
  if (a && a->size >= sizeof(EventAttributes) && a->category != 0) {
    if (const char* c = CategoryName(e->domain, a->category)) {
      AddString(e, keys::kCategory, c);
    } else {
      AddUint(e, keys::kCategory, a->category);
    }
  }
  AddPayload(e, a);
}

void DescribeText(Event* e, const char* message) {
  ApplyPendingName();
  e->domain = DefaultDomain();
  e->category = e->domain->category;
  UseName(e, message);
  SplitTorchMessage(e);
}

void DescribeWide(Event* e, const wchar_t* message) {
  ApplyPendingName();
  e->domain = DefaultDomain();
  e->category = e->domain->category;
  UseWideName(e, message);
  SplitTorchMessage(e);
}

// ---- marks and push/pop ----

void Mark(const Event& e) { rt::EmitInstant(e.name, e.category, e.args, e.nargs); }

int Push(const Event& e) {
  if (!rt::Enabled()) return -1;
  int level = t_open++;
  if (e.nargs)
    rt::EmitBeginArgs(e.name, e.category, e.args, e.nargs);
  else
    rt::EmitBegin(e.name, e.category);
  return level;
}

int Pop() {
  if (t_open == 0) return -1;  // NVTX's "no range open" result
  rt::EmitEnd();
  return --t_open;
}

// ---- start/end: open ranges by id, in a fixed table ----

constexpr uint32_t kRangeSlots = 1024;
constexpr uint32_t kProbes = 16;
struct OpenRange {
  std::atomic<uint64_t> id;  // 0: free
  uint64_t start_ns;
  uint32_t start_tid;
  Event event;
};
OpenRange g_ranges[kRangeSlots];
std::atomic<uint64_t> g_next_range{1};

RangeId Start(const Event& e) {
  if (!rt::Enabled()) return 0;
  uint64_t id = g_next_range.fetch_add(1, std::memory_order_relaxed);
  for (uint32_t i = 0; i < kProbes; ++i) {
    OpenRange& r = g_ranges[(id + i) % kRangeSlots];
    uint64_t free = 0;
    if (!r.id.compare_exchange_strong(free, id, std::memory_order_acquire)) continue;
    r.start_ns = ReadClockNs(CLOCK_MONOTONIC);
    r.start_tid = Tid();
    r.event = e;
    // The client's string may be gone when the range ends: keep a copy (cut at kNameCap).
    size_t n = strnlen(e.name, kNameCap - 1);
    std::memcpy(r.event.buf, e.name, n);
    r.event.buf[n] = 0;
    r.event.name = r.event.buf;
    return id;
  }
  // More than kRangeSlots ranges open: this one will not be recorded; counted as a drop.
  rt::CountDropReason(rt::kDropNoSpace, 1);
  return id;
}

void End(RangeId id) {
  if (id == 0) return;
  ApplyPendingName();
  for (uint32_t i = 0; i < kProbes; ++i) {
    OpenRange& r = g_ranges[(id + i) % kRangeSlots];
    if (r.id.load(std::memory_order_acquire) != id) continue;
    uint64_t now = ReadClockNs(CLOCK_MONOTONIC);
    Event& e = r.event;
    if (r.start_tid != Tid()) AddUint(&e, keys::kStartTid, r.start_tid);
    rt::EmitComplete(e.name, e.category, now > r.start_ns ? now - r.start_ns : 0, e.args, e.nargs,
                     now);
    r.id.store(0, std::memory_order_release);
    return;
  }
}

// ---- the NVTX entries (signatures of nvtxDetail/nvtxTypes.h) ----

void MarkEx(const EventAttributes* a) {
  Event e;
  Describe(&e, nullptr, a);
  Mark(e);
}
void MarkA(const char* m) {
  Event e;
  DescribeText(&e, m);
  Mark(e);
}
void MarkW(const wchar_t* m) {
  Event e;
  DescribeWide(&e, m);
  Mark(e);
}
RangeId RangeStartEx(const EventAttributes* a) {
  Event e;
  Describe(&e, nullptr, a);
  return Start(e);
}
RangeId RangeStartA(const char* m) {
  Event e;
  DescribeText(&e, m);
  return Start(e);
}
RangeId RangeStartW(const wchar_t* m) {
  Event e;
  DescribeWide(&e, m);
  return Start(e);
}
void RangeEnd(RangeId id) { End(id); }
int RangePushEx(const EventAttributes* a) {
  Event e;
  Describe(&e, nullptr, a);
  return Push(e);
}
int RangePushA(const char* m) {
  Event e;
  DescribeText(&e, m);
  return Push(e);
}
int RangePushW(const wchar_t* m) {
  Event e;
  DescribeWide(&e, m);
  return Push(e);
}
int RangePop() { return Pop(); }
void NameCategoryA(uint32_t c, const char* name) { NameCategory(DefaultDomain(), c, name); }
void NameCategoryW(uint32_t c, const wchar_t* name) {
  char buf[kNameCap];
  WideToUtf8(name, buf, sizeof buf);
  NameCategory(DefaultDomain(), c, buf);
}
void NameOsThreadA(uint32_t tid, const char* name) { NameThread(tid, name); }
void NameOsThreadW(uint32_t tid, const wchar_t* name) {
  char buf[128];
  WideToUtf8(name, buf, sizeof buf);
  NameThread(tid, buf);
}

void DomainMarkEx(Domain* d, const EventAttributes* a) {
  Event e;
  Describe(&e, d, a);
  Mark(e);
}
RangeId DomainRangeStartEx(Domain* d, const EventAttributes* a) {
  Event e;
  Describe(&e, d, a);
  return Start(e);
}
void DomainRangeEnd(Domain*, RangeId id) { End(id); }
int DomainRangePushEx(Domain* d, const EventAttributes* a) {
  Event e;
  Describe(&e, d, a);
  return Push(e);
}
// One stack per thread for all domains: our slices nest on the thread, whatever their domain.
int DomainRangePop(Domain*) { return Pop(); }
void DomainNameCategoryA(Domain* d, uint32_t c, const char* name) {
  NameCategory(d ? d : DefaultDomain(), c, name);
}
void DomainNameCategoryW(Domain* d, uint32_t c, const wchar_t* name) {
  char buf[kNameCap];
  WideToUtf8(name, buf, sizeof buf);
  DomainNameCategoryA(d, c, buf);
}
String* DomainRegisterStringA(Domain*, const char* s) { return RegisterString(s); }
String* DomainRegisterStringW(Domain*, const wchar_t* s) {
  if (!s) return nullptr;
  char buf[kNameCap];
  WideToUtf8(s, buf, sizeof buf);
  return RegisterString(buf);
}
Domain* DomainCreateA(const char* name) {
  bool created = false;
  Domain* d = CreateDomain(name, &created);
  if (created) rt::EmitSource("nvtx", d->name);
  return d;
}
Domain* DomainCreateW(const wchar_t* name) {
  if (!name) return nullptr;
  char buf[kNameCap];
  WideToUtf8(name, buf, sizeof buf);
  return DomainCreateA(buf);
}
// Handles stay valid (a client may still hold copies of it); nothing to undo.
void DomainDestroy(Domain*) {}
void Initialize(const void*) {}

template <typename F>
FunctionPointer Fn(F* f) {
  return reinterpret_cast<FunctionPointer>(f);
}

struct Slot {
  unsigned id;
  FunctionPointer fn;
};

const Slot kCore[] = {
    {kCoreMarkEx, Fn(MarkEx)},
    {kCoreMarkA, Fn(MarkA)},
    {kCoreMarkW, Fn(MarkW)},
    {kCoreRangeStartEx, Fn(RangeStartEx)},
    {kCoreRangeStartA, Fn(RangeStartA)},
    {kCoreRangeStartW, Fn(RangeStartW)},
    {kCoreRangeEnd, Fn(RangeEnd)},
    {kCoreRangePushEx, Fn(RangePushEx)},
    {kCoreRangePushA, Fn(RangePushA)},
    {kCoreRangePushW, Fn(RangePushW)},
    {kCoreRangePop, Fn(RangePop)},
    {kCoreNameCategoryA, Fn(NameCategoryA)},
    {kCoreNameCategoryW, Fn(NameCategoryW)},
    {kCoreNameOsThreadA, Fn(NameOsThreadA)},
    {kCoreNameOsThreadW, Fn(NameOsThreadW)},
};

const Slot kCore2[] = {
    {kCore2DomainMarkEx, Fn(DomainMarkEx)},
    {kCore2DomainRangeStartEx, Fn(DomainRangeStartEx)},
    {kCore2DomainRangeEnd, Fn(DomainRangeEnd)},
    {kCore2DomainRangePushEx, Fn(DomainRangePushEx)},
    {kCore2DomainRangePop, Fn(DomainRangePop)},
    {kCore2DomainNameCategoryA, Fn(DomainNameCategoryA)},
    {kCore2DomainNameCategoryW, Fn(DomainNameCategoryW)},
    {kCore2DomainRegisterStringA, Fn(DomainRegisterStringA)},
    {kCore2DomainRegisterStringW, Fn(DomainRegisterStringW)},
    {kCore2DomainCreateA, Fn(DomainCreateA)},
    {kCore2DomainCreateW, Fn(DomainCreateW)},
    {kCore2DomainDestroy, Fn(DomainDestroy)},
    {kCore2Initialize, Fn(Initialize)},
};

// Stores our functions in one module's slots; false if the client has no such module.
template <size_t N>
bool Fill(const ExportTableCallbacks* cb, Module m, const Slot (&slots)[N]) {
  FunctionTable table = nullptr;
  unsigned size = 0;
  if (!cb->GetModuleFunctionTable(m, &table, &size) || !table) return false;
  for (const Slot& s : slots)
    if (s.id <= size && table[s.id]) *table[s.id] = s.fn;
  return true;
}

}  // namespace
}  // namespace tt::nvtx

// The entry an NVTX client looks up in the library NVTX_INJECTION64_PATH names; exported.
// Called once per client DSO. Returns 0 (the client then makes its NVTX calls no-ops) when
// tracing is off in this process or the client's tables are not what we know.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    tt::nvtx::GetExportTableFn get_export_table) {
  using namespace tt::nvtx;
  if (!get_export_table || !tt::rt::Enabled()) return 0;
  const auto* cb = static_cast<const ExportTableCallbacks*>(get_export_table(kEtidCallbacks));
  if (!cb || cb->struct_size < sizeof(ExportTableCallbacks) || !cb->GetModuleFunctionTable)
    return 0;
  if (!Fill(cb, kModuleCore, kCore) || !Fill(cb, kModuleCore2, kCore2)) return 0;
  const auto* vi = static_cast<const ExportTableVersionInfo*>(get_export_table(kEtidVersionInfo));
  if (vi && vi->struct_size >= sizeof(ExportTableVersionInfo) && vi->SetInjectionNvtxVersion)
    vi->SetInjectionNvtxVersion(kNvtxVersion);
  return 1;
}
