#include "sources/nccl/nccl_emit.h"

#include <cinttypes>
#include <cstdio>

#include "format/keys.h"
#include "sources/nccl/nccl_events.h"

namespace tt::nccl {

namespace {

// Event names: one literal per collective NCCL names (ncclFuncToString), so that the runtime's
// name cache sees one pointer per name.
struct FuncName {
  std::string_view func;
  const char* event;
};
constexpr FuncName kFuncNames[] = {
    {"AllReduce", "nccl.AllReduce"},
    {"AllGather", "nccl.AllGather"},
    {"ReduceScatter", "nccl.ReduceScatter"},
    {"Broadcast", "nccl.Broadcast"},
    {"Reduce", "nccl.Reduce"},
    {"AlltoAll", "nccl.AlltoAll"},
    {"Gather", "nccl.Gather"},
    {"Scatter", "nccl.Scatter"},
    {"Send", "nccl.Send"},
    {"Recv", "nccl.Recv"},
    {"SendRecv", "nccl.SendRecv"},
};

const char* EventName(const char* func, const char* fallback) {
  if (!func) return fallback;
  for (const FuncName& f : kFuncNames)
    if (f.func == func) return f.event;
  return fallback;
}

struct Args {
  tt_nccl_arg a[16];
  uint32_t n = 0;
  void Str(const char* key, const char* v) {
    if (v && n < 16) a[n++] = {key, v, 0};
  }
  void Uint(const char* key, uint64_t v) {
    if (n < 16) a[n++] = {key, nullptr, v};
  }
};

// The communicator's hash as text ("0x..."): a 64-bit id that a signed argument would mangle.
void CommArg(const Context* ctx, char* buf, size_t size, Args* a) {
  if (!ctx) return;
  std::snprintf(buf, size, "0x%016" PRIx64, ctx->comm_hash);
  a->Str(keys::kCommunicator, buf);
}

void Collective(const Handle& h, uint64_t end_ns) {
  Args a;
  char comm[24];
  a.Str(keys::kCollective, h.func ? h.func : "unknown");
  CommArg(h.ctx, comm, sizeof comm, &a);
  a.Uint(keys::kInstanceKey, h.seq);
  a.Uint(keys::kCount, h.count);
  a.Str(keys::kDtype, h.dtype);
  if (h.bytes) a.Uint(keys::kBytes, h.bytes);
  if (h.ctx) a.Uint(keys::kNranks, static_cast<uint64_t>(h.ctx->n_ranks));
  if (h.rank >= 0) a.Uint(keys::kRank, static_cast<uint64_t>(h.rank));
  if (h.root >= 0) a.Uint(keys::kRoot, static_cast<uint64_t>(h.root));
  a.Str(keys::kAlgorithm, h.algo);
  a.Str(keys::kProtocol, h.proto);
  a.Uint(keys::kChannels, h.channels);
  tt_nccl_slice_(EventName(h.func, "nccl.collective"), h.start, end_ns, a.a, a.n);
}

void P2p(const Handle& h, uint64_t end_ns) {
  Args a;
  char comm[24];
  CommArg(h.ctx, comm, sizeof comm, &a);
  a.Uint(keys::kPeer, static_cast<uint64_t>(h.peer));
  a.Uint(keys::kCount, h.count);
  a.Str(keys::kDtype, h.dtype);
  if (h.bytes) a.Uint(keys::kBytes, h.bytes);
  if (h.rank >= 0) a.Uint(keys::kRank, static_cast<uint64_t>(h.rank));
  a.Uint(keys::kChannels, h.channels);
  tt_nccl_slice_(EventName(h.func, "nccl.p2p"), h.start, end_ns, a.a, a.n);
}

void ProxyOp(const Handle& h, uint64_t end_ns) {
  Args a;
  a.Uint(keys::kChannel, h.channel);
  a.Uint(keys::kPeer, static_cast<uint64_t>(h.peer));
  a.Uint(keys::kSteps, static_cast<uint64_t>(h.steps));
  a.Uint(keys::kChunkSize, static_cast<uint64_t>(h.chunk));
  tt_nccl_slice_(h.is_send ? keys::kNcclProxySend : keys::kNcclProxyRecv, h.start, end_ns, a.a,
                 a.n);
}

void ProxyStep(const Handle& h, uint64_t end_ns) {
  Args a;
  a.Uint(keys::kProxyStep, static_cast<uint64_t>(h.step));
  if (h.bytes) a.Uint(keys::kBytes, h.bytes);
  a.Uint(keys::kChannel, h.channel);
  if (h.peer >= 0) a.Uint(keys::kPeer, static_cast<uint64_t>(h.peer));
  tt_nccl_slice_(h.is_send ? keys::kNcclStepSend : keys::kNcclStepRecv, h.start, end_ns, a.a, a.n);
}

}  // namespace

uint64_t DtypeSize(std::string_view t) {
  if (t.starts_with("nccl")) t.remove_prefix(4);
  if (t == "Int8" || t == "Uint8" || t == "Char" || t.starts_with("Float8")) return 1;
  if (t == "Float16" || t == "Half" || t == "Bfloat16") return 2;
  if (t == "Int32" || t == "Uint32" || t == "Int" || t == "Float32" || t == "Float") return 4;
  if (t == "Int64" || t == "Uint64" || t == "Float64" || t == "Double") return 8;
  return 0;
}

uint64_t CollectiveBytes(std::string_view func, uint64_t count, uint64_t dtype_size, int n_ranks) {
  uint64_t b = count * dtype_size;
  if ((func == "AllGather" || func == "ReduceScatter") && n_ranks > 0)
    b *= static_cast<uint64_t>(n_ranks);
  return b;
}

void EmitEvent(const Handle& h, uint64_t end_ns) {
  switch (h.kind) {
    case Kind::kColl:
      return Collective(h, end_ns);
    case Kind::kP2p:
      return P2p(h, end_ns);
    case Kind::kProxyOp:
      return ProxyOp(h, end_ns);
    case Kind::kProxyStep:
      return ProxyStep(h, end_ns);
    case Kind::kGroup:
      return tt_nccl_slice_(keys::kNcclGroup, h.start, end_ns, nullptr, 0);
    case Kind::kKernelCh: {
      tt_nccl_arg a[1] = {{keys::kChannel, nullptr, h.channel}};
      return tt_nccl_slice_(keys::kNcclKernelChannel, h.start, end_ns, a, 1);
    }
    case Kind::kNet: {
      tt_nccl_arg a[1] = {{keys::kNetPlugin, nullptr, static_cast<uint64_t>(h.net_id)}};
      return tt_nccl_slice_(keys::kNcclNet, h.start, end_ns, a, 1);
    }
  }
}

}  // namespace tt::nccl
