// A stand-in for NCCL's side of the profiler plugin interface, as tests/programs/fake_cupti.cc
// is for CUPTI: it opens the library in NCCL_PROFILER_PLUGIN and looks up the interface's
// symbol as NCCL does, then drives the calls NCCL would make.
//
//   fake_nccl_loader job VERSION N M   two ranks (forked children) of one communicator, each
//                                      running N all-reduces of kAllReduceCount float32 (rank 1
//                                      entering each after rank 0) and M all-gathers of
//                                      kAllGatherCount bfloat16 per rank, each
//                                      with proxy operations, steps and kernel channels, then
//                                      one send/receive pair; VERSION: v6, v5 or v4
//   fake_nccl_loader bad               calls with bad arguments; prints "ok" when the plugin
//                                      refused each with the right code and crashed on none
//   fake_nccl_loader flood N           N events started before any stops (more than the
//                                      plugin's pool): prints how many got no handle
//   fake_nccl_loader symbol NAME       exit 0 when the plugin exports NAME
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <type_traits>
#include <vector>

#include "sources/nccl/nccl_profiler_abi.h"

namespace abi = tt::nccl_abi;

namespace {

constexpr uint64_t kCommHash = 0x5eed0000abcd1234ull;
constexpr size_t kAllReduceCount = 1 << 18;  // float32: 1 MiB
constexpr size_t kAllGatherCount = 1 << 16;  // bfloat16, per rank: 128 KiB
constexpr int kChannels = 2, kSteps = 4;

// Rank 0 writes a byte here once it entered an all-reduce; rank 1 reads one before it enters
// its own: rank 1 is the straggler of every all-reduce, whatever the scheduler does.
int g_order[2] = {-1, -1};

void SleepUs(long us) {
  timespec t{us / 1000000, (us % 1000000) * 1000};
  nanosleep(&t, nullptr);
}

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "fake_nccl_loader: %s\n", what);
  std::exit(2);
}

void* OpenPlugin() {
  const char* path = std::getenv("NCCL_PROFILER_PLUGIN");
  if (!path || !*path) Die("NCCL_PROFILER_PLUGIN is not set");
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) Die(dlerror());
  return lib;
}

// The calls of one version, over the descriptor layout of that version.
template <typename Table, typename Descr>
struct Driver {
  Table* t;
  void* ctx = nullptr;
  int rank;

