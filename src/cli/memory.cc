// `tensortrace memory`: per allocator, bytes in use over time, the peak and what was live at
// it, bytes by op, chunks by bin, what the allocator reported (analysis/memory/memory_view.h).
#include "cli/memory.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/memory/memory_view.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/csv_rows.h"
#include "cli/framework_capture.h"
#include "cli/json_out.h"
#include "cli/option_groups.h"
#include "cli/pids.h"
#include "core/human.h"
#include "model/model.h"

namespace tt::cli {

namespace {

using analysis::AllocatorView;
using analysis::HumanBytes;
using analysis::MemoryView;
using nlohmann::json;

const char kMemoryHelp[] =
    R"(usage: tensortrace memory DIR... [--json | --csv [--section S]] [--pid P]... [--points N]
                          [--top N]

Memory of the trace in DIR, per allocator (TensorFlow's BFC allocators, CUDA's, ...): bytes in
use over time, the peak and when it was reached, what was live at the peak (by op, with the
tensors' dtype, shape and role where the events carry them, else the shapes of the op's inputs
where the profile recorded them: PyTorch's record_shapes), the bytes each op allocated and
what it never freed, the chunks by BFC bin (256 B << i), and what the allocator itself reported
(its own peak, bytes reserved, fragmentation). An allocation belongs to the op open on the thread
that made it (else to the op its event names). A trace with no allocation events gives a note
saying why and which option of record captures them (exit 0). Several directories (one
recording per rank or host) are read as one job.

)";

const OutputSpec kOutput{
    .schema = "docs/memory-json.md",
    .csv_rows = "",
    .sections = {{"allocators", "one row per allocator"},
                 {"series", "bytes in use over time: one row per sample and allocator"},
                 {"live_at_peak", "one row per op and allocator"},
                 {"tensors", "the tensors live at the peak: one row per kind, op and allocator"},
                 {"ops", "bytes allocated: one row per op and allocator"},
                 {"bins", "one row per bin and allocator"}},
    .top_rows = "rows per table",
    .top_default = 10,
    .top_min = 1};
const SelectionSpec kSelection{.pid = true};

std::string MemoryHelp() {
  return kMemoryHelp + SelectionHelp(kSelection) +
         OptionHelp("--points N",
                    "at most N samples of bytes in use over time per allocator (default 200, at "
                    "least 2; each time bucket keeps its highest and its last value, so the peak "
                    "is always a sample)") +
         OutputHelp(kOutput);
}

struct MemoryArgs {
  std::string dir;
  std::vector<std::string> more;  // further directories: one job (a recording per rank)
  SelectionOptions sel;
  OutputOptions out{kOutput};
  size_t points = 200;
};

bool ParseMemoryArgs(const std::vector<std::string>& argv, MemoryArgs* o) {
  ArgReader a("memory", argv);
  std::string v;
  while (!a.Done()) {
    if (ParseOutputOption(a, kOutput, &o->out)) {
      if (!o->out.help) continue;
      std::cout << MemoryHelp();
      return false;
    } else if (ParseSelectionOption(a, kSelection, &o->sel)) {
    } else if (a.Option("--points", &v)) {
      o->points = ParseUint("--points", v, 1000000);
      if (o->points < 2) throw Error("--points: must be at least 2");
    } else if (!a.Peek().empty() && a.Peek()[0] != '-') {
      (o->dir.empty() ? o->dir : o->more.emplace_back()) = a.TakePositional();
    } else {
      a.Unknown();
    }
  }
  if (o->dir.empty()) throw Error("no trace directory given (usage: tensortrace memory DIR)");
  CheckOutput(kOutput, o->out);
  return true;
}

// A number the allocator may not have given (-1): null then.
template <typename T>
json Known(T v) {
  return v >= 0 ? json(v) : json(nullptr);
}

json AllocatorJson(const AllocatorView& a, uint64_t first) {
  const auto& m = a.memory;
  json series = json::array();
  for (const auto& s : m.series) series.push_back({s.ts, s.bytes});
  json live = json::array();
  for (const auto& l : a.live) {
    json tensors = json::array();
    for (const auto& t : l.tensors)
      tensors.push_back({{"dtype", t.dtype},
                         {"shape", t.shape},
                         {"region", t.region},
                         {"op_inputs", t.op_inputs},
                         {"count", t.count},
                         {"bytes", t.bytes}});
    live.push_back(
        {{"op", l.op}, {"allocations", l.allocations}, {"bytes", l.bytes}, {"tensors", tensors}});
  }
  json ops = json::array();
  for (const auto& o : a.ops)
    ops.push_back({{"op", o.op},
                   {"allocations", o.allocations},
                   {"bytes", o.bytes},
                   {"peak_bytes", o.peak},
                   {"residual_bytes", o.residual},
                   {"residual_allocations", o.residual_allocations}});
  json bins = json::array();
  for (const auto& b : a.bins)
    bins.push_back({{"bin", b.index},
                    {"min_bytes", b.min_bytes},
                    {"allocations", b.allocations},
                    {"bytes", b.bytes},
                    {"live_at_peak", b.live_at_peak},
                    {"live_bytes_at_peak", b.live_bytes_at_peak}});
  json report = nullptr;
  if (a.report.reported)
    report = {{"peak_bytes", Known(a.report.peak)},
              {"bytes_reserved_max", Known(a.report.reserved_max)},
              {"fragmentation_at_peak", Known(a.report.fragmentation_at_peak)},
              {"fragmentation_max", Known(a.report.fragmentation_max)},
              {"requested_bytes", a.report.requested},
              {"allocated_bytes", a.report.allocated}};
  return {{"name", m.name},
          {"allocator", m.allocator},
          {"pid", a.pid},
          {"rank", a.rank >= 0 ? json(a.rank) : json(nullptr)},
          {"allocations", m.allocations},
          {"frees", m.frees},
          {"unmatched_frees", m.unmatched_frees},
          {"peak_bytes", m.peak},
          {"peak_ns", m.peak_ts},
          {"peak_offset_ns", m.peak_ts > first ? m.peak_ts - first : 0},
          {"peak_op", m.peak_op},
          {"peak_thread", m.peak_thread},
          {"final_bytes", m.final_bytes},
          {"residual_bytes", a.residual},
          {"residual_allocations", a.residual_allocations},
          {"series", series},
          {"live_at_peak", live},
          {"ops", ops},
          {"bins", bins},
          {"allocator_report", report}};
}

std::string Seconds(uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f s", static_cast<double>(ns) / 1e9);
  return b;
}

std::string TensorsText(const analysis::MemoryLive& l) {
  std::string out;
  for (const auto& t : l.tensors) {
    std::string what = t.dtype + t.shape;
    if (!t.region.empty() && t.region != "(null)") what += (what.empty() ? "" : " ") + t.region;
    if (what.empty() && !t.op_inputs.empty()) what = "inputs (" + t.op_inputs + ")";
    if (what.empty()) continue;
    out += (out.empty() ? "" : ", ") + what + (t.count > 1 ? " x" + std::to_string(t.count) : "");
  }
  return out;
}

void PrintReport(const AllocatorView& a) {
  const auto& r = a.report;
  // An allocator that reserves nothing of its own and gives no peak (PyTorch's CPU allocator
  // reports 0 reserved) has nothing to add to what its events say.
  if (!r.reported || (r.peak < 0 && r.reserved_max <= 0 && r.fragmentation_max < 0 &&
                      r.fragmentation_at_peak < 0 && r.allocated <= 0))
    return;
  std::printf("  allocator's own report: peak %s",
              r.peak >= 0 ? HumanBytes(r.peak).c_str() : "not given");
  if (r.reserved_max > 0)
    std::printf(", bytes reserved at most %s", HumanBytes(r.reserved_max).c_str());
  if (r.fragmentation_at_peak >= 0)
    std::printf(", fragmentation %.3f at the peak", r.fragmentation_at_peak);
  if (r.fragmentation_max >= 0) std::printf(" (at most %.3f)", r.fragmentation_max);
  std::printf("\n");
  if (r.allocated > 0)
    std::printf(
        "  requested %s in chunks of %s (%.1f%% lost to rounding)\n",
        HumanBytes(r.requested).c_str(), HumanBytes(r.allocated).c_str(),
        100.0 * static_cast<double>(r.allocated - r.requested) / static_cast<double>(r.allocated));
}

void PrintTables(const AllocatorView& a, size_t top) {
  std::printf("  live at the peak, by op:\n  %12s %7s  %s\n", "bytes", "allocs", "op  (tensors)");
  for (size_t i = 0; i < a.live.size() && i < top; ++i) {
    std::string t = TensorsText(a.live[i]);
    std::printf("  %12s %7llu  %s%s\n", HumanBytes(a.live[i].bytes).c_str(),
                static_cast<unsigned long long>(a.live[i].allocations),
                TerminalSafe(a.live[i].op).c_str(),
                t.empty() ? "" : ("  (" + TerminalSafe(t) + ")").c_str());
  }
  std::printf("  allocated by op:\n  %12s %7s %12s %12s  %s\n", "bytes", "allocs", "most held",
              "never freed", "op");
  for (size_t i = 0; i < a.ops.size() && i < top; ++i) {
    const auto& o = a.ops[i];
    std::printf("  %12s %7llu %12s %12s  %s\n", HumanBytes(o.bytes).c_str(),
                static_cast<unsigned long long>(o.allocations), HumanBytes(o.peak).c_str(),
                HumanBytes(o.residual).c_str(), TerminalSafe(o.op).c_str());
  }
  // A BFC allocator (TensorFlow's) gives its chunks' sizes; others are sized by what they asked.
  std::printf("  %s:\n  %12s %7s %12s %9s %12s\n",
              a.report.allocated > 0 ? "chunks by BFC bin" : "allocations by size (256 B << i)",
              "from", "allocs", "bytes", "at peak", "bytes at peak");
  for (const auto& b : a.bins)
    std::printf("  %12s %7llu %12s %9llu %12s\n", HumanBytes(b.min_bytes).c_str(),
                static_cast<unsigned long long>(b.allocations), HumanBytes(b.bytes).c_str(),
                static_cast<unsigned long long>(b.live_at_peak),
                HumanBytes(b.live_bytes_at_peak).c_str());
}

// The highest bytes in use in each tenth of the series, for a glance in the terminal.
void PrintGlance(const AllocatorView& a, uint64_t first) {
  const auto& s = a.memory.series;
  if (s.empty()) return;
  std::printf("  over time  ");
  size_t parts = std::min<size_t>(10, s.size());
  for (size_t k = 0; k < parts; ++k) {
    const analysis::MemorySample* top = nullptr;
    for (size_t i = k * s.size() / parts; i < (k + 1) * s.size() / parts; ++i)
      if (!top || s[i].bytes > top->bytes) top = &s[i];
    std::printf("%s%s@%s", k ? ", " : "", HumanBytes(top->bytes).c_str(),
                Seconds(top->ts > first ? top->ts - first : 0).c_str());
  }
  std::printf(" (the most in each tenth)\n");
}

void PrintText(const MemoryView& v, size_t top) {
  for (const auto& a : v.allocators) {
    const auto& m = a.memory;
    // The name carries its process already where several processes allocate (memory.h): its
    // rank ("cpu (rank 2)", the pid added: "cpu (rank 2, pid 3)"), else its pid.
    std::string pid = "pid " + std::to_string(a.pid);
    std::string name = m.name;
    if (name == m.allocator)
      name += " (" + pid + ")";
    else if (!name.ends_with(pid + ")"))
      name.insert(name.size() - 1, ", " + pid);
    std::printf("allocator %s\n", TerminalSafe(name).c_str());
    std::printf("  peak %s at %s into the trace, during %s on %s\n", HumanBytes(m.peak).c_str(),
                Seconds(m.peak_ts > v.first ? m.peak_ts - v.first : 0).c_str(),
                m.peak_op.empty() ? "no op" : TerminalSafe(m.peak_op).c_str(),
                TerminalSafe(m.peak_thread).c_str());
    std::printf("  %llu allocations, %llu frees (%llu unmatched); never freed %s in %llu\n",
                static_cast<unsigned long long>(m.allocations),
                static_cast<unsigned long long>(m.frees),
                static_cast<unsigned long long>(m.unmatched_frees), HumanBytes(a.residual).c_str(),
                static_cast<unsigned long long>(a.residual_allocations));
    PrintReport(a);
    PrintGlance(a, v.first);
    PrintTables(a, top);
    std::printf("\n");
  }
}

// `--csv`: the section's rows of every allocator (AllocatorJson's), each nested row after its
// allocator's name and pid.
void PrintCsv(const json& allocators, const std::string& section) {
  if (section == "allocators") return PrintCsvRows(allocators, {"name", "allocator", "pid"});
  json rows = json::array();
  for (const auto& a : allocators) {
    json owner = {{"allocator_name", a["name"]}, {"pid", a["pid"]}};
    if (section == "series") {
      for (const auto& s : a["series"])
        rows.push_back(WithOwner(owner, {{"ns", s[0]}, {"bytes", s[1]}}));
    } else if (section == "tensors") {
      for (const auto& l : a["live_at_peak"])
        for (const auto& t : l["tensors"])
          rows.push_back(WithOwner(owner, WithOwner({{"op", l["op"]}}, t)));
    } else {
      for (const auto& r : a[section]) rows.push_back(WithOwner(owner, r));
    }
  }
  PrintCsvRows(rows, {"allocator_name", "pid", "op", "bin", "ns"});
}

}  // namespace

int Memory(const std::vector<std::string>& argv) {
  MemoryArgs o;
  if (!ParseMemoryArgs(argv, &o)) return 0;
  model::TraceModel m = LoadJob(DirList(o.dir, o.more), o.sel.Chosen());
  std::vector<Problem> problems = m.problems;
  MemoryView v = analysis::ComputeMemoryView(m, o.points / 2, 0, &problems);
  std::string note = v.allocators.empty() ? MemoryMissingNote(o.dir, o.sel.pids) : "";
  json all = json::array();
  if (o.out.json || o.out.csv)
    for (const auto& a : v.allocators) all.push_back(AllocatorJson(a, v.first));
  if (o.out.json) {
    json out = {{"schema", "tensortrace.memory/1"},
                {"trace", o.dir},
                {"first_ns", v.first},
                {"last_ns", v.last},
                {"events", v.events},
                {"note", note.empty() ? json(nullptr) : json(note)},
                {"allocators", all}};
    PrintCommandJson(std::move(out));
  } else if (o.out.csv) {
    PrintCsv(all, o.out.section);
  } else {
    PrintText(v, o.out.top);
    if (!note.empty()) std::cout << "note: " << note << "\n";
  }
  return 0;
}

std::string MemoryMissingNote(const std::string& dir, const std::vector<int64_t>& pids) {
  bool tf = false, jax = false, bfc = false, onednn_off = false;
  for (const auto& c : LoadFrameworkCaptures(dir)) {
    if (!pids.empty() && std::find(pids.begin(), pids.end(), c.pid) == pids.end()) continue;
    if (!c.capture.is_object()) continue;
    std::string fw = c.capture.value("framework", json("")).is_string()
                         ? c.capture.value("framework", std::string())
                         : std::string();
    tf |= fw == "tensorflow";
    jax |= fw == "jax";
    json env = c.capture.value("env", json::object());
    auto var = [&](const char* k) {
      return env.is_object() && env.contains(k) && env[k].is_string() ? env[k].get<std::string>()
                                                                      : std::string();
    };
    std::string use_bfc = var("TF_CPU_ALLOCATOR_USE_BFC");
    bfc |= use_bfc == "true" || use_bfc == "1";
    onednn_off |= var("TF_ENABLE_ONEDNN_OPTS") == "0";
  }
  if (tf && bfc)
    return "no allocation events, although TensorFlow's CPU allocator was a BFC allocator "
           "(TF_CPU_ALLOCATOR_USE_BFC=true): the program allocated nothing while the profiler "
           "ran, or its capture failed (`tensortrace info` says)";
  if (tf)
    return std::string("no allocation events: TensorFlow's default CPU allocator reports none ") +
           (onednn_off ? "with oneDNN off (TF_ENABLE_ONEDNN_OPTS=0)"
                       : "when oneDNN is off (TF_ENABLE_ONEDNN_OPTS=0, or TensorFlow's default "
                         "on a CPU without AVX-512)") +
           "; record with --tf-cpu-allocator bfc (or auto, the default) to capture them";
  if (jax)
    return "no allocation events: JAX's CPU client reports no allocation to its profiler "
           "(its GPU allocator does); no option of record captures them on the CPU";
  return "no allocation events: they come from TensorFlow's or JAX's profiler (a Python "
         "program that imports them, recorded with the python source) and from CUDA, and this "
         "trace holds neither";
}

}  // namespace tt::cli
