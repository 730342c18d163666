// Device activity (GPU kernels, copies, sets, syncs): one stream per (device, queue), written
// by whichever thread delivers the records (e.g. CUPTI's buffer-completion thread).
#pragma once
#include <cstdint>

#include "format/writer.h"

namespace tt::rt {

// A complete event that ran on `device`, queue `queue`, from start_ns to end_ns (trace clock).
// Records of one queue must come in order of end time; one that ends before the previous is
// kept, with its end moved up to keep the stream ordered, and counted in a note at exit.
void EmitDeviceActivity(uint32_t device, uint32_t queue, const char* name, layout::Category cat,
                        uint64_t start_ns, uint64_t end_ns, const Arg* args, uint32_t nargs);

// Track id of a device queue, as it appears in the packet context.
inline uint64_t DeviceTrackId(uint32_t device, uint32_t queue) {
  return (uint64_t{device} << 32) | queue;
}

}  // namespace tt::rt
