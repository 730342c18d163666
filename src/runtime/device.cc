#include "runtime/device.h"

#include "runtime/emit.h"

namespace tt::rt {

namespace {
constexpr int kMaxQueues = 1024;
struct Queue {
  uint64_t track = 0;
  Stream* stream = nullptr;
};
Queue g_queues[kMaxQueues];
int g_nqueues = 0;
}  // namespace

// Drops the queues (after fork the child owns none of them); called under the lock.
void ResetDeviceQueues() {
  g_nqueues = 0;
  for (auto& q : g_queues) q = Queue{};
}

void EmitDeviceActivity(uint32_t device, uint32_t queue, const char* name, layout::Category cat,
                        uint64_t start_ns, uint64_t end_ns, const Arg* args, uint32_t nargs) {
  if (!Enabled()) return;
  uint32_t id = InternName(name);
  if (id == 0) {
    CountDropReason(kDropNames, 1);
    return;
  }
  uint64_t track = DeviceTrackId(device, queue);
  Lock();
  Stream* s = nullptr;
  for (int i = 0; i < g_nqueues; ++i)
    if (g_queues[i].track == track) s = g_queues[i].stream;
  if (!s && g_nqueues < kMaxQueues) {
    s = OpenStream(layout::TrackKind::kDevice, track, "d", DefaultPacketBytes(), 0);
    if (s) {
      RegisterStreamLocked(s);
      g_queues[g_nqueues++] = Queue{track, s};
    }
  }
  if (!s) {
    CountDropReason(kDropNoSpace, 1);
  } else if (Reserve(s, 13 + ArgsSize(args, nargs))) {
    uint64_t ts = end_ns < s->last_ts ? s->last_ts : end_ns;
    uint64_t dur = end_ns > start_ns ? end_ns - start_ns : 0;
    uint8_t* p = PutHeader(s->pos, layout::kComplete, ts, s->last_ts);
    p = PutU32(p, id);
    p = PutU8(p, static_cast<uint8_t>(cat));
    p = PutU64(p, dur);
    Finish(s, PutArgs(p, args, nargs), ts);
  }
  Unlock();
}

}  // namespace tt::rt
