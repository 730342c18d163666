// The socket source's events (net_events.h), written into the calling thread's own stream:
//   net.send / net.recv   communication slices with conn, offset, bytes
//   net.connection        an instant with conn, fd, local, peer, once per connection and process
// The analysis (analysis/p2p) reads them back by these names and keys.
#include "sources/net/net_events.h"

#include <atomic>
#include <cstdio>

#include "format/keys.h"
#include "runtime/emit.h"
#include "runtime/process.h"

using tt::Arg;
using tt::layout::ArgType;
using tt::layout::Category;

namespace {

// An interned key, looked up once (0 while interning fails: the event is then skipped).
uint32_t Key(std::atomic<uint32_t>* slot, const char* key) {
  uint32_t id = slot->load(std::memory_order_relaxed);
  if (__builtin_expect(id == 0, 0)) {
    id = tt::rt::InternName(key);
    slot->store(id, std::memory_order_relaxed);
  }
  return id;
}

std::atomic<uint32_t> g_conn{0}, g_offset{0}, g_bytes{0}, g_fd{0}, g_local{0}, g_peer{0};

Arg UintArg(uint32_t key, uint64_t v) {
  Arg a;
  a.key = key;
  a.type = ArgType::kUint;
  a.v.u = v;
  return a;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) uint64_t tt_net_now_(void) {
  // A thread's first call: its stream first, so that the start is read on the stream's clock
  // (as the end, written into the stream, is).
  if (!tt::rt::t_stream && tt::rt::Enabled()) tt::rt::AttachThread();
  return tt::rt::ThreadNowNs();
}

__attribute__((visibility("default"))) void tt_net_io_(int recv, uint64_t conn, uint64_t offset,
                                                       uint64_t bytes, uint64_t start_ns) {
  if (!tt::rt::Enabled()) return;
  Arg args[3] = {UintArg(Key(&g_conn, tt::keys::kConn), conn),
                 UintArg(Key(&g_offset, tt::keys::kOffset), offset),
                 UintArg(Key(&g_bytes, tt::keys::kBytes), bytes)};
  if (!args[0].key || !args[1].key || !args[2].key) return;
  uint64_t end = tt::rt::ThreadNowNs();
  tt::rt::EmitComplete(recv ? tt::keys::kNetRecv : tt::keys::kNetSend, Category::kCommunication,
                       end > start_ns ? end - start_ns : 0, args, 3, end);
}

__attribute__((visibility("default"))) int tt_net_conn_(uint64_t conn, int fd, const char* local,
                                                        const char* peer) {
  if (!tt::rt::Enabled()) return 0;
  Arg args[4] = {UintArg(Key(&g_conn, tt::keys::kConn), conn),
                 UintArg(Key(&g_fd, tt::keys::kFd), static_cast<uint64_t>(fd)),
                 {},
                 {}};
  args[2].key = Key(&g_local, tt::keys::kLocal);
  args[2].type = ArgType::kString;
  args[2].v.str = tt::rt::InternName(local);
  args[3].key = Key(&g_peer, tt::keys::kPeer);
  args[3].type = ArgType::kString;
  args[3].v.str = tt::rt::InternName(peer);
  for (const Arg& a : args)
    if (!a.key || (a.type == ArgType::kString && !a.v.str)) return 0;
  tt::rt::EmitInstant(tt::keys::kNetConnection, Category::kCommunication, args, 4);
  return 1;
}

}  // extern "C"
