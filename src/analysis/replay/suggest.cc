// Replay's "what would help most" (suggest.h).
#include "analysis/replay/suggest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "analysis/replay/whatif_kind.h"
#include "core/error.h"
#include "format/hardware.h"
#include "model/model.h"

namespace tt::analysis::replay {

std::string RegexQuote(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c && std::strchr("\\^$.|?*+()[]{}", c)) out += '\\';
    out += c;
  }
  return out;
}

bool AnyNode(const std::vector<StepGraph>& steps, bool (*want)(const Graph&, const Node&)) {
  for (const StepGraph& sg : steps)
    for (const Node& n : sg.graph.nodes)
      if (want(sg.graph, n)) return true;
  return false;
}

std::string FrameworkOf(const std::vector<StepGraph>& steps) {
  if (steps.empty()) return "";
  const LabelTable& t = *steps[0].graph.names;
  bool tf = false, jax = false;
  for (size_t i = 0; i < t.labels.size(); ++i) {
    const std::string& l = t.labels[i];
    if (l.starts_with("aten::") || l.starts_with("autograd::") || l.starts_with("Optimizer."))
      return "pytorch";
    jax |= l.starts_with("jit_") || l.find("PjitFunction") != std::string::npos;
    tf |= t.types[i] == "IteratorGetNext" || l.find("IteratorGetNext") != std::string::npos ||
          t.types[i] == "MatMul" || t.types[i] == "Conv2D" || t.types[i] == "_Send";
  }
  return jax ? "jax" : tf ? "tensorflow" : "";
}

Hardware HardwareOf(const model::TraceModel& m) {
  Hardware hw;
  std::vector<std::string> seen;
  for (const auto& p : m.processes) {
    if (std::find(seen.begin(), seen.end(), p.recording) != seen.end()) continue;
    seen.push_back(p.recording);
    GpuPeak g = ReadGpuPeak(p.recording);
    CpuPeak c = ReadHardwareFile(p.recording);
    if (hw.cpu.fp32 <= 0) hw.cpu = c;
    if (hw.gpu.fp32 <= 0) hw.gpu = g;
    if (g.bf16 > 0 && !hw.gpu_half) {
      hw.gpu_half = true;
      hw.source = "hardware.json: " + g.source;
    }
    if (c.fp32 > 0 && c.bf16 > c.fp32 && hw.cpu_half == 0) {
      // A CPU's BF16 peak over FP32's (AMX: 16x) is not what a whole op gains: at most 2x.
      hw.cpu_half = std::max(0.5, c.fp32 / c.bf16);
      if (hw.source.empty()) hw.source = "hardware.json: " + c.source;
    }
  }
  return hw;
}

std::vector<WhatIf> Candidates(const Prediction& base, const std::vector<StepGraph>& steps,
                               const Hardware& hw, size_t top) {
  SuggestInput in{base, steps, hw, top};
  std::vector<WhatIf> out;
  for (const WhatIfKind* k : WhatIfKinds()) {
    if (!k->suggest) continue;
    for (WhatIf& w : k->suggest(in)) out.push_back(std::move(w));
  }
  return out;
}

namespace {

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double at = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(at);
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

// The candidate w replayed; false where it matched nothing.
bool Replayed(const WhatIf& w, const SuggestInput& in, Suggestion* s) {
  try {
    s->p = Predict(Changed(in.steps, {w}));
  } catch (const Error&) {
    return false;
  }
  s->what_if = w;
  s->change = w.kind->change;
  s->how = w.kind->how ? w.kind->how(w, in) : "";
  s->samples = w.kind->per_sample && w.factor > 0 ? w.factor : 1;
  s->gain = in.base.predicted - s->Predicted();
  std::vector<double> gains;
  for (size_t i = 0; i < s->p.steps.size() && i < in.base.steps.size(); ++i)
    gains.push_back(static_cast<double>(in.base.steps[i].predicted) -
                    static_cast<double>(s->p.steps[i].predicted) / s->samples);
  double iqr = Quantile(gains, 0.75) - Quantile(gains, 0.25);
  s->uncertainty = std::max(iqr / 2, std::fabs(s->gain - Quantile(gains, 0.5)));
  return true;
}

constexpr double kMinGain = 0.005;  // of the predicted step

}  // namespace

std::vector<Suggestion> Suggest(const Prediction& base, const std::vector<StepGraph>& steps,
                                const Hardware& hw, size_t n) {
  SuggestInput in{base, steps, hw, std::max<size_t>(n, 3)};
  std::map<std::string, std::vector<Suggestion>> by_change;
  for (const WhatIf& w : Candidates(base, steps, hw, in.top)) {
    Suggestion s;
    if (Replayed(w, in, &s) && s.gain >= kMinGain * base.predicted)
      by_change[s.change].push_back(std::move(s));
  }
  std::vector<Suggestion> out, ops;
  for (auto& [change, list] : by_change) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Suggestion& a, const Suggestion& b) { return a.gain > b.gain; });
    size_t keep = change == "line" ? 3 : change == "op" ? n : 1;
    if (list.size() > keep) list.resize(keep);
    for (Suggestion& s : list) (change == "op" ? ops : out).push_back(std::move(s));
  }
  if (out.empty()) out = std::move(ops);  // an op twice as fast: only where nothing else helps
  // A larger batch changes the training, not only its speed, and shares every fixed cost of the
  // step (a straggler's sleep too): after the changes that keep the step's samples.
  std::stable_sort(out.begin(), out.end(), [](const Suggestion& a, const Suggestion& b) {
    if ((a.samples != 1) != (b.samples != 1)) return a.samples == 1;
    return a.gain > b.gain;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace tt::analysis::replay