  void Check(int rc, const char* what) {
    if (rc != abi::kSuccess) Die(what);
  }
  void* Start(Descr* d) {
    void* h = nullptr;
    Check(t->start_event(ctx, &h, d), "startEvent failed");
    return h;
  }
  // Operation `op`'s proxy work on `channels` channels as NCCL's proxy thread reports it: it
  // appends every channel's proxy operation at once (each starts there), the kernel's channels
  // start, then each operation's steps run, each reporting its bytes, and everything stops.
  void Proxy(void* op, int channels, int peer, bool send_first, int chunk) {
    void* ops[kChannels];
    void* kernel[kChannels];
    for (int c = 0; c < channels; ++c)
      ops[c] = StartOp(op, c, peer, (c % 2 == 0) == send_first, chunk);
    for (int c = 0; c < channels; ++c) {
      Descr kd{};
      kd.type = abi::kKernelCh;
      kd.parent_obj = op;
      kd.rank = rank;
      kd.kernel_ch.channel_id = static_cast<uint8_t>(c);
      kernel[c] = Start(&kd);
    }
    for (int c = 0; c < channels; ++c) {
      Steps(ops[c], (c % 2 == 0) == send_first, chunk);
      Check(t->stop_event(ops[c]), "stopEvent (proxy op) failed");
    }
    for (int c = 0; c < channels; ++c) {
      abi::StateArgs a{};
      Check(t->record_event_state(kernel[c], abi::kKernelChStop, &a), "kernel channel state");
      Check(t->stop_event(kernel[c]), "stopEvent (kernel channel) failed");
    }
  }
  void* StartOp(void* op, int channel, int peer, bool send, int chunk) {
    Descr d{};
    d.type = abi::kProxyOp;
    d.parent_obj = op;
    d.rank = rank;
    d.proxy_op.pid = getpid();
    d.proxy_op.channel_id = static_cast<uint8_t>(channel);
    d.proxy_op.peer = peer;
    d.proxy_op.n_steps = kSteps;
    d.proxy_op.chunk_size = chunk;
    d.proxy_op.is_send = send;
    return Start(&d);
  }
  void Steps(void* ph, bool send, int chunk) {
    for (int s = 0; s < kSteps; ++s) {
      Descr sd{};
      sd.type = abi::kProxyStep;
      sd.parent_obj = ph;
      sd.rank = rank;
      sd.proxy_step.step = s;
      void* sh = Start(&sd);
      abi::StateArgs a{};
      a.proxy_step.trans_size = static_cast<size_t>(chunk);
      Check(t->record_event_state(sh, send ? abi::kProxyStepSendWait : abi::kProxyStepRecvWait, &a),
            "recordEventState failed");
      SleepUs(100);
      Check(t->stop_event(sh), "stopEvent (step) failed");
    }
  }
  void Coll(const char* func, uint64_t seq, size_t count, const char* dtype, const char* algo,
            int chunk) {
    Descr g{};
    g.type = abi::kGroup;
    void* gh = Start(&g);
    Descr d{};
    d.type = abi::kColl;
    d.parent_obj = gh;
    d.rank = rank;
    d.coll.seq_number = seq;
    d.coll.func = func;
    d.coll.count = count;
    d.coll.root = -1;
    d.coll.datatype = dtype;
    d.coll.n_channels = kChannels;
    d.coll.algo = algo;
    d.coll.proto = "Simple";
    char byte = 0;
    bool ordered = std::strcmp(func, "AllReduce") == 0 && g_order[0] >= 0;
    if (ordered && rank == 1 && read(g_order[0], &byte, 1) != 1) Die("order pipe");
    void* ch = Start(&d);
    if (ordered && rank == 0 && write(g_order[1], &byte, 1) != 1) Die("order pipe");
    Check(t->stop_event(ch), "stopEvent (coll) failed");  // enqueued; the proxy does the rest
    Check(t->stop_event(gh), "stopEvent (group) failed");
    Proxy(ch, kChannels, 1 - rank, true, chunk);
  }
  void P2p(bool send) {
    Descr d{};
    d.type = abi::kP2p;
    d.rank = rank;
    d.p2p.func = send ? "Send" : "Recv";
    d.p2p.count = 1024;
    d.p2p.datatype = "ncclInt32";
    d.p2p.peer = 1 - rank;
    d.p2p.n_channels = 1;
    void* h = Start(&d);
    Check(t->stop_event(h), "stopEvent (p2p) failed");
    Proxy(h, 1, 1 - rank, send, 4096);
  }
};

template <typename Table, typename Descr>
int RunRank(Table* t, int rank, int n, int m) {
  Driver<Table, Descr> d{t, nullptr, rank};
  int mask = 0;
  int rc;
  if constexpr (std::is_same_v<Table, abi::ProfilerV4>)
    rc = t->init(&d.ctx, &mask, "fake", kCommHash, 1, 2, rank, nullptr);
  else
    rc = t->init(&d.ctx, kCommHash, &mask, "fake", 1, 2, rank, nullptr);
  if (rc != abi::kSuccess || !d.ctx) Die("init failed");
  if (!(mask & abi::kColl) || !(mask & abi::kProxyOp)) Die("collectives not asked for");
  for (int i = 0; i < n; ++i)
    d.Coll("AllReduce", static_cast<uint64_t>(i), kAllReduceCount, "ncclFloat32", "Ring", 131072);
  for (int i = 0; i < m; ++i)
    d.Coll("AllGather", static_cast<uint64_t>(i), kAllGatherCount, "ncclBfloat16", "Tree", 65536);
  d.P2p(rank == 0);
  return t->finalize(d.ctx) == abi::kSuccess ? 0 : 1;
}

int Job(const std::string& version, int n, int m) {
  pid_t kids[2];
  if (pipe(g_order) != 0) Die("pipe failed");
  for (int rank = 0; rank < 2; ++rank) {
    kids[rank] = fork();
    if (kids[rank] < 0) Die("fork failed");
    if (kids[rank] > 0) continue;
    close(g_order[rank == 0 ? 0 : 1]);  // the end this rank does not use: EOF if the other dies
    void* lib = OpenPlugin();
    void* sym = dlsym(lib, ("ncclProfiler_" + version).c_str());
    if (!sym) Die("no such symbol");
    if (version == "v4")
      std::exit(
          RunRank<abi::ProfilerV4, abi::DescrV4>(static_cast<abi::ProfilerV4*>(sym), rank, n, m));
    std::exit(
        RunRank<abi::ProfilerV5, abi::DescrV5>(static_cast<abi::ProfilerV5*>(sym), rank, n, m));
  }
  close(g_order[0]);
  close(g_order[1]);
  int bad = 0;
  for (pid_t k : kids) {
    int st = 0;
    if (waitpid(k, &st, 0) != k || !WIFEXITED(st) || WEXITSTATUS(st) != 0) bad++;
  }
  return bad ? 1 : 0;
}

