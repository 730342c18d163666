// Replay's roofline (roofline.h).
#include "analysis/replay/roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/replay/predict.h"
#include "core/human.h"

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

std::string RooflineSentence(const RooflineUse& u) {
  if (!u.steps || u.with_flops <= 0) return "";
  char b[320];
  std::snprintf(b, sizeof b,
                "Its %.3g changed node(s) with FLOPs keep %.4g GFLOP a step (%s measured, %s "
                "predicted)",
                u.with_flops, u.float_ops / 1e9, HumanDuration(u.flops_before_ns).c_str(),
                HumanDuration(u.flops_after_ns).c_str());
  std::string s = b;
  if (u.peak <= 0) return s + "; no roofline (the recording names no peak)";
  std::snprintf(b, sizeof b, "; the roofline allows them %s at %.4g GFLOP/s%s",
                HumanDuration(u.roof_ns).c_str(), u.peak / 1e9,
                u.bandwidth > 0 ? "" : " (no memory roof)");
  return s + b;
}

}  // namespace tt::analysis::replay
