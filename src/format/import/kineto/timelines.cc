// The Kineto importer's timelines once read (importer_state.h): steps synthesized from
// optimizer steps, ops scoped by module calls, redispatches merged, flows, and each timeline
// written as an imported stream.
#include <algorithm>

#include "format/import/kineto/importer_state.h"
#include "format/keys.h"

namespace tt::kineto {

using layout::ArgType;
using layout::Category;

// Without ProfilerStep markers, the loop's steps end where optimizer.step() ends: in each
// window (file), its k-th optimizer step ends step first + k (first: the steps the program
// had done when the window started, from the file's name); a step runs from the end of the
// window's previous one (the window's first: from its DataLoader fetch or zero_grad, else
// one median step before its optimizer step) to the end of its own optimizer step.
void KinetoImporter::SynthesizeSteps() {
  if (has_step_markers_ || optimizer_steps_.empty()) return;
  std::stable_sort(optimizer_steps_.begin(), optimizer_steps_.end(),
                   [](const OptStep& a, const OptStep& b) { return a.start < b.start; });
  Timeline* tl = optimizer_steps_.front().tl;
  uint32_t name = t_->Name("PyTorch step");
  if (!name) return;
  std::map<size_t, std::vector<uint64_t>> ends;  // per window, on the loop's thread
  for (const auto& s : optimizer_steps_) {
    auto& e = ends[s.window];
    if (s.tl == tl && (e.empty() || s.start >= e.back())) e.push_back(s.end);
  }
  for (const auto& [window, e] : ends) {
    uint64_t first = WindowFirstStepStart(tl, window, e);
    for (size_t k = 0; k < e.size(); ++k) {
      int64_t n = window_first_step_[window] + static_cast<int64_t>(k);
      if (steps_ && (n < steps_->first || n > steps_->last)) continue;
      LineEvent ev;
      ev.start = k == 0 ? first : e[k - 1];
      ev.end = e[k];
      ev.name = name;
      ev.category = Category::kStep;
      ev.args = tl->args.size();
      Int(tl, keys::kStep, n);
      ev.nargs = static_cast<uint32_t>(tl->args.size() - ev.args);
      tl->items.push_back(ev);
      out_->steps++;
    }
  }
}

uint64_t KinetoImporter::WindowFirstStepStart(Timeline* tl, size_t window,
                                              const std::vector<uint64_t>& ends) {
  uint64_t opt_start = UINT64_MAX;
  for (const auto& s : optimizer_steps_)
    if (s.window == window && s.tl == tl) opt_start = std::min(opt_start, s.start);
  uint64_t window_start = window_start_[window];
  for (const auto* marks : {&tl->fetches, &tl->zero_grads}) {
    uint64_t best = 0;
    for (uint64_t f : *marks)
      if (f < opt_start && f >= window_start) best = std::max(best, f);
    if (best) return best;
  }
  std::vector<uint64_t> lengths;
  for (size_t k = 1; k < ends.size(); ++k) lengths.push_back(ends[k] - ends[k - 1]);
  uint64_t median = 0;
  if (!lengths.empty()) {
    std::nth_element(lengths.begin(), lengths.begin() + lengths.size() / 2, lengths.end());
    median = lengths[lengths.size() / 2];
  }
  return std::max(window_start, opt_start > median ? opt_start - median : 0);
}

// Each op inside a module call (the bootstrap's "nn.Module: <path>" ranges) gets the path of
// the innermost one as its `module` argument.
void KinetoImporter::ScopeOps(Timeline* tl) {
  if (tl->modules.empty()) return;
  std::vector<LineEvent>& v = tl->items;
  std::vector<size_t> order(v.size());
  for (size_t i = 0; i < v.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return v[a].start != v[b].start ? v[a].start < v[b].start : v[a].end > v[b].end;
  });
  std::vector<std::pair<uint64_t, uint32_t>> open;  // end, path of the open module calls
  Arg a;
  a.key = t_->Name(keys::kModule);
  a.type = ArgType::kString;
  for (size_t i : order) {
    LineEvent& ev = v[i];
    if (ev.instant) continue;
    while (!open.empty() && open.back().first <= ev.start) open.pop_back();
    if (auto m = tl->modules.find(ev.name); m != tl->modules.end() && m->second) {
      open.emplace_back(ev.end, m->second);
    } else if (ev.category == Category::kFrameworkOp && !open.empty() && a.key &&
               ev.end <= open.back().first) {
      Reopen(tl, &ev);
      a.v.str = open.back().second;
      tl->args.push_back(a);
      ev.nargs++;
    }
  }
}

// An op whose one child is an op of its own name (a redispatch: aten::div_ calling
// aten::div_) is one call, as torch.profiler's own tables count it: the child goes.
void KinetoImporter::MergeRedispatches(Timeline* tl) {
  std::vector<LineEvent>& v = tl->items;
  std::stable_sort(v.begin(), v.end(), [](const LineEvent& a, const LineEvent& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  std::vector<size_t> parent(v.size(), SIZE_MAX), children(v.size(), 0), open;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].instant) continue;
    while (!open.empty() && v[open.back()].end <= v[i].start) open.pop_back();
    if (!open.empty() && v[i].end <= v[open.back()].end) {
      parent[i] = open.back();
      children[open.back()]++;
    }
    open.push_back(i);
  }
  std::vector<LineEvent> kept;
  kept.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    size_t p = parent[i];
    bool redispatch = p != SIZE_MAX && v[i].category == Category::kFrameworkOp &&
                      v[p].category == Category::kFrameworkOp && v[p].name == v[i].name &&
                      children[p] == 1;
    if (!redispatch) kept.push_back(v[i]);
  }
  v.swap(kept);
}

// The file's whole pairs as flow events, each with an id of its own in the process.
void KinetoImporter::WriteFlows() {
  for (auto& [id, f] : flow_ends_) {
    if (!f.out.tl || !f.in.tl) continue;
    ++flows_;
    for (auto [end, phase] :
         {std::pair{f.out, layout::FlowPhase::kOut}, std::pair{f.in, layout::FlowPhase::kIn}}) {
      LineEvent ev;
      ev.start = ev.end = end.ts;
      ev.instant = ev.flow = true;
      ev.flow_id = flows_;
      ev.flow_phase = static_cast<uint8_t>(phase);
      ev.args = end.tl->args.size();
      end.tl->items.push_back(ev);
    }
  }
  out_->flows = flows_;
}

void KinetoImporter::WriteTimeline(Timeline* tl) {
  if (tl->items.empty()) return;
  ScopeOps(tl);
  MergeRedispatches(tl);
  uint64_t track = tl->id;
  if (!tl->device && (track == 0 || track > (1u << 22))) track = 0;  // no kernel tid
  StreamFileWriter w =
      t_->NewStream(tl->device ? "kd" : "k", track,
                    tl->device ? layout::TrackKind::kDevice : layout::TrackKind::kImported);
  uint64_t first = UINT64_MAX;
  for (const auto& it : tl->items) first = std::min(first, it.start);
  std::string name = tl->name;
  if (name.empty())
    name = tl->device ? "GPU " + std::to_string(tl->id >> 32) + " stream " +
                            std::to_string(tl->id & 0xffffffffu)
                      : "thread " + std::to_string(tl->id);
  PutThreadName(w, first, name);
  WriteLineEvents(w, tl->items, tl->args, &t_->classes);
  w.Finish();
  out_->events +=
      std::count_if(tl->items.begin(), tl->items.end(), [](const LineEvent& e) { return !e.flow; });
  out_->tracks++;
}

}  // namespace tt::kineto
