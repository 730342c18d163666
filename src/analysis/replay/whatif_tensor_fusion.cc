// What-if tensor-fusion=BYTES: the collectives' transfers of each communicator, in their order,
// grouped into buckets of up to BYTES (a larger one split into pieces of BYTES), each bucket
// one transfer costing alpha + beta x its bytes per piece, with alpha and beta fitted on the
// job's own transfers. A bucket's transfer starts when every rank has arrived at each of its
// collectives; a rank waits only at the last one's call (the earlier ones return at once, as
// an asynchronous bucket's would), and its step's end waits for the bucket.
#include <algorithm>
#include <cmath>

#include "analysis/replay/whatif.h"

namespace tt::analysis::replay {

namespace {

bool IsTransfer(const Graph& g, const Node& n) {
  return n.kind == NodeKind::kComm && g.resources[n.resource].rank < 0 && n.bytes >= 0;
}

// One bucket: members (transfers, in order), the last standing for the bucket.
void Fuse(const WhatIf& w, const std::vector<uint32_t>& members, Graph* g) {
  uint32_t last = members.back();
  int64_t bytes = 0;
  for (uint32_t v : members) bytes += g->nodes[v].bytes;
  int64_t pieces =
      members.size() == 1 ? std::max<int64_t>(1, (bytes + w.bucket - 1) / w.bucket) : 1;
  double cost = static_cast<double>(pieces) * w.alpha + w.beta * static_cast<double>(bytes);
  g->nodes[last].duration = static_cast<uint64_t>(std::llround(cost));
  size_t n = g->edges.size();
  for (size_t i = 0; i < n; ++i) {
    const Edge e = g->edges[i];
    if (e.kind != EdgeKind::kCollective || e.to == last || e.from == last) continue;
    if (std::find(members.begin(), members.end(), e.to) != members.end()) {
      g->edges.push_back({e.from, last, 0, EdgeKind::kCollective});  // an arrival
    } else if (std::find(members.begin(), members.end(), e.from) != members.end()) {
      int32_t rank = g->resources[g->nodes[e.to].resource].rank;  // an exit: no wait there
      g->edges[i].from = last;
      g->edges[i].to = g->ranks[static_cast<size_t>(rank)].sink;
    }
  }
  for (uint32_t v : members)
    if (v != last) g->nodes[v].duration = 0;
}

}  // namespace

void FitTransfers(const std::vector<const Graph*>& graphs, double* alpha, double* beta) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const Graph* g : graphs)
    for (const Node& v : g->nodes)
      if (IsTransfer(*g, v)) {
        double x = static_cast<double>(v.bytes), y = static_cast<double>(v.duration);
        n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
      }
  *alpha = *beta = 0;
  if (n == 0) return;
  double var = sxx - sx * sx / n;
  if (var > 0) *beta = (sxy - sx * sy / n) / var;
  *alpha = (sy - *beta * sx) / n;
  if (var <= 0 || *beta < 0) {  // one size, or larger ones faster: all per byte, or all fixed
    *beta = sx > 0 ? sy / sx : 0;
    *alpha = sx > 0 ? 0 : sy / n;
  } else if (*alpha < 0) {  // through the origin
    *alpha = 0;
    *beta = sxy / sxx;
  }
}

size_t ApplyTensorFusion(const WhatIf& w, Graph* g) {
  std::vector<uint32_t> transfers;
  for (uint32_t v = 0; v < g->nodes.size(); ++v)
    if (IsTransfer(*g, g->nodes[v])) transfers.push_back(v);
  std::sort(transfers.begin(), transfers.end(), [&](uint32_t a, uint32_t b) {
    const Node &x = g->nodes[a], &y = g->nodes[b];
    return x.resource != y.resource ? x.resource < y.resource : x.measured < y.measured;
  });
  std::vector<uint32_t> bucket;
  int64_t size = 0;
  auto flush = [&] {
    if (!bucket.empty()) Fuse(w, bucket, g);
    bucket.clear();
    size = 0;
  };
  for (uint32_t v : transfers) {
    const Node& n = g->nodes[v];
    bool other = !bucket.empty() && g->nodes[bucket.back()].resource != n.resource;
    if (other || (!bucket.empty() && size + n.bytes > w.bucket)) flush();
    bucket.push_back(v);
    size += n.bytes;
    if (size >= w.bucket) flush();
  }
  flush();
  return transfers.size();
}

}  // namespace tt::analysis::replay
