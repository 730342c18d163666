#include "analysis/pass/aggregate.h"

#include <algorithm>
#include <tuple>

#include "analysis/pass/device_pass.h"
#include "analysis/pass/host_pass.h"
#include "analysis/pass/pass_context.h"
#include "core/parallel.h"
#include "model/args.h"

namespace tt::analysis {

using namespace layout;

void Agg::Merge(const Agg& o) {
  if (incl.count() == 0) meaning = o.meaning;
  incl.Merge(o.incl);
  self += o.self;
  cpu += o.cpu;
  accel += o.accel;
  bytes += o.bytes;
  peak = std::max(peak, o.peak);
  residual += o.residual;
  payload += o.payload;
  costs.Merge(o.costs);
  for (auto& [k, v] : o.by) by[k] += v;
  if (grid.empty()) grid = o.grid;
  if (block.empty()) block = o.block;
  if (registers < 0) registers = o.registers;
  if (shared_static < 0) shared_static = o.shared_static;
  if (shared_dynamic < 0) shared_dynamic = o.shared_dynamic;
}

Agg& DenseAggs::Get(uint32_t id, bool samples) {
  // Ids past what any name table holds (a damaged trace) share one slot: no resize to 2^32.
  if (id > model::kMaxNameId) id = model::kMaxNameId;
  if (id >= slot_.size()) slot_.resize(std::max<size_t>(size_t{id} + 1, slot_.size() * 2), -1);
  int32_t& s = slot_[id];
  if (s < 0) {
    s = static_cast<int32_t>(items_.size());
    items_.emplace_back(id, Agg{});
    items_.back().second.incl.KeepSamples(samples);
  }
  return items_[static_cast<size_t>(s)].second;
}

NameKeys KeysOf(const model::Process& p, const std::vector<std::string>& step_names) {
  NameKeys k;
  std::tie(k.correlation, k.external, k.bytes, k.addr, k.kind, k.op, k.grid, k.block, k.registers,
           k.shared_static, k.shared_dynamic, k.domain) =
      std::tuple_cat(
          model::KeyIds(p, {keys::kCorrelationId, keys::kExternalId, keys::kBytes, keys::kAddr,
                            keys::kKind, keys::kOp, keys::kGrid, keys::kBlock, keys::kRegisters,
                            keys::kStaticShared, keys::kDynamicShared, keys::kDomain}));
  k.module = model::KeyIds(p, {keys::kModule})[0];
  std::tie(k.float_ops, k.flops_method, k.output_bytes, k.input_bytes, k.by_framework, k.by_shape) =
      std::tuple_cat(
          model::KeyIds(p, {keys::kFloatOps, keys::kFlopsMethod, keys::kOutputBytes,
                            keys::kInputBytes, keys::kFlopsFramework, keys::kFlopsShape}));
  for (uint32_t i = 1; i < p.names.size(); ++i)
    if (!p.names[i].empty() &&
        std::find(step_names.begin(), step_names.end(), p.names[i]) != step_names.end())
      k.step_names.insert(i);
  return k;
}

int64_t ArgInt(const model::ArgsView& a, uint32_t key, int64_t dflt) {
  return model::ArgInt(a, key).value_or(dflt);
}

uint32_t ArgStr(const model::ArgsView& a, uint32_t key) { return model::ArgStr(a, key); }

namespace {

// Moves *from to the end of *to, freeing *from (no copy when *to is empty).
template <typename T>
void Append(std::vector<T>* to, std::vector<T>* from) {
  if (to->empty()) {
    to->swap(*from);
  } else {
    to->insert(to->end(), from->begin(), from->end());
  }
  std::vector<T>().swap(*from);
}

// Per track: whether another host thread track has the same (process, tid).
std::vector<char> SharedThreads(const model::TraceModel& m) {
  std::map<std::pair<size_t, uint64_t>, size_t> per_thread;
  auto is_thread = [&](size_t i) {
    return m.tracks[i].kind == TrackKind::kThread || m.tracks[i].kind == TrackKind::kImported;
  };
  for (size_t i = 0; i < m.tracks.size(); ++i)
    if (is_thread(i)) per_thread[{m.tracks[i].process, m.tracks[i].id}]++;
  std::vector<char> shared(m.tracks.size(), 0);
  for (size_t i = 0; i < m.tracks.size(); ++i)
    if (is_thread(i)) shared[i] = per_thread[{m.tracks[i].process, m.tracks[i].id}] > 1;
  return shared;
}

// Ops of every host track merged per process, with the memory each allocated (done before the
// device pass, to keep the peak low).
void MergeHostOps(Aggregates* a) {
  const model::TraceModel& m = *a->m;
  size_t np = m.processes.size();
  a->ops.assign(np, {});
  for (auto& t : a->host) {
    size_t p = m.tracks[t.track].process;
    for (auto& [id, g] : t.ops.items()) {
      auto [it, fresh] = a->ops[p].try_emplace(id);
      if (fresh) it->second.incl.KeepSamples(a->needs.op_samples);
      it->second.Merge(g);
    }
    t.ops = DenseAggs();
    if (a->needs.scopes) {
      a->scoped.resize(np);
      for (auto& [key, g] : t.scoped) {
        auto [it, fresh] = a->scoped[p].try_emplace(key);
        if (fresh) it->second.incl.KeepSamples(a->needs.op_samples);
        it->second.Merge(g);
      }
    }
    t.scoped = {};
  }
  for (size_t p = 0; p < np; ++p) {
    std::vector<std::vector<AllocEvent>*> runs;
    for (auto& t : a->host)
      if (m.tracks[t.track].process == p && !t.allocs.empty()) runs.push_back(&t.allocs);
    for (const auto& [op, mem] : AttributeAllocations(std::move(runs))) {
      Agg& g = a->ops[p][op];
      g.bytes = mem.bytes;
      g.peak = mem.peak;
      g.residual = mem.residual;
    }
  }
}

// Launches and external ids of each process, for the device pass.
std::vector<LinkTables> BuildLinks(Aggregates* a) {
  size_t np = a->m->processes.size();
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> l(np), e(np);
  for (auto& t : a->host) {
    size_t p = a->m->tracks[t.track].process;
    Append(&l[p], &t.launches);
    Append(&e[p], &t.externals);
  }
  std::vector<LinkTables> links(np);
  for (size_t p = 0; p < np; ++p) links[p].Build(std::move(l[p]), std::move(e[p]));
  return links;
}

// Device time of each op, and the links each method made.
void FoldDeviceLinks(Aggregates* a) {
  for (auto& t : a->device) {
    size_t p = a->m->tracks[t.track].process;
    for (auto& [op, ns] : t.accel_by_op) a->ops[p][op].accel += ns;
    if (t.linked_corr) a->links[kLinkByCorrelation] += t.linked_corr;
    if (t.linked_ext) a->links[kLinkByExternal] += t.linked_ext;
    if (t.linked_nesting) a->links[kLinkByNesting] += t.linked_nesting;
    a->unlinked += t.unlinked;
    a->device_activities += t.activities;
  }
}

}  // namespace

Aggregates Aggregate(const model::TraceModel& m, const Needs& needs, const Selection& sel,
                     const std::vector<Step>* steps, std::vector<Problem>* problems,
                     const TrackRiders* riders) {
  Aggregates a;
  a.m = &m;
  a.needs = needs;
  a.sel = sel;
  a.sel.threads = DefaultThreads(sel.threads);
  PassContext c{m, needs, {}, {}, {}, SharedThreads(m), riders};
  for (const auto& p : m.processes) c.keys.push_back(KeysOf(p, sel.step_names));
  for (size_t i = 0; i < m.tracks.size(); ++i)
    (m.tracks[i].kind == TrackKind::kDevice ? a.device : a.host).emplace_back().track = i;

  // Steps first when they select what is counted, or are asked for.
  if (sel.active() || needs.steps)
    a.steps = steps ? *steps : FindSteps(m, sel.step_names, a.sel.threads);
  if (sel.active()) c.windows = SelectWindows(m, a.steps, sel.steps, sel.skip_warmup);

  if (needs.code || needs.samples) a.code = LoadCodeIndex(m, problems);
  if (needs.code) c.code = &a.code;
  ScanHostTracks(c, &a, problems);
  MergeHostOps(&a);
  c.links = BuildLinks(&a);
  ScanDeviceTracks(c, &a, problems);
  FoldDeviceLinks(&a);
  if (needs.links) a.link_tables = std::move(c.links);
  for (auto& t : a.host) a.events += t.events;
  for (auto& t : a.device) a.events += t.events;
  return a;
}

}  // namespace tt::analysis
