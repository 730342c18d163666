#include "analysis/steps.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/parallel.h"
#include "core/error.h"
#include "format/keys.h"
#include "model/args.h"
#include "model/scan.h"

namespace tt::analysis {

using layout::Category;

bool InWindows(const std::vector<Window>& w, uint64_t ts) {
  auto it = std::upper_bound(w.begin(), w.end(), ts,
                             [](uint64_t t, const Window& x) { return t < x.start; });
  return it != w.begin() && ts <= std::prev(it)->end;
}

void StepTrackScan::OnSlice(const model::Slice& s) {
  if (s.category != Category::kStep && !names->count(s.name)) return;
  Step st;
  st.start = s.start;
  st.end = s.end;
  st.process = process;
  st.marker = s.category == Category::kStep;
  st.name = s.name;
  Arg a;
  if (model::ArgNumber(s.args, step_key, &a) && a.type != layout::ArgType::kFloat)
    st.number = a.v.i;
  found.push_back(st);
}

StepScans::StepScans(const model::TraceModel& m, const std::vector<std::string>& step_names)
    : names_(m.processes.size()) {
  std::vector<uint32_t> step_key(m.processes.size(), 0);
  for (size_t p = 0; p < m.processes.size(); ++p)
    for (uint32_t i = 1; i < m.processes[p].names.size(); ++i) {
      const std::string& n = m.processes[p].names[i];
      if (std::find(step_names.begin(), step_names.end(), n) != step_names.end())
        names_[p].insert(i);
      if (n == keys::kStep) step_key[p] = i;
    }
  for (size_t i = 0; i < m.tracks.size(); ++i)
    if (m.tracks[i].kind != layout::TrackKind::kDevice) {
      size_t p = m.tracks[i].process;
      tracks.push_back({&names_[p], step_key[p], p, {}});
      track_index.push_back(i);
    }
}

std::vector<Step> StepScans::Finish() {
  std::vector<Step> steps;
  for (auto& t : tracks) {
    std::vector<Step>& f = t.found;
    // A step inside an enclosing step of its thread is not a step of its own when both are
    // step markers (Keras 3's first multi_step_on_iterator holds the one_step_on_data marker
    // of its tf.function's tracing) or both have the same name (JAX's PjitFunction(f) event
    // inside another of the same name). Other nested steps (--step-name NAME inside a step
    // marker) are kept as asked.
    std::sort(f.begin(), f.end(), [](const Step& a, const Step& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<const Step*> open;  // kept steps that may enclose later ones
    for (const Step& s : f) {
      while (!open.empty() && open.back()->end < s.start) open.pop_back();
      bool nested = false;
      for (const Step* e : open)
        if (e->end >= s.end && ((e->marker && s.marker) || e->name == s.name)) nested = true;
      if (nested) continue;
      steps.push_back(s);
      open.push_back(&s);
    }
  }
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
    return a.process < b.process || (a.process == b.process && a.start < b.start);
  });
  std::map<size_t, int64_t> position;
  for (auto& s : steps) {
    int64_t i = position[s.process]++;
    if (s.number < 0) s.number = i;
  }
  return steps;
}

std::vector<Step> FindSteps(const model::TraceModel& m, const std::vector<std::string>& step_names,
                            unsigned threads) {
  StepScans scans(m, step_names);
  ParallelFor(scans.tracks.size(), DefaultThreads(threads), [&](size_t i) {
    model::ScanTrack(m, m.tracks[scans.track_index[i]], nullptr, scans.tracks[i]);
  });
  return scans.Finish();
}

std::vector<bool> SelectSteps(const std::vector<Step>& steps,
                              const std::optional<StepRange>& range, uint64_t skip_warmup) {
  std::vector<bool> keep(steps.size());
  std::map<size_t, uint64_t> seen;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    keep[i] = seen[s.process]++ >= skip_warmup &&
              (!range || (s.number >= range->first && s.number <= range->last));
  }
  return keep;
}

Windows SelectWindows(const model::TraceModel& m, const std::vector<Step>& steps,
                      const std::optional<StepRange>& range, uint64_t skip_warmup) {
  if (steps.empty())
    throw Error("no steps found in " + m.path +
                ": it has no step events; name the annotation that marks a step with "
                "--step-name NAME");
  std::vector<bool> keep = SelectSteps(steps, range, skip_warmup);
  Windows w(m.processes.size());
  size_t kept = 0;
  for (size_t i = 0; i < steps.size(); ++i)
    if (keep[i]) {
      w[steps[i].process].push_back({steps[i].start, steps[i].end});
      ++kept;
    }
  if (kept == 0) throw Error("no step matches the selection (--steps / --skip-warmup)");
  for (auto& v : w) {
    std::sort(v.begin(), v.end(), [](const Window& a, const Window& b) { return a.start < b.start; });
    if (v.empty()) v.push_back({1, 0});  // a process with no selected step keeps nothing
  }
  return w;
}

}  // namespace tt::analysis
