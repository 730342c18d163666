// What a node keeps of what ran inside it (build_inner.h).
#include "analysis/replay/build_inner.h"

#include <algorithm>
#include <cstdlib>

#include "format/hardware.h"

namespace tt::analysis::replay {

std::vector<uint32_t> InternStacks(const ProcessCode& pc, LabelTable* names) {
  std::unordered_map<std::string, uint32_t> file_index;
  for (uint32_t i = 0; i < names->files.size(); ++i) file_index.emplace(names->files[i], i);
  std::vector<uint32_t> out;
  out.reserve(pc.stacks.size());
  for (const std::vector<uint32_t>& stack : pc.stacks) {
    std::vector<LabelTable::Frame> frames;
    for (uint32_t f : stack) {
      const CodeFrame& fr = pc.frames[f];
      auto [it, fresh] =
          file_index.try_emplace(fr.file, static_cast<uint32_t>(names->files.size()));
      if (fresh) names->files.push_back(fr.file);
      frames.push_back({it->second, fr.line});
    }
    out.push_back(static_cast<uint32_t>(names->stacks.size()));
    names->stacks.push_back(std::move(frames));
  }
  return out;
}

uint32_t InnerPlacer::Label(uint32_t name) {
  if (name >= labels_.size()) labels_.resize(name + 1, kNoIndex);
  if (labels_[name] == kNoIndex)
    labels_[name] = g_.AddLabel(std::string(r_.m->processes[r_.process].Name(name)));
  return labels_[name];
}

uint32_t InnerPlacer::Dims(uint32_t name) {
  if (!name) return kNoIndex;
  LabelTable& t = *g_.names;
  std::string text(r_.m->processes[r_.process].Name(name));
  auto [it, fresh] = t.dims_index.try_emplace(text, static_cast<uint32_t>(t.dims.size()));
  if (fresh) t.dims.push_back(std::move(text));
  return it->second;
}

double CoreFlopsPerNs(const model::TraceModel& m) {
  for (const auto& p : m.processes) {
    CpuPeak c = ReadHardwareFile(p.recording);
    // "CPU NAME: N cores x ..." (format/hardware.cc)
    size_t at = c.source.find(" cores x ");
    size_t from = c.source.rfind(' ', at == std::string::npos ? 0 : at - 1);
    if (c.fp32 <= 0 || at == std::string::npos || from == std::string::npos) continue;
    double cores = std::atof(c.source.c_str() + from + 1);
    if (cores >= 1) return c.fp32 / cores / 1e9;
  }
  return 0;
}

uint32_t InnerPlacer::Stack(uint32_t name, size_t track, uint64_t start, uint64_t end) {
  if (!stacks_) return kNoIndex;
  uint32_t s = stacks_->Of(name, r_.m->tracks[track].id, start, end);
  return s < r_.stacks.size() ? r_.stacks[s] : kNoIndex;
}

void InnerPlacer::Place(const Atom& at, size_t track, uint32_t v) {
  Node& n = g_.nodes[v];
  if (at.module) n.scope = Label(at.module);
  n.dims = Dims(at.dims), n.flops = at.flops;
  n.stack = Stack(at.name, track, at.start, at.end);
  if (at.seq >= 0) AddForward(at.seq, at.start, v, kNoIndex);
  if (at.inner_end <= at.inner_begin) return;
  const std::vector<InnerSlice>& all = (*r_.atoms)[track].inner;
  std::vector<Inner>& out = g_.inner->slices;
  uint32_t base = static_cast<uint32_t>(out.size());
  double span = static_cast<double>(at.end > at.start ? at.end - at.start : 1);
  for (uint32_t i = at.inner_begin; i < at.inner_end; ++i) {
    const InnerSlice& s = all[i];
    Inner x;
    x.node = v;
    x.parent = s.parent == kNoIndex ? kNoIndex : base + (s.parent - at.inner_begin);
    x.label = Label(s.name);
    x.scope = s.module ? Label(s.module) : kNoIndex;
    x.stack = Stack(s.name, track, s.start, s.end);
    x.share = static_cast<double>(s.end - s.start) / span;
    x.dims = Dims(s.dims), x.flops = s.flops;
    if (s.seq >= 0) AddForward(s.seq, s.start, v, static_cast<uint32_t>(out.size()));
    out.push_back(x);
  }
  spans_[v] = {base, static_cast<uint32_t>(out.size()), &all[at.inner_begin], at.inner_begin};
}

// The op that made a backward op is the last one with its sequence number: the ops before it
// in the same call show the number it is about to take (aten::dropout's bernoulli_ and mul
// share it; mul made MulBackward0).
void InnerPlacer::AddForward(int64_t seq, uint64_t start, uint32_t node, uint32_t inner) {
  auto [it, fresh] = forwards_.try_emplace(seq, Made{start, node, inner});
  if (!fresh && start >= it->second.start) it->second = {start, node, inner};
}

void InnerPlacer::LinkBackwards(const std::vector<std::pair<uint32_t, int64_t>>& backwards) {
  for (auto [v, seq] : backwards) {
    auto it = forwards_.find(seq);
    if (it != forwards_.end() && it->second.node != v)
      g_.inner->backwards.push_back({it->second.node, it->second.inner, v});
  }
}

uint32_t InnerPlacer::InnerAt(uint32_t v, uint64_t t) const {
  auto it = spans_.find(v);
  if (it == spans_.end()) return kNoIndex;
  const Span& sp = it->second;
  // The last slice to begin before t, else the slices around it (by parent) that hold t. Before:
  // the launch's own API call, which begins at t, is not what launched the kernel (a what-if on
  // cudaLaunchKernel changes the call, not the kernel).
  const InnerSlice* end = sp.slices + (sp.last - sp.first);
  const InnerSlice* c = std::lower_bound(
      sp.slices, end, t, [](const InnerSlice& s, uint64_t x) { return s.start < x; });
  uint32_t i = c == sp.slices ? kNoIndex : static_cast<uint32_t>(c - sp.slices - 1);
  while (i != kNoIndex && !(t < sp.slices[i].end))
    i = sp.slices[i].parent == kNoIndex ? kNoIndex : sp.slices[i].parent - sp.begin;
  return i == kNoIndex ? kNoIndex : sp.first + i;
}

}  // namespace tt::analysis::replay
