// Replay's dependency graph (graph.h): building blocks.
#include "analysis/replay/graph.h"

#include <algorithm>
#include <utility>

#include "model/meaning.h"

namespace tt::analysis::replay {

const char* NodeKindName(NodeKind k) {
  switch (k) {
    case NodeKind::kOp:
      return "op";
    case NodeKind::kRuntime:
      return "runtime";
    case NodeKind::kInputWait:
      return "input wait";
    case NodeKind::kInput:
      return "input";
    case NodeKind::kDevice:
      return "device";
    case NodeKind::kComm:
      return "communication";
    case NodeKind::kMarker:
      return "marker";
  }
  return "?";
}

uint32_t Graph::AddLabel(const std::string& name) {
  LabelTable& t = *names;
  auto [it, fresh] = t.index.emplace(name, static_cast<uint32_t>(t.labels.size()));
  if (fresh) {
    t.labels.push_back(name);
    t.types.push_back(model::OpTypeOf(name));
  }
  return it->second;
}

uint32_t Graph::AddResource(const std::string& name, int32_t rank) {
  Resource r;
  r.name = name;
  r.rank = rank;
  resources.push_back(std::move(r));
  return static_cast<uint32_t>(resources.size() - 1);
}

uint32_t Graph::AddNode(uint32_t resource, uint32_t label, NodeKind kind, uint64_t duration,
                        uint64_t measured) {
  Node n;
  n.resource = resource;
  n.label = label;
  n.kind = kind;
  n.duration = duration;
  n.took = duration;
  n.measured = measured;
  nodes.push_back(n);
  return static_cast<uint32_t>(nodes.size() - 1);
}

void Graph::AddEdge(uint32_t from, uint32_t to, uint64_t gap, EdgeKind kind, bool from_start) {
  edges.push_back({from, to, gap, kind, from_start});
}

size_t Graph::AddRank(const std::string& label, uint64_t start, uint64_t measured) {
  uint32_t res = AddResource(label + " step", static_cast<int32_t>(ranks.size()));
  resources[res].markers = true;
  uint32_t mark = AddLabel("(step)");
  RankStep r;
  r.label = label;
  r.measured = measured;
  r.source = AddNode(res, mark, NodeKind::kMarker, 0, start);
  nodes[r.source].release = start;
  r.sink = AddNode(res, mark, NodeKind::kMarker, 0, start + measured);
  ranks.push_back(r);
  return ranks.size() - 1;
}

uint64_t Graph::MeasuredStep() const {
  uint64_t m = 0;
  for (const RankStep& r : ranks)
    if (!r.participant) m = std::max(m, r.measured);
  return m;
}

}  // namespace tt::analysis::replay
