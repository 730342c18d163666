// Our own declarations of NCCL's profiler plugin interface (the structures NCCL hands a
// profiler plugin and the table of functions the plugin exports), so that the NCCL source
// builds without NCCL's headers. They match the ABI that NCCL 2.30 publishes in
// plugins/profiler/example/nccl/ (profiler.h, profiler_v4.h, profiler_v5.h, profiler_v6.h):
// interface versions 4 (NCCL 2.25), 5 (2.26 to 2.28) and 6 (2.29 on). NCCL opens the library
// named by NCCL_PROFILER_PLUGIN (a path, or a name it turns into libnccl-profiler-NAME.so) and
// looks up "ncclProfiler_v6", then _v5, then _v4..., taking the first it finds.
//
// Layout notes: version 6's descriptor is version 5's with more members in its union (the
// copy-engine events), so the members we read sit at the same offsets in both; version 4's
// descriptor starts with an 8-bit type (padded to the pointer that follows) and lacks the API
// events and the parentGroup members.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

namespace tt::nccl_abi {

// ncclResult_t's values a plugin returns.
using Result = int;
inline constexpr Result kSuccess = 0;
inline constexpr Result kInternalError = 3;
inline constexpr Result kInvalidArgument = 4;

// Event type bits (the descriptor's type, and the activation mask the plugin sets in init).
enum EventType : uint64_t {
  kGroup = 1u << 0,         // a group of operations launched together
  kColl = 1u << 1,          // a collective, as enqueued by the host
  kP2p = 1u << 2,           // a send or a receive, as enqueued by the host
  kProxyOp = 1u << 3,       // a proxy thread's work for one channel of an operation
  kProxyStep = 1u << 4,     // one network transfer (step) of a proxy operation
  kProxyCtrl = 1u << 5,     // the proxy thread's own states (idle, sleep, append)
  kKernelCh = 1u << 6,      // one channel of the operation's kernel (v3 on)
  kNetPlugin = 1u << 7,     // an event the network plugin defines (v3 on)
  kGroupApi = 1u << 8,      // ncclGroupStart/End (v5 on)
  kCollApi = 1u << 9,       // the collective's API call (v5 on)
  kP2pApi = 1u << 10,       // ncclSend/ncclRecv's API call (v5 on)
  kKernelLaunch = 1u << 11  // the kernel launch (v5 on)
};

// States recordEventState reports (only those we read).
enum EventState : int {
  kProxyStepSendGpuWait = 8,
  kProxyStepSendWait = 9,
  kProxyStepRecvWait = 10,
  kProxyStepRecvFlushWait = 11,
  kProxyStepRecvGpuWait = 12,
  kProxyStepSendPeerWait = 20,
  kNetPluginUpdate = 21,
  kKernelChStop = 22,
};

// NCCL's logger (printf-like); we never call it.
using Logger = void (*)(int level, unsigned long flags, const char* file, int line, const char* fmt,
                        ...);

// The union members shared by versions 5 and 6 (version 4 has the same minus the API events
// and parentGroup; see DescrV4).
struct CollFields {
  uint64_t seq_number;  // the collective's number among its kind on its communicator
  const char* func;     // "AllReduce", "AllGather", ...
  const void* send_buff;
  void* recv_buff;
  size_t count;          // elements
  int root;              // rank of the root (broadcast, reduce)
  const char* datatype;  // "ncclFloat32", ...
  uint8_t n_channels;
  uint8_t n_warps;
  const char* algo;   // "Ring", "Tree", ...
  const char* proto;  // "LL", "LL128", "Simple"
  void* parent_group;
};

struct P2pFields {
  const char* func;  // "Send" or "Recv"
  void* buff;
  const char* datatype;
  size_t count;
  int peer;
  uint8_t n_channels;
  void* parent_group;
};

struct ProxyOpFields {
  pid_t pid;  // the process that made the operation: its parent is ours only if it is us
  uint8_t channel_id;
  int peer;
  int n_steps;
  int chunk_size;  // bytes
  int is_send;
};

struct ProxyStepFields {
  int step;
};

struct KernelChFields {
  uint8_t channel_id;
  uint64_t p_timer;  // GPU global timer at the channel's start
};

struct NetPluginFields {
  int64_t id;  // 16 low bits: the plugin's event version; next 16: the plugin type
  void* data;
};

// Versions 5 and 6 (6 only adds members to the union, which we do not read).
struct DescrV5 {
  uint64_t type;
  void* parent_obj;
  int rank;
  union {
    struct {
      bool graph_captured;
      int group_depth;
    } group_api;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      int root;
      void* stream;
      bool graph_captured;
    } coll_api;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      void* stream;
      bool graph_captured;
    } p2p_api;
    struct {
      void* stream;
    } kernel_launch;
    CollFields coll;
    P2pFields p2p;
    ProxyOpFields proxy_op;
    ProxyStepFields proxy_step;
    KernelChFields kernel_ch;
    NetPluginFields net_plugin;
  };
};

// Version 4: an 8-bit type; coll and p2p without parent_group.
struct DescrV4 {
  uint8_t type;
  void* parent_obj;
  int rank;
  union {
    struct {
      uint64_t seq_number;
      const char* func;
      const void* send_buff;
      void* recv_buff;
      size_t count;
      int root;
      const char* datatype;
      uint8_t n_channels;
      uint8_t n_warps;
      const char* algo;
      const char* proto;
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t n_channels;
    } p2p;
    ProxyOpFields proxy_op;
    ProxyStepFields proxy_step;
    KernelChFields kernel_ch;
    NetPluginFields net_plugin;
  };
};

// recordEventState's arguments (the same in versions 4 to 6).
union StateArgs {
  struct {
    size_t trans_size;  // bytes the step moved
  } proxy_step;
  struct {
    int appended_proxy_ops;
  } proxy_ctrl;
  struct {
    void* data;
  } net_plugin;
  struct {
    uint64_t p_timer;
  } kernel_ch;
};

// The exported tables.
struct ProfilerV5 {  // also version 6's (with its descriptor, DescrV5-compatible)
  const char* name;
  Result (*init)(void** context, uint64_t comm_id, int* activation_mask, const char* comm_name,
                 int n_nodes, int n_ranks, int rank, Logger log);
  Result (*start_event)(void* context, void** handle, DescrV5* descr);
  Result (*stop_event)(void* handle);
  Result (*record_event_state)(void* handle, int state, StateArgs* args);
  Result (*finalize)(void* context);
};

struct ProfilerV4 {
  const char* name;
  Result (*init)(void** context, int* activation_mask, const char* comm_name, uint64_t comm_hash,
                 int n_nodes, int n_ranks, int rank, Logger log);
  Result (*start_event)(void* context, void** handle, DescrV4* descr);
  Result (*stop_event)(void* handle);
  Result (*record_event_state)(void* handle, int state, StateArgs* args);
  Result (*finalize)(void* context);
};

// Offsets NCCL's compiler gives these members on x86-64 and aarch64 (LP64), checked here so
// that a change to our declarations cannot silently move them.
static_assert(offsetof(DescrV5, parent_obj) == 8 && offsetof(DescrV5, rank) == 16);
static_assert(offsetof(DescrV5, coll) == 24 && offsetof(DescrV4, coll) == 24);
static_assert(offsetof(CollFields, count) == 32 && offsetof(CollFields, n_channels) == 56);
static_assert(offsetof(CollFields, algo) == 64 && offsetof(CollFields, parent_group) == 80);
static_assert(offsetof(ProxyOpFields, is_send) == 20);

}  // namespace tt::nccl_abi
