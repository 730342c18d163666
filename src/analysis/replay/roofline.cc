// Replay's roofline (roofline.h).
#include "analysis/replay/roofline.h"

#include <algorithm>
#include <cmath>

namespace tt::analysis::replay {

void SetRoofs(const Hardware& hw, Graph* g) {
  g->cpu_roof = {hw.cpu.fp32, std::max(hw.cpu.fp32, hw.cpu.bf16), 0};
  g->gpu_roof = {hw.gpu.fp32, std::max(hw.gpu.fp32, hw.gpu.bf16), hw.gpu.bandwidth};
}

const Roof& RoofOf(const Graph& g, const Node& n) {
  return n.kind == NodeKind::kDevice ? g.gpu_roof : g.cpu_roof;
}

double RoofNs(const Graph& g, const Node& n, bool half, double bytes_scale) {
  const Roof& r = RoofOf(g, n);
  double peak = half ? r.half : r.fp32;
  if (n.float_ops < 0 || peak <= 0) return 0;
  double t = static_cast<double>(n.float_ops) / peak * 1e9;
  if (n.moved_bytes >= 0 && r.bandwidth > 0)
    t = std::max(t, static_cast<double>(n.moved_bytes) * bytes_scale / r.bandwidth * 1e9);
  return t;
}

void BoundByRoof(Graph* g, uint32_t v, uint64_t before, bool half, double bytes_scale) {
  Node& n = g->nodes[v];
  const Roof& r = RoofOf(*g, n);
  Bounded b{v, n.float_ops, before, 0, false, half ? r.half : r.fp32, r.bandwidth};
  double roof = RoofNs(*g, n, half, bytes_scale);
  b.roof = static_cast<uint64_t>(std::llround(std::ceil(roof)));
  if (b.roof > n.duration) {
    n.duration = b.roof;
    b.raised = true;
  }
  g->bounded.push_back(b);
}

}  // namespace tt::analysis::replay
