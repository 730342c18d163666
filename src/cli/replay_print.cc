// `tensortrace replay`'s output (replay_print.h).
#include "cli/replay_print.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cli/args.h"
#include "cli/csv_rows.h"
#include "cli/human_table.h"
#include "core/human.h"

namespace tt::cli {

namespace {

using analysis::HumanDuration;
using analysis::replay::Prediction;
using nlohmann::json;

int64_t Ns(double x) { return static_cast<int64_t>(std::llround(x)); }

json RanksJson(const Prediction& p) {
  json ranks = json::array();
  for (const auto& r : p.ranks)
    ranks.push_back({{"rank", r.label},
                     {"measured_ns", Ns(r.measured)},
                     {"predicted_ns", Ns(r.predicted)},
                     {"error", r.error}});
  return ranks;
}

json PathJson(const Prediction& p) {
  json items = json::array();
  for (const auto& it : p.path)
    items.push_back({{"label", it.label},
                     {"kind", analysis::replay::NodeKindName(it.kind)},
                     {"ns", Ns(it.ns)},
                     {"share", it.share},
                     {"count", it.count}});
  return {{"gaps_ns", Ns(p.path_gaps)}, {"items", items}};
}

// What precision= and op-fusion= changed against the roofline (analysis/replay/roofline.h);
// null where the what-if changed no such node.
json RooflineJson(const analysis::replay::RooflineUse& u) {
  if (!u.steps) return nullptr;
  return {{"nodes", u.nodes},
          {"nodes_with_flops", u.with_flops},
          {"float_ops", Ns(u.float_ops)},
          {"before_ns", Ns(u.before_ns)},
          {"predicted_ns", Ns(u.after_ns)},
          {"flops_before_ns", Ns(u.flops_before_ns)},
          {"flops_predicted_ns", Ns(u.flops_after_ns)},
          {"roofline_ns", u.peak > 0 ? json(Ns(u.roof_ns)) : json(nullptr)},
          {"raised", u.raised},
          {"peak_flops_per_second", u.peak > 0 ? json(u.peak) : json(nullptr)},
          {"bandwidth_bytes_per_second", u.bandwidth > 0 ? json(u.bandwidth) : json(nullptr)}};
}

json WhatIfJson(const WhatIfResult& w, const Prediction& base) {
  json moved = json::array(), steps = json::array();
  for (const auto& s : w.p.steps)
    steps.push_back({{"numbers", s.numbers}, {"predicted_ns", s.predicted}});
  for (const auto& m : w.moved)
    moved.push_back({{"label", m.label}, {"before_ns", Ns(m.before)}, {"after_ns", Ns(m.after)}});
  return {{"spec", w.spec},
          {"note", w.note.empty() ? json(nullptr) : json(w.note)},
          {"predicted_ns", Ns(w.p.predicted)},
          {"predicted_median_ns", Ns(w.p.predicted_median)},
          {"speedup", w.p.predicted > 0 ? base.predicted / w.p.predicted : 0.0},
          {"ranks", RanksJson(w.p)},
          {"steps", steps},
          {"critical_path", PathJson(w.p)},
          {"moved", moved},
          {"roofline", RooflineJson(w.p.roofline)}};
}

// The recording's peaks (hardware.json) the roofline is measured against.
json PeaksJson(const analysis::replay::Hardware& hw) {
  auto one = [](double fp32, double bf16, double memory, const std::string& source) -> json {
    if (fp32 <= 0) return nullptr;
    return {{"fp32_flops_per_second", fp32},
            {"bf16_flops_per_second", bf16 > 0 ? json(bf16) : json(nullptr)},
            {"memory_bytes_per_second", memory > 0 ? json(memory) : json(nullptr)},
            {"source", source}};
  };
  return {{"cpu", one(hw.cpu.fp32, hw.cpu.bf16, 0, hw.cpu.source)},
          {"gpu", one(hw.gpu.fp32, hw.gpu.bf16, hw.gpu.bandwidth, hw.gpu.source)}};
}

}  // namespace

json ReplayJson(const ReplayOutput& o) {
  const Prediction& p = o.base;
  json steps = json::array(), resources = json::array(), what_ifs = json::array();
  for (const auto& s : p.steps)
    steps.push_back(
        {{"numbers", s.numbers}, {"measured_ns", s.measured}, {"predicted_ns", s.predicted}});
  for (const auto& r : p.resources)
    resources.push_back({{"name", r.name}, {"utilisation", r.utilisation}});
  for (const auto& w : o.what_ifs) what_ifs.push_back(WhatIfJson(w, p));
  json suggestions = json::array();
  for (const auto& w : o.suggestions) {
    json s = WhatIfJson(w, p);
    s["kind"] = w.change;
    s["what_if"] = w.spec;
    s["gain_ns"] = Ns(w.gain);
    s["uncertainty_ns"] = Ns(w.uncertainty);
    s["how"] = w.how;
    s["samples"] = w.samples;  // batch=2: its step twice the samples; speedup per sample
    s["speedup"] = w.PerSample() > 0 ? p.predicted / w.PerSample() : 0.0;
    suggestions.push_back(s);
  }
  return {{"schema", "tensortrace.replay/1"},
          {"traces", o.dirs},
          {"skip_warmup", o.skip_warmup},
          {"steps_replayed", o.steps},
          {"typical", o.typical},
          {"measured_ns", Ns(p.measured)},
          {"predicted_ns", Ns(p.predicted)},
          {"error", p.error},
          {"measured_median_ns", Ns(p.measured_median)},
          {"predicted_median_ns", Ns(p.predicted_median)},
          {"ranks", RanksJson(p)},
          {"steps", steps},
          {"critical_path", PathJson(p)},
          {"resources", resources},
          {"collectives_joined", o.collectives},
          {"p2p_transfers", o.transfers},
          {"participants", o.participants},
          {"autograd_edges", o.autograd_edges},
          {"gradients", o.gradients},
          {"graph_edges", o.graph_edges},
          {"graph_links", o.graph_links},
          {"what_ifs", what_ifs},
          {"suggestions", suggestions},
          {"peaks", PeaksJson(o.hardware)},
          {"notes", o.notes}};
}

void PrintReplayCsv(const ReplayOutput& o, const std::string& section) {
  json j = ReplayJson(o);
  for (const char* what : {"what_ifs", "suggestions"})  // no roofline: its columns left empty
    for (json& w : j[what])
      if (w["roofline"].is_null()) w.erase("roofline");
  if (section == "critical_path")
    PrintCsvRows(j["critical_path"]["items"], {"label"});
  else
    PrintCsvRows(j[section], {"rank", "numbers", "label", "name", "spec"});
}

namespace {

std::string Pct(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", x * 100);
  return b;
}

using K = analysis::ColumnKind;

double Micros(double ns) { return ns / 1e3; }

void PrintPath(const Prediction& p, size_t top) {
  std::printf("critical path (mean per step; %s of it gaps: dispatch delays and wake-ups):\n",
              HumanDuration(p.path_gaps).c_str());
  HumanTable t;
  t.cols = {{"label", K::kText},
            {"kind", K::kText},
            {"micros", K::kMicros},
            {"share", K::kRatio},
            {"nodes", K::kNumber}};
  for (size_t i = 0; i < p.path.size() && i < top; ++i) {
    const auto& it = p.path[i];
    t.rows.push_back({TextCell(it.label.substr(0, 60)),
                      TextCell(analysis::replay::NodeKindName(it.kind)), NumberCell(Micros(it.ns)),
                      NumberCell(it.share), NumberCell(it.count)});
  }
  PrintHumanTable(std::move(t), false);
}

// A count of FLOPs, or a rate with "/s", as people write them ("2.50 MFLOP", "294.4 GFLOP/s").
std::string Flop(double v, const char* per = "") {
  const char* unit[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (v >= 1000 && i < 5) v /= 1000, ++i;
  char b[48];
  std::snprintf(b, sizeof b, "%.*f %sFLOP%s", v < 10 && i ? 2 : 1, v, unit[i], per);
  return i ? b : std::to_string(std::llround(v)) + " FLOP" + per;
}

// precision='s and op-fusion='s changed nodes against the roofline.
void PrintRoofline(const analysis::replay::RooflineUse& u) {
  if (!u.steps) return;
  std::printf("  changed: %.4g node(s) a step, %s before, %s predicted\n", u.nodes,
              HumanDuration(u.before_ns).c_str(), HumanDuration(u.after_ns).c_str());
  if (u.with_flops <= 0) {
    std::printf("  roofline: none of them with FLOPs known (stats --view op: float_ops)\n");
    return;
  }
  std::printf("  FLOPs kept: %s a step, in %.4g of them (%s before, %s predicted)\n",
              Flop(u.float_ops).c_str(), u.with_flops, HumanDuration(u.flops_before_ns).c_str(),
              HumanDuration(u.flops_after_ns).c_str());
  if (u.peak <= 0) {
    std::printf("  roofline: none (the recording names no peak: hardware.json)\n");
    return;
  }
  char memory[64] = "no memory roof: the recording holds no memory bandwidth";
  if (u.bandwidth > 0) std::snprintf(memory, sizeof memory, "%.0f GB/s memory", u.bandwidth / 1e9);
  std::printf("  roofline allows: %s for them at %s%s (%s); %.4g a step raised to it\n",
              HumanDuration(u.roof_ns).c_str(), Flop(u.peak, "/s").c_str(),
              u.no_peak ? " (some without a peak)" : "", memory, u.raised);
}

void PrintWhatIf(const WhatIfResult& w, const Prediction& base) {
  double speedup = w.p.predicted > 0 ? base.predicted / w.p.predicted : 0;
  std::printf("what if %s: predicted step %s (from %s), speedup %.3fx\n",
              TerminalSafe(w.spec).c_str(), HumanDuration(w.p.predicted).c_str(),
              HumanDuration(base.predicted).c_str(), speedup);
  for (const auto& m : w.moved)
    std::printf("  on the critical path: %-48s %12s -> %s\n",
                TerminalSafe(m.label).substr(0, 48).c_str(), HumanDuration(m.before).c_str(),
                HumanDuration(m.after).c_str());
  PrintRoofline(w.p.roofline);
  if (!w.note.empty()) std::printf("  note: %s\n", TerminalSafe(w.note).c_str());
}

}  // namespace

void PrintSuggestions(const std::vector<WhatIfResult>& s, double base) {
  std::printf(
      "\nwhat would help most (each change replayed; gain +/- its spread over the "
      "steps):\n");
  HumanTable t;
  t.cols = {{"change", K::kText},
            {"what_if", K::kText},
            {"predicted_micros", K::kMicros},
            {"gain_micros", K::kMicros},
            {"uncertainty_micros", K::kMicros},
            {"speedup", K::kNumber}};
  for (const auto& w : s)
    t.rows.push_back({TextCell(w.change), TextCell(w.spec), NumberCell(Micros(w.PerSample())),
                      NumberCell(Micros(w.gain)), NumberCell(Micros(w.uncertainty)),
                      NumberCell(w.PerSample() > 0 ? base / w.PerSample() : 0.0)});
  PrintHumanTable(std::move(t), false);
  for (size_t i = 0; i < s.size(); ++i) {
    std::printf("  %zu. %s: %s\n", i + 1, TerminalSafe(s[i].spec).c_str(),
                TerminalSafe(s[i].how).c_str());
    if (s[i].samples != 1)  // the table's step is the measured step's samples' share
      std::printf("     (its step of %g times the samples predicted at %s)\n", s[i].samples,
                  HumanDuration(s[i].p.predicted).c_str());
  }
}

namespace {

// Each rank's measured and predicted step, and the ranks' helpers (no steps of their own).
void PrintRanks(const ReplayOutput& o) {
  HumanTable t;
  t.cols = {{"rank", K::kText},
            {"measured_micros", K::kMicros},
            {"predicted_micros", K::kMicros},
            {"error", K::kRatio}};
  for (const auto& r : o.base.ranks)
    t.rows.push_back({TextCell(r.label), NumberCell(Micros(r.measured)),
                      NumberCell(Micros(r.predicted)), NumberCell(r.error)});
  PrintHumanTable(std::move(t), false);
  for (const auto& who : o.participants)
    std::printf("%s: no steps of its own, its work within the ranks' steps\n",
                TerminalSafe(who).c_str());
}

// Each resource's busy share of the predicted step.
void PrintUtilisation(const Prediction& p, size_t top) {
  std::printf("\nutilisation (busy share of the predicted step):\n");
  HumanTable t;
  t.cols = {{"resource", K::kText}, {"utilisation", K::kRatio}};
  for (size_t i = 0; i < p.resources.size() && i < top; ++i)
    t.rows.push_back({TextCell(p.resources[i].name), NumberCell(p.resources[i].utilisation)});
  PrintHumanTable(std::move(t), false);
}

// The peaks the roofline is measured against, and where they come from.
void PrintPeaks(const analysis::replay::Hardware& hw) {
  if (hw.cpu.fp32 > 0)
    std::printf("  peaks: CPU %s FP32, %s BF16 (%s)\n", Flop(hw.cpu.fp32, "/s").c_str(),
                Flop(std::max(hw.cpu.fp32, hw.cpu.bf16), "/s").c_str(), hw.cpu.source.c_str());
  if (hw.gpu.fp32 > 0)
    std::printf("  peaks: GPU %s FP32, %s BF16 (%s)\n", Flop(hw.gpu.fp32, "/s").c_str(),
                Flop(std::max(hw.gpu.fp32, hw.gpu.bf16), "/s").c_str(), hw.gpu.source.c_str());
}

}  // namespace

void PrintReplay(const ReplayOutput& o, size_t top) {
  const Prediction& p = o.base;
  std::printf("%zu step(s) %s per rank (first %llu left out as warm-up)", o.steps,
              o.typical ? "averaged into one typical step" : "replayed",
              static_cast<unsigned long long>(o.skip_warmup));
  if (o.collectives) std::printf(", %zu collective(s) joining ranks", o.collectives);
  if (o.transfers) std::printf(", %zu tensor(s) sent between processes", o.transfers);
  std::printf("\nstep time: measured %s, predicted %s, error %s\n\n",
              HumanDuration(p.measured).c_str(), HumanDuration(p.predicted).c_str(),
              Pct(p.error).c_str());
  PrintRanks(o);
  std::printf("\n");
  PrintPath(p, top);
  PrintUtilisation(p, top);
  bool roof = false;
  for (const auto& w : o.what_ifs) {
    std::printf("\n");
    PrintWhatIf(w, p);
    roof |= w.p.roofline.with_flops > 0 && w.p.roofline.peak > 0;
  }
  if (roof) PrintPeaks(o.hardware);
  if (!o.suggestions.empty()) PrintSuggestions(o.suggestions, p.predicted);
}

}  // namespace tt::cli
