// The NCCL plugin's event handles and communicator contexts: fixed pools, taken and given back
// without a lock or an allocation (NCCL calls the plugin on its enqueue and proxy threads), and
// checked on every use, so that a handle NCCL never got from us is refused, not followed.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace tt::nccl {

// What an event handle stands for.
enum class Kind : uint8_t { kGroup, kColl, kP2p, kProxyOp, kProxyStep, kKernelCh, kNet };

// One communicator's plugin context (init .. finalize).
struct Context {
  std::atomic<uint32_t> used{0};
  uint64_t comm_hash = 0;
  int n_ranks = 0, rank = -1, n_nodes = 0;
};

struct Handle {
  std::atomic<uint32_t> used{0};
  Kind kind = Kind::kGroup;
  Context* ctx = nullptr;
  Handle* parent = nullptr;  // a collective or p2p (proxy op, kernel channel), else its op
  uint64_t start = 0;        // ns, the event clock
  uint64_t host_end = 0;     // collective/p2p: the host's stopEvent
  // Collective/p2p: the host's reference and one per started child; the event is written when
  // the last goes, at the last child's end (NCCL's stopEvent for a collective only means
  // "enqueued"). `children` tells a collective whose children have not started yet from one
  // that has none.
  std::atomic<int32_t> refs{0};
  std::atomic<uint32_t> children{0};
  std::atomic<uint64_t> end{0};  // the latest child's end
  // The descriptor's fields (NCCL's strings are its own constants).
  const char* func = nullptr;
  const char* dtype = nullptr;
  const char* algo = nullptr;
  const char* proto = nullptr;
  uint64_t seq = 0, count = 0, bytes = 0;
  int rank = -1, root = -1, peer = -1, steps = 0, chunk = 0, step = 0;
  uint8_t channels = 0, channel = 0;
  bool is_send = false;
  int64_t net_id = 0;
};

// A free handle of `kind` (its fields reset), or null when every handle is in use.
Handle* TakeHandle(Kind kind);
void GiveBack(Handle* h);
// `p` if it is a handle of ours in use, else null.
Handle* CheckHandle(void* p);

Context* TakeContext();
void GiveBack(Context* c);
Context* CheckContext(void* p);

// Calls f(h) for each handle in use (at finalize: the collectives still waiting).
template <typename F>
void ForEachHandle(F f);

namespace detail {
Handle* Pool(size_t* n);
}  // namespace detail

template <typename F>
void ForEachHandle(F f) {
  size_t n = 0;
  Handle* pool = detail::Pool(&n);
  for (size_t i = 0; i < n; ++i)
    if (pool[i].used.load(std::memory_order_acquire)) f(&pool[i]);
}

}  // namespace tt::nccl
