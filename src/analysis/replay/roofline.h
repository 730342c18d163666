// Replay's roofline (issue 36): the least time a node's FLOPs and bytes take on the hardware that
// ran it, from the recording's peaks (hardware.json, as the step view's mfu and the report's
// roofline read them) and its ops' FLOPs and bytes (the op view's float_ops, input_bytes and
// output_bytes). precision= and op-fusion= bound what they predict by it, and say what their
// changed nodes keep of FLOPs and what the roofline allows them (predict.h's RooflineUse).
#pragma once
#include <cstdint>
#include <string>

#include "analysis/replay/build.h"
#include "analysis/replay/graph.h"

namespace tt::analysis::replay {

struct RooflineUse;  // predict.h

// The roofs a graph's threads and device streams run under: the CPU's and the GPU's FP32 and
// BF16 peaks (a CPU without BF16 instructions: its FP32 peak for both), and the GPU's memory
// bandwidth (its data sheet's; hardware.json holds none for the CPU: no memory roof there).
void SetRoofs(const Hardware& hw, Graph* g);

// The least time (ns) node n takes: its FLOPs over its resource's peak (a device node's the
// GPU's, else the CPU's; `half`: the BF16/FP16 peak), or its bytes x bytes_scale over the
// memory bandwidth, whichever is longer; 0 where its FLOPs are unknown or there is no peak.
double RoofNs(const Graph& g, const Node& n, bool half, double bytes_scale = 1);

// After a what-if set node v's duration (`before`: its time before): v's duration raised to
// RoofNs where below it, and v recorded in g->bounded.
void BoundByRoof(Graph* g, uint32_t v, uint64_t before, bool half, double bytes_scale = 1);

// What a precision= or op-fusion= what-if's changed nodes keep of FLOPs and what the roofline
// allows them, a step, in one sentence ("" where it changed none with FLOPs).
std::string RooflineSentence(const RooflineUse& u);

// The roof node n runs under.
const Roof& RoofOf(const Graph& g, const Node& n);

}  // namespace tt::analysis::replay