int failures = 0;
void Expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    failures++;
  }
}

int Bad() {
  auto* t = static_cast<abi::ProfilerV5*>(dlsym(OpenPlugin(), "ncclProfiler_v5"));
  if (!t) Die("no ncclProfiler_v5");
  int mask = 0, local = 0;
  void* ctx = nullptr;
  Expect(t->init(nullptr, 1, &mask, "c", 1, 1, 0, nullptr) == abi::kInvalidArgument,
         "init without a context pointer");
  Expect(t->init(&ctx, 1, nullptr, "c", 1, 1, 0, nullptr) == abi::kInvalidArgument,
         "init without a mask pointer");
  Expect(t->init(&ctx, 1, &mask, nullptr, 1, 1, 0, nullptr) == abi::kSuccess && ctx,
         "init of a good communicator");
  void* h = &local;
  abi::DescrV5 d{};
  d.type = abi::kColl;
  Expect(t->start_event(&local, &h, &d) == abi::kInvalidArgument && !h, "start, unknown context");
  Expect(t->start_event(ctx, &h, nullptr) == abi::kInvalidArgument, "start without descriptor");
  Expect(t->start_event(ctx, nullptr, &d) == abi::kInvalidArgument, "start without handle slot");
  d.type = uint64_t{1} << 40;  // a type of a later version
  Expect(t->start_event(ctx, &h, &d) == abi::kSuccess && !h, "start of an unknown event type");
  Expect(t->stop_event(nullptr) == abi::kSuccess, "stop of a null handle");
  Expect(t->stop_event(&local) == abi::kInvalidArgument, "stop of a handle not the plugin's");
  Expect(t->record_event_state(&local, abi::kProxyStepSendWait, nullptr) == abi::kInvalidArgument,
         "state of a handle not the plugin's");
  d.type = abi::kProxyStep;  // a step whose parent is no proxy op of ours
  d.parent_obj = &local;
  Expect(t->start_event(ctx, &h, &d) == abi::kSuccess && h, "start of an orphan step");
  Expect(t->record_event_state(h, abi::kProxyStepSendWait, nullptr) == abi::kSuccess,
         "state without arguments");
  Expect(t->stop_event(h) == abi::kSuccess, "stop of the orphan step");
  Expect(t->stop_event(h) == abi::kInvalidArgument, "second stop of one handle");
  Expect(t->finalize(&local) == abi::kInvalidArgument, "finalize of an unknown context");
  Expect(t->finalize(ctx) == abi::kSuccess, "finalize");
  Expect(t->finalize(ctx) == abi::kInvalidArgument, "second finalize");
  Expect(dlsym(OpenPlugin(), "ncclProfiler_v3") == nullptr, "no version 3 exported");
  if (failures == 0) std::printf("ok\n");
  return failures ? 1 : 0;
}

// Starts n groups without stopping any (more than the plugin's pool holds), then stops them:
// prints how many the plugin gave no handle for.
int Flood(int n) {
  auto* t = static_cast<abi::ProfilerV5*>(dlsym(OpenPlugin(), "ncclProfiler_v5"));
  if (!t) Die("no ncclProfiler_v5");
  int mask = 0;
  void* ctx = nullptr;
  if (t->init(&ctx, 7, &mask, "flood", 1, 1, 0, nullptr) != abi::kSuccess) Die("init failed");
  std::vector<void*> handles(static_cast<size_t>(n), nullptr);
  int refused = 0;
  for (void*& h : handles) {
    abi::DescrV5 d{};
    d.type = abi::kGroup;
    if (t->start_event(ctx, &h, &d) != abi::kSuccess) Die("startEvent failed");
    refused += h == nullptr;
  }
  for (void* h : handles)
    if (t->stop_event(h) != abi::kSuccess) Die("stopEvent failed");
  std::printf("refused %d\n", refused);
  return t->finalize(ctx) == abi::kSuccess ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "job" && argc == 5) return Job(argv[2], std::atoi(argv[3]), std::atoi(argv[4]));
  if (mode == "bad") return Bad();
  if (mode == "flood" && argc == 3) return Flood(std::atoi(argv[2]));
  if (mode == "symbol" && argc == 3) return dlsym(OpenPlugin(), argv[2]) ? 0 : 1;
  std::fprintf(stderr, "usage: fake_nccl_loader job v6|v5|v4 N M | bad | flood N | symbol NAME\n");
  return 2;
}
