// The NCCL profiler plugin (libtensortrace_nccl.so): NCCL opens it through NCCL_PROFILER_PLUGIN
// (record sets it) and calls it on its enqueue and proxy threads. It exports the interface's
// versions 6, 5 and 4 (nccl_profiler_abi.h) and writes each finished event through the runtime
// (nccl_emit.h). It never fails NCCL over tracing: a full pool drops the event (counted), a
// handle or context it did not give out is refused with an error code, never followed.
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "sources/nccl/nccl_emit.h"
#include "sources/nccl/nccl_events.h"
#include "sources/nccl/nccl_handles.h"
#include "sources/nccl/nccl_profiler_abi.h"

namespace tt::nccl {

namespace abi = tt::nccl_abi;

namespace {

// The events we ask NCCL for: groups, operations, proxy work and network transfers. Kernel
// channels come too: with them NCCL adds proxy events to every operation, so a collective's
// end is known on one node as well. NCCL_PROFILE_EVENT_MASK (the variable NCCL's example
// plugin reads) overrides it.
constexpr int kDefaultMask = abi::kGroup | abi::kColl | abi::kP2p | abi::kProxyOp |
                             abi::kProxyStep | abi::kKernelCh | abi::kNetPlugin;

int ActivationMask() {
  const char* m = std::getenv("NCCL_PROFILE_EVENT_MASK");
  if (!m || !*m) return kDefaultMask;
  char* end = nullptr;
  long v = std::strtol(m, &end, 0);
  return end && *end == '\0' && v >= 0 ? static_cast<int>(v) : kDefaultMask;
}

// The mask the last init returned: without proxy and kernel-channel events no child ever ends
// an operation, so the host's stop does.
std::atomic<int> g_mask{kDefaultMask};

// The same process, so that a parent pointer from the descriptor may be followed (NCCL's PXN
// runs some proxy operations in another process's proxy thread). Read once per process (glibc
// no longer caches getpid): a forked child reads it again.
std::atomic<pid_t> g_pid{0};

void ForgetPid() { g_pid.store(0, std::memory_order_relaxed); }

pid_t Self() {
  pid_t pid = g_pid.load(std::memory_order_relaxed);
  if (pid == 0) {
    static const int once = pthread_atfork(nullptr, nullptr, ForgetPid);
    (void)once;
    pid = getpid();
    g_pid.store(pid, std::memory_order_relaxed);
  }
  return pid;
}

// Drops a collective's or p2p's reference; the last writes it, at its last child's end (or at
// the host's stop when it had no children) and gives the handle back. Returns whether it did.
bool Release(Handle* op) {
  if (op->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return false;
  if (op->children.load(std::memory_order_acquire) == 0) return false;  // children may follow
  EmitEvent(*op, op->end.load(std::memory_order_acquire));
  GiveBack(op);
  return true;
}

void LaterEnd(Handle* op, uint64_t t) {
  uint64_t cur = op->end.load(std::memory_order_relaxed);
  while (cur < t && !op->end.compare_exchange_weak(cur, t, std::memory_order_acq_rel)) {
  }
}

// A child (proxy op, kernel channel) of operation `parent` (if it is ours, in this process).
Handle* Adopt(void* parent, pid_t pid) {
  if (pid != 0 && pid != Self()) return nullptr;
  Handle* p = CheckHandle(parent);
  if (!p || (p->kind != Kind::kColl && p->kind != Kind::kP2p)) return nullptr;
  p->refs.fetch_add(1, std::memory_order_acq_rel);
  p->children.fetch_add(1, std::memory_order_acq_rel);
  return p;
}

// The descriptor's fields that versions 4 to 6 share, in one shape.
struct Descr {
  uint64_t type = 0;
  void* parent = nullptr;
  int rank = -1;
  const abi::CollFields* coll = nullptr;  // version 4's coll has the same leading members
  const abi::P2pFields* p2p = nullptr;
  const abi::ProxyOpFields* proxy_op = nullptr;
  const abi::ProxyStepFields* proxy_step = nullptr;
  const abi::KernelChFields* kernel_ch = nullptr;
  const abi::NetPluginFields* net = nullptr;
};

void FillOp(Handle* h, const Descr& d) {
  h->rank = d.rank;
  if (d.coll) {
    const abi::CollFields& c = *d.coll;
    h->seq = c.seq_number;
    h->func = c.func;
    h->count = c.count;
    h->root = c.root;
    h->dtype = c.datatype;
    h->channels = c.n_channels;
    h->algo = c.algo;
    h->proto = c.proto;
    h->bytes =
        CollectiveBytes(c.func ? c.func : "", c.count, DtypeSize(c.datatype ? c.datatype : ""),
                        h->ctx ? h->ctx->n_ranks : 0);
  } else if (d.p2p) {
    const abi::P2pFields& p = *d.p2p;
    h->func = p.func;
    h->count = p.count;
    h->dtype = p.datatype;
    h->peer = p.peer;
    h->channels = p.n_channels;
    h->bytes = p.count * DtypeSize(p.datatype ? p.datatype : "");
  }
  h->refs.store(1, std::memory_order_relaxed);  // the host's, until its stopEvent
}

// Fills the handle of a proxy op, step, kernel channel or net event; false to refuse it.
bool FillChild(Handle* h, const Descr& d) {
  if (d.proxy_op) {
    const abi::ProxyOpFields& o = *d.proxy_op;
    h->channel = o.channel_id;
    h->peer = o.peer;
    h->steps = o.n_steps;
    h->chunk = o.chunk_size;
    h->is_send = o.is_send != 0;
    h->parent = Adopt(d.parent, o.pid);
  } else if (d.kernel_ch) {
    h->channel = d.kernel_ch->channel_id;
    h->parent = Adopt(d.parent, 0);
  } else if (d.proxy_step) {
    h->step = d.proxy_step->step;
    Handle* op = CheckHandle(d.parent);
    if (op && op->kind == Kind::kProxyOp) {
      // Copied now: the op's handle may be given back and reused before the step is written.
      h->is_send = op->is_send;
      h->channel = op->channel;
      h->peer = op->peer;
    }
  } else if (d.net) {
    h->net_id = d.net->id;
  } else {
    return false;
  }
  return true;
}

Kind KindOf(uint64_t type, bool* known) {
  *known = true;
  switch (type) {
    case abi::kGroup:
      return Kind::kGroup;
    case abi::kColl:
      return Kind::kColl;
    case abi::kP2p:
      return Kind::kP2p;
    case abi::kProxyOp:
      return Kind::kProxyOp;
    case abi::kProxyStep:
      return Kind::kProxyStep;
    case abi::kKernelCh:
      return Kind::kKernelCh;
    case abi::kNetPlugin:
      return Kind::kNet;
    default:
      *known = false;
      return Kind::kGroup;
  }
}

abi::Result Start(void* context, void** handle, const Descr& d) {
  if (!handle) return abi::kInvalidArgument;
  *handle = nullptr;
  Context* ctx = CheckContext(context);
  if (!ctx) return abi::kInvalidArgument;
  bool known = false;
  Kind kind = KindOf(d.type, &known);
  if (!known) return abi::kSuccess;  // an event we did not ask for: no handle, no error
  Handle* h = TakeHandle(kind);
  if (!h) {  // pool full: counted, NCCL goes on
    tt_nccl_dropped_(1);
    return abi::kSuccess;
  }
  h->ctx = ctx;
  h->start = tt_nccl_now_();
  if (kind == Kind::kColl || kind == Kind::kP2p) {
    FillOp(h, d);
  } else if (kind != Kind::kGroup && !FillChild(h, d)) {
    GiveBack(h);
    return abi::kSuccess;
  }
  *handle = h;
  return abi::kSuccess;
}

// The union members of a version's descriptor. Version 4's coll and p2p are version 5's
// without the trailing parentGroup, which FillOp does not read (for version 5 the casts change
// nothing).
template <typename E>
Descr FromDescr(const E* e) {
  Descr d;
  d.type = e->type;
  d.parent = e->parent_obj;
  d.rank = e->rank;
  switch (e->type) {
    case abi::kColl:
      d.coll = reinterpret_cast<const abi::CollFields*>(&e->coll);
      break;
    case abi::kP2p:
      d.p2p = reinterpret_cast<const abi::P2pFields*>(&e->p2p);
      break;
    case abi::kProxyOp:
      d.proxy_op = &e->proxy_op;
      break;
    case abi::kProxyStep:
      d.proxy_step = &e->proxy_step;
      break;
    case abi::kKernelCh:
      d.kernel_ch = &e->kernel_ch;
      break;
    case abi::kNetPlugin:
      d.net = &e->net_plugin;
      break;
    default:
      break;
  }
  return d;
}

Descr FromV5(const abi::DescrV5* e) {
  Descr d = FromDescr(e);
  // Version 5 made a collective's parent its API event; its group is parentGroup.
  if (e->type == abi::kColl) d.parent = e->coll.parent_group;
  if (e->type == abi::kP2p) d.parent = e->p2p.parent_group;
  return d;
}

}  // namespace

// The entries (shared by the versions where their signatures agree).
abi::Result Init(void** context, uint64_t comm, int* mask, int n_nodes, int n_ranks, int rank) {
  if (!context || !mask) return abi::kInvalidArgument;
  *context = nullptr;
  Context* c = TakeContext();
  if (!c) {  // more communicators than we keep: this one goes untraced
    *mask = 0;
    return abi::kSuccess;
  }
  c->comm_hash = comm;
  c->n_nodes = n_nodes;
  c->n_ranks = n_ranks;
  c->rank = rank;
  *context = c;
  *mask = ActivationMask();
  g_mask.store(*mask, std::memory_order_relaxed);
  return abi::kSuccess;
}

abi::Result Stop(void* handle) {
  if (!handle) return abi::kSuccess;  // an event we gave no handle for
  Handle* h = CheckHandle(handle);
  if (!h) return abi::kInvalidArgument;
  uint64_t now = tt_nccl_now_();
  switch (h->kind) {
    case Kind::kColl:
    case Kind::kP2p:
      h->host_end = now;
      LaterEnd(h, now);
      if (!(g_mask.load(std::memory_order_relaxed) & (abi::kProxyOp | abi::kKernelCh)))
        h->children.fetch_add(1, std::memory_order_relaxed);  // none will come: end now
      Release(h);  // written now if its children are done, else by the last of them
      return abi::kSuccess;
    case Kind::kProxyOp:
    case Kind::kKernelCh:
      EmitEvent(*h, now);
      if (Handle* op = h->parent) {
        LaterEnd(op, now);
        Release(op);
      }
      break;
    default:
      EmitEvent(*h, now);
  }
  GiveBack(h);
  return abi::kSuccess;
}

abi::Result RecordState(void* handle, int state, abi::StateArgs* args) {
  if (!handle) return abi::kSuccess;
  Handle* h = CheckHandle(handle);
  if (!h) return abi::kInvalidArgument;
  // A step's bytes come with its states (the last report is the step's size).
  if (h->kind == Kind::kProxyStep && args && state >= abi::kProxyStepSendGpuWait &&
      state <= abi::kProxyStepSendPeerWait && args->proxy_step.trans_size)
    h->bytes = args->proxy_step.trans_size;
  return abi::kSuccess;
}

// Writes the collectives of `c` still waiting for children that never came (NCCL stopped them
// on the host, then no proxy work followed: one node without kernel channel events), ending
// at the host's stop.
abi::Result Finalize(void* context) {
  Context* c = CheckContext(context);
  if (!c) return abi::kInvalidArgument;
  ForEachHandle([c](Handle* h) {
    if (h->ctx != c || (h->kind != Kind::kColl && h->kind != Kind::kP2p)) return;
    if (h->refs.load(std::memory_order_acquire) != 0) return;
    EmitEvent(*h, h->host_end);
    GiveBack(h);
  });
  GiveBack(c);
  return abi::kSuccess;
}

namespace {

abi::Result InitV5(void** context, uint64_t comm_id, int* mask, const char*, int n_nodes,
                   int n_ranks, int rank, abi::Logger) {
  return Init(context, comm_id, mask, n_nodes, n_ranks, rank);
}

abi::Result InitV4(void** context, int* mask, const char*, uint64_t comm_hash, int n_nodes,
                   int n_ranks, int rank, abi::Logger) {
  return Init(context, comm_hash, mask, n_nodes, n_ranks, rank);
}

abi::Result StartV5(void* context, void** handle, abi::DescrV5* d) {
  if (!d) return handle ? (*handle = nullptr, abi::kInvalidArgument) : abi::kInvalidArgument;
  return Start(context, handle, FromV5(d));
}

abi::Result StartV4(void* context, void** handle, abi::DescrV4* d) {
  if (!d) return handle ? (*handle = nullptr, abi::kInvalidArgument) : abi::kInvalidArgument;
  return Start(context, handle, FromDescr(d));
}

}  // namespace

}  // namespace tt::nccl

namespace nccl = tt::nccl;

// The symbols NCCL looks up (version 6 first). Version 6's descriptor is version 5's with more
// union members, so one start function reads both.
extern "C" {
__attribute__((visibility("default"))) tt::nccl_abi::ProfilerV5 ncclProfiler_v6 = {
    "tensortrace", nccl::InitV5, nccl::StartV5, nccl::Stop, nccl::RecordState, nccl::Finalize};
__attribute__((visibility("default"))) tt::nccl_abi::ProfilerV5 ncclProfiler_v5 = {
    "tensortrace", nccl::InitV5, nccl::StartV5, nccl::Stop, nccl::RecordState, nccl::Finalize};
__attribute__((visibility("default"))) tt::nccl_abi::ProfilerV4 ncclProfiler_v4 = {
    "tensortrace", nccl::InitV4, nccl::StartV4, nccl::Stop, nccl::RecordState, nccl::Finalize};
}
