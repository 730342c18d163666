// What-if tensor-fusion=BYTES: the collectives' transfers of each communicator, in their order,
// grouped into buckets of up to BYTES (a larger one split into pieces of BYTES), each bucket
// one transfer costing alpha + beta x its bytes per piece, with alpha and beta fitted on the
// job's own transfers. A bucket's transfer starts when every rank has arrived at each of its
// collectives; a rank waits only at the last one's call (the earlier ones return at once, as
// an asynchronous bucket's would), and its step's end waits for the bucket.
//
// Where the graph knows when each gradient became ready (PyTorch's AccumulateGrad nodes, as
// many on every rank) and the transfers are on one communicator, the buckets are DDP's: the
// gradients in the order they became ready, a bucket closed once it holds BYTES or more (a
// larger gradient is one bucket of its own); each bucket's transfer starts when its last
// gradient is ready on every rank. The last bucket stands in for the step's transfers (their
// arrivals, as above); the earlier ones are new transfers that only the step's end waits for.
// Only where the step's transfers carry the gradients' bytes (within 10%), as DDP's do.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "analysis/replay/whatif.h"
#include "analysis/replay/whatif_kind.h"
#include "core/error.h"

namespace tt::analysis::replay {

namespace {

bool IsTransfer(const Graph& g, const Node& n) {
  return IsCollectiveTransfer(g, n) && n.bytes >= 0;
}

// The communicator of a transfer's resource: its lanes ("communicator 0 (2)") are one.
std::string_view Communicator(const Graph& g, uint32_t v) {
  std::string_view name = g.resources[g.nodes[v].resource].name;
  size_t lane = name.rfind(" (");
  return lane == std::string_view::npos || name.back() != ')' ? name : name.substr(0, lane);
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

double Cost(const WhatIf& w, int64_t bytes) {
  return w.alpha + w.beta * static_cast<double>(bytes);
}

// Per rank, its gradients' nodes in the order they became ready (their ends); empty when a
// rank has none or ranks have different numbers of them.
std::vector<std::vector<uint32_t>> GradsByRank(const Graph& g) {
  std::vector<std::vector<uint32_t>> grads(g.ranks.size());
  for (uint32_t v = 0; v < g.nodes.size(); ++v) {
    int32_t rank = g.resources[g.nodes[v].resource].rank;
    if (g.nodes[v].grad && rank >= 0) grads[static_cast<size_t>(rank)].push_back(v);
  }
  for (auto& r : grads) {
    if (r.empty() || r.size() != grads[0].size()) return {};
    std::stable_sort(r.begin(), r.end(), [&](uint32_t a, uint32_t b) {
      return g.nodes[a].measured + g.nodes[a].took < g.nodes[b].measured + g.nodes[b].took;
    });
  }
  return grads;
}

// DDP's buckets from the gradients' ready times (see the top); false when the graph does not
// give them.
bool FuseByGradients(const WhatIf& w, const std::vector<uint32_t>& transfers, Graph* g) {
  for (uint32_t v : transfers)
    if (Communicator(*g, v) != Communicator(*g, transfers[0])) return false;
  auto grads = GradsByRank(*g);
  if (grads.empty() || g->ranks.size() < 2) return false;
  int64_t sent = 0, ready = 0;  // the transfers must carry the gradients (DDP's all-reduces)
  for (uint32_t v : transfers) sent += g->nodes[v].bytes;
  for (uint32_t v : grads[0]) ready += g->nodes[v].bytes;
  if (std::llabs(sent - ready) > ready / 10) return false;
  std::vector<size_t> last;  // per bucket, the index of its last gradient
  std::vector<int64_t> sizes;
  int64_t size = 0;
  for (size_t i = 0; i < grads[0].size(); ++i) {
    size += g->nodes[grads[0][i]].bytes;
    if (size >= w.bucket || i + 1 == grads[0].size()) last.push_back(i), sizes.push_back(size);
    if (size >= w.bucket) size = 0;
  }
  Fuse(w, transfers, g);
  uint32_t final_transfer = transfers.back();
  g->nodes[final_transfer].duration = static_cast<uint64_t>(std::llround(Cost(w, sizes.back())));
  for (size_t b = 0; b + 1 < last.size(); ++b) {
    uint64_t ready = 0;
    for (const auto& r : grads)
      ready = std::max(ready, g->nodes[r[last[b]]].measured + g->nodes[r[last[b]]].took);
    const Node& f = g->nodes[final_transfer];
    uint32_t c = g->AddNode(f.resource, f.label, NodeKind::kComm,
                            static_cast<uint64_t>(std::llround(Cost(w, sizes[b]))), ready);
    g->nodes[c].bytes = sizes[b];
    for (size_t r = 0; r < grads.size(); ++r) {
      g->AddEdge(grads[r][last[b]], c, 0, EdgeKind::kAutograd);
      g->AddEdge(c, g->ranks[r].sink, 0, EdgeKind::kAutograd);
    }
  }
  return true;
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

namespace {

size_t ApplyTensorFusion(const WhatIf& w, Graph* g) {
  std::vector<uint32_t> transfers;
  for (uint32_t v = 0; v < g->nodes.size(); ++v)
    if (IsTransfer(*g, g->nodes[v])) transfers.push_back(v);
  std::sort(transfers.begin(), transfers.end(), [&](uint32_t a, uint32_t b) {
    const Node &x = g->nodes[a], &y = g->nodes[b];
    std::string_view cx = Communicator(*g, a), cy = Communicator(*g, b);
    return cx != cy ? cx < cy : x.measured < y.measured;
  });
  if (!transfers.empty() && FuseByGradients(w, transfers, g)) return transfers.size();
  std::vector<uint32_t> bucket;
  int64_t size = 0;
  auto flush = [&] {
    if (!bucket.empty()) Fuse(w, bucket, g);
    bucket.clear();
    size = 0;
  };
  for (uint32_t v : transfers) {
    const Node& n = g->nodes[v];
    bool other = !bucket.empty() && Communicator(*g, bucket.back()) != Communicator(*g, v);
    if (other || (!bucket.empty() && size + n.bytes > w.bucket)) flush();
    bucket.push_back(v);
    size += n.bytes;
    if (size >= w.bucket) flush();
  }
  flush();
  return transfers.size();
}

}  // namespace

namespace {

bool ParseTensorFusion(const std::string& spec, const WhatIfNumbers& numbers, WhatIf* w) {
  if (spec.rfind("tensor-fusion=", 0) != 0 || !numbers.bytes) return false;
  w->pattern = "tensor-fusion";
  w->bucket = static_cast<int64_t>(numbers.bytes(spec, spec.substr(14)));
  if (w->bucket <= 0) throw Error("--what-if '" + spec + "': the bucket size must be above 0");
  return true;
}

std::string NoSizedCollective(const WhatIf&) {
  return "no collective joining ranks with its bytes";
}

void FitCost(const std::vector<const Graph*>& measured, WhatIf* w) {
  FitTransfers(measured, &w->alpha, &w->beta);
}

// 1 MiB to 256 MiB by powers of 2, and DDP's default 25 MiB.
std::vector<WhatIf> BucketSizes() {
  std::vector<WhatIf> v;
  for (int64_t mib : {1, 2, 4, 8, 16, 25, 32, 64, 128, 256}) {
    WhatIf w =
        MakeWhatIf("tensor-fusion", "tensor-fusion=" + std::to_string(mib) + "M", "tensor-fusion");
    w.bucket = mib << 20;
    v.push_back(w);
  }
  return v;
}

std::string BucketSetting(const WhatIf& w) {
  return "PyTorch DDP: DistributedDataParallel(..., bucket_cap_mb=" +
         std::to_string(w.bucket >> 20) +
         "); Horovod: HOROVOD_FUSION_THRESHOLD=" + std::to_string(w.bucket);
}

// The bucket sizes, where the collectives carry their bytes and their time shows on the
// critical path (2% of the step or more): communication exposed.
std::vector<WhatIf> SuggestBuckets(const SuggestInput& in) {
  double exposed = 0;
  for (const PathItem& it : in.base.path)
    if (it.kind == NodeKind::kComm) exposed += it.share;
  if (exposed < 0.02 ||
      !AnyNode(in.steps, [](const Graph& g, const Node& n) { return IsTransfer(g, n); }))
    return {};
  return BucketSizes();
}

std::string HowBucket(const WhatIf& w, const SuggestInput&) {
  return "the gradient bucket size: " + BucketSetting(w);
}

}  // namespace

const WhatIfKind& TensorFusionWhatIf() {
  static const WhatIfKind k{
      .name = "tensor-fusion",
      .syntax = "tensor-fusion=BYTES",
      .help =
          "the collectives' transfers grouped in buckets of up\nto BYTES (4M, 25M...; "
          "larger ones split), each costing\nalpha + beta x bytes fitted on the job's "
          "transfers",
      .parse = ParseTensorFusion,
      .apply = ApplyTensorFusion,
      .nothing = NoSizedCollective,
      .prepare = FitCost,
      .suggest = SuggestBuckets,
      .change = "bucket",
      .how = HowBucket,
      .settings = BucketSizes,
      .setting_of = BucketSetting,
  };
  return k;
}

}  // namespace tt::analysis::replay
