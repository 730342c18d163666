#include "export/report_html.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/views/view.h"
#include "core/human.h"
#include "export/report_parts.h"
#include "export/svg_chart.h"

namespace tt::exporter {

using analysis::HumanBytes;
using analysis::HumanDuration;
using analysis::Row;
using analysis::WithCommas;
using layout::Category;
using svg::Escape;

namespace {

constexpr char kCss[] = R"(
body { font-family: sans-serif; max-width: 1100px; margin: 0 auto; padding: 16px; color: #111;
       background: #fff; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0; }
h2 { font-size: 1.25em; border-bottom: 2px solid #444; padding-bottom: 2px; margin-top: 2em; }
.sub { color: #444; margin-top: 2px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 3px 7px; vertical-align: top; }
th { background: #eee; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name { max-width: 420px; overflow-wrap: break-word; }
div.wide { overflow-x: auto; }
dl.kv { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; }
dl.kv dt { font-weight: bold; }
dl.kv dd { margin: 0; overflow-wrap: anywhere; }
.none { color: #444; font-style: italic; }
ul.findings li { margin: 4px 0; }
figure { margin: 8px 0; }
figcaption { color: #444; font-size: 0.9em; }
footer { margin-top: 3em; color: #555; font-size: 0.85em; }
@media print {
  div.wide { overflow: visible; }
  body { max-width: none; padding: 0; font-size: 10pt; }
  h2 { break-after: avoid; }
  section, figure, table { break-inside: avoid; }
  th { background: #eee; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  svg { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
)";

// Category colours for the timeline; the legend names each one.
const char* Colour(Category c) {
  switch (c) {
    case Category::kFrameworkOp:
      return "#6baed6";
    case Category::kRuntimeApi:
      return "#fdae6b";
    case Category::kGpuKernel:
      return "#74c476";
    case Category::kMemcpy:
      return "#e6550d";
    case Category::kMemset:
      return "#fd8d3c";
    case Category::kSync:
      return "#de2d26";
    case Category::kAllocation:
      return "#969696";
    case Category::kCommunication:
      return "#9e9ac8";
    case Category::kPython:
      return "#fdd0a2";
    case Category::kPrimitive:
      return "#c7e9c0";
    case Category::kStep:
      return "#d9d9d9";
    default:
      return "#bcbddc";
  }
}

std::string Fixed(double v, int decimals = 3) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}
std::string Us(double ns) { return Fixed(ns / 1e3); }

using report::Header;
using report::None;
using report::Td;
using report::TdName;

// Rows ordered by a key, the first `top` of them.
std::vector<Row> Top(const std::vector<Row>& rows, size_t top, uint64_t (*key)(const Row&)) {
  std::vector<Row> v = rows;
  std::stable_sort(v.begin(), v.end(), [&](const Row& a, const Row& b) {
    return key(a) > key(b) || (key(a) == key(b) && a.name < b.name);
  });
  if (v.size() > top) v.resize(top);
  return v;
}
uint64_t Micros(const Row& r) { return r.incl.count() ? r.incl.total() : r.self_ns; }
uint64_t SelfNs(const Row& r) { return r.self_ns; }

// A table of a view's rows: the fields as the view's table (analysis/views/) defines them,
// printed the report's way (separators in counts, bytes whole).
std::string ViewCell(const analysis::ViewDef& v, Row& r, const std::string& field) {
  analysis::Cell c;
  if (!analysis::RowField(r, field, &c)) return Td("");
  if (c.unknown) return Td("unknown");
  switch (analysis::KindOf(v, field)) {
    case analysis::ColumnKind::kText:
      return TdName(c.text);
    case analysis::ColumnKind::kCount:
      return Td(c.num < 0 ? "-" : WithCommas(static_cast<uint64_t>(c.num)));
    case analysis::ColumnKind::kBytes:
      return Td(std::to_string(static_cast<int64_t>(c.num)));
    case analysis::ColumnKind::kPercent:
      return Td(Fixed(c.num, 2) + "%");
    case analysis::ColumnKind::kRatio:
      return Td(Fixed(c.num * 100, 2) + "%");
    default:
      return Td(Fixed(c.num));
  }
}

// The table: `fields` of each row, headed by `labels` (a field's own name where empty).
std::string ViewTable(const char* id, const char* view, std::vector<Row>& rows,
                      const std::vector<std::string>& fields,
                      const std::vector<std::string>& labels) {
  const analysis::ViewDef* v = analysis::FindView(view);
  std::vector<std::string> head = fields;
  for (size_t i = 0; i < labels.size() && i < head.size(); ++i)
    if (!labels[i].empty()) head[i] = labels[i];
  std::string s =
      "<div class=\"wide\"><table id=\"" + std::string(id) + "\">" + Header(head) + "<tbody>\n";
  for (auto& r : rows) {
    s += "<tr>";
    for (const auto& f : fields) s += ViewCell(*v, r, f);
    s += "</tr>\n";
  }
  return s + "</tbody></table></div>";
}

std::string Summary(const RunSummary& r) {
  std::string s = "<section id=\"summary\"><h2>Run summary</h2>\n<dl class=\"kv\">\n";
  auto kv = [&](const std::string& k, const std::string& v) {
    s += "<dt>" + Escape(k) + "</dt><dd>" + Escape(v) + "</dd>\n";
  };
  kv("trace", r.trace);
  if (r.commands.empty()) kv("command", "(not recorded)");
  for (const auto& c : r.commands) kv("command", c);
  if (r.unlisted_processes)
    kv("more processes", WithCommas(r.unlisted_processes) +
                             " with fewer events (workers, helpers; tensortrace info lists them)");
  if (r.quiet_processes)
    kv("other processes",
       WithCommas(r.quiet_processes) + " with no traced events (shims that exec'd, helpers)");
  std::string hosts;
  for (const auto& h : r.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
  kv("host", hosts.empty() ? "(not recorded)" : hosts);
  if (r.versions.empty()) kv("framework versions", "(not recorded in this trace)");
  for (const auto& [src, v] : r.versions) kv(src, v.empty() ? "(no version given)" : v);
  kv("duration", HumanDuration(static_cast<double>(r.duration_ns)));
  std::string steps = WithCommas(r.steps_found);
  if (r.steps_selected != r.steps_found)
    steps += " (" + WithCommas(r.steps_selected) + " selected: " + r.selection + ")";
  kv("steps", steps);
  kv("processes", WithCommas(r.processes));
  kv("threads", WithCommas(r.threads));
  kv("devices",
     r.devices ? WithCommas(r.devices) + " (" + WithCommas(r.device_streams) + " streams or queues)"
               : "none traced");
  kv("events", WithCommas(r.events));
  kv("dropped events", WithCommas(r.dropped));
  return s + "</dl></section>\n";
}

std::string Findings(const std::vector<analysis::Finding>& f) {
  std::string s = "<section id=\"findings\"><h2>Findings</h2>\n";
  if (f.empty())
    return s +
           None(
               "No finding: none of the checks (device idle, short kernels, synchronous "
               "copies, memory peak, dropped events, slow steps, ...) found its condition "
               "in this trace.") +
           "</section>\n";
  s += "<ul class=\"findings\">\n";
  for (const auto& x : f)
    s += "<li data-finding=\"" + Escape(x.id) + "\">" + Escape(x.text) + "</li>\n";
  return s + "</ul></section>\n";
}

using analysis::StepBreakdown;

// The note that warm-up steps were left out ("" when there were none).
std::string WarmupNote(const ReportData& d) {
  if (!d.run.warmup_steps) return "";
  return "<p class=\"note\" id=\"warmup-note\">" +
         Escape(WithCommas(d.run.warmup_steps) + " warm-up step" +
                (d.run.warmup_steps == 1 ? "" : "s") +
                " (holding the framework's tracing or compilation: a tf.function, XLA, "
                "torch.compile; " +
                HumanDuration(static_cast<double>(d.run.warmup_ns)) +
                " in all) left out of this chart, its averages and the findings; "
                "--include-warmup keeps them.") +
         "</p>\n";
}

// The indices of the steps the chart shows: every one, or with many steps an even sample (the
// last one included), so that every bar stays visible.
std::vector<size_t> ChartedSteps(size_t steps) {
  constexpr size_t kMaxBars = 120;
  std::vector<size_t> pick;
  for (size_t i = 0; i < steps; ++i)
    if (steps <= kMaxBars || i * kMaxBars / steps != (i + 1) * kMaxBars / steps || i + 1 == steps)
      pick.push_back(i);
  return pick;
}

// The stacked series of the charted steps. With device activity: what the device did (the
// host's compute, `host`, is drawn apart as narrow bars). Without: each instant of a step
// counted once, host compute among the rest.
std::vector<svg::BarSeries> StepStack(const std::vector<StepBreakdown>& steps,
                                      const std::vector<size_t>& pick, bool any_device,
                                      const svg::BarSeries& host) {
  std::vector<svg::BarSeries> stack;
  auto series = [&](const char* label, const char* colour, auto get) {
    svg::BarSeries x{label, colour, {}};
    for (size_t i : pick) x.values.push_back(static_cast<double>(get(steps[i])));
    stack.push_back(std::move(x));
  };
  using B = StepBreakdown;
  if (any_device) {
    series("device compute", "#31a354", [](const B& b) { return b.device_compute; });
    series("copies", "#e6550d", [](const B& b) { return b.copies; });
    series("communication", "#756bb1", [](const B& b) { return b.communication; });
    series("device idle: host-bound", "#fdd0a2",
           [](const B& b) { return b.device_idle_host_bound; });
    series("device idle: waiting", "#d9d9d9", [](const B& b) { return b.device_idle_waiting; });
  } else {
    series("waiting for input", "#fd8d3c", [](const B& b) { return b.input; });
    series("compilation", "#9e9ac8", [](const B& b) { return b.compile; });
    stack.push_back(host);
    series("communication", "#756bb1", [](const B& b) {
      uint64_t d = b.Duration(),
               other = b.input + b.compile + b.host_compute + b.runtime + b.host_idle;
      return d > other ? d - other : uint64_t{0};
    });
    series("framework runtime", "#c6dbef", [](const B& b) { return b.runtime; });
    series("host idle or untraced", "#d9d9d9", [](const B& b) { return b.host_idle; });
  }
  return stack;
}

// The chart of the charted steps (`pick`), with its caption.
std::string StepChart(const std::vector<StepBreakdown>& steps, const std::vector<size_t>& pick) {
  bool any_device = false;
  for (const auto& b : steps) any_device |= b.has_device;
  bool several = false;
  for (const auto& b : steps) several |= b.process != steps[0].process;
  std::vector<std::string> labels;
  std::vector<double> marks;
  svg::BarSeries host{"host compute", "#6baed6", {}};
  for (size_t i : pick) {
    const auto& b = steps[i];
    labels.push_back((several ? std::to_string(b.process) + ":" : "") + std::to_string(b.number));
    marks.push_back(static_cast<double>(b.Duration()));
    host.values.push_back(static_cast<double>(b.host_compute));
  }
  std::vector<svg::BarSeries> stack = StepStack(steps, pick, any_device, host);
  return "<figure>" +
         svg::StackedBars(
             labels, stack, any_device ? &host : nullptr, marks, "step duration",
             "step" + std::string(several ? " (process:step)" : "") +
                 (pick.size() < steps.size() ? ", an even sample of " + WithCommas(steps.size())
                                             : ""),
             "Time per step") +
         "<figcaption>" +
         Escape(any_device
                    ? "Wide bars: what the device did during each step (kernels, copies and "
                      "communication can overlap one another, so a stack can pass the step's "
                      "duration); device idle time is split into host-bound (the host was running "
                      "ops) and waiting (it was not). Narrow bars: host compute (framework ops)."
                    : "Each instant of a step counted once: waiting for input (the input "
                      "pipeline's next element), compilation, host compute (ops on any thread of "
                      "the process), communication, the framework's runtime around the ops, or "
                      "idle; no device activity was traced.") +
         "</figcaption></figure>\n";
}

// The averages over every step, with the exact numbers behind the chart.
std::string StepAverages(const std::vector<StepBreakdown>& steps) {
  using B = StepBreakdown;
  double n = static_cast<double>(steps.size());
  auto avg = [&](uint64_t B::*f) {
    double t = 0;
    for (const auto& b : steps) t += static_cast<double>(b.*f);
    return Us(t / n);
  };
  double dur = 0;
  for (const auto& b : steps) dur += static_cast<double>(b.Duration());
  return "<div class=\"wide\"><table id=\"step-averages\">" +
         Header({"steps", "avg duration (us)", "input (us)", "compilation (us)",
                 "host compute (us)", "runtime (us)", "host idle (us)", "device compute (us)",
                 "copies (us)", "communication (us)", "device idle host-bound (us)",
                 "device idle waiting (us)"}) +
         "<tbody><tr>" + Td(WithCommas(steps.size())) + Td(Us(dur / n)) + Td(avg(&B::input)) +
         Td(avg(&B::compile)) + Td(avg(&B::host_compute)) + Td(avg(&B::runtime)) +
         Td(avg(&B::host_idle)) + Td(avg(&B::device_compute)) + Td(avg(&B::copies)) +
         Td(avg(&B::communication)) + Td(avg(&B::device_idle_host_bound)) +
         Td(avg(&B::device_idle_waiting)) + "</tr></tbody></table></div>\n";
}

std::string Steps(const ReportData& d) {
  std::string s = "<section id=\"steps\"><h2>Step-time breakdown</h2>\n";
  const auto& steps = d.steps.steps;
  s += WarmupNote(d);
  if (steps.empty()) {
    std::string why = d.steps.notes.empty() ? "no steps in this trace" : d.steps.notes[0];
    if (d.run.warmup_steps) why = "every selected step is a warm-up step";
    return s + None("No step-time breakdown: " + why + ".") + "</section>\n";
  }
  s += StepChart(steps, ChartedSteps(steps.size()));
  s += StepAverages(steps);
  return s + "</section>\n";
}

std::string Ops(const ReportData& d) {
  std::string s = "<section id=\"ops\"><h2>Top ops</h2>\n";
  if (d.ops.rows.empty())
    return s + None("No framework ops or annotated ranges in this trace.") + "</section>\n";
  bool memory = false;
  for (const auto& r : d.ops.rows) memory |= r.bytes != 0 || r.peak_bytes != 0;
  bool nest = analysis::RowsNest(d.ops.rows);
  std::vector<Row> rows = Top(d.ops.rows, d.top, nest ? SelfNs : Micros);
  std::vector<std::string> cols = {"op type",     "occurrence",    "micros",
                                   "self_micros", "cpu_micros",    "accelerator_micros",
                                   "avg_micros",  "median_micros", "share"};
  if (memory) cols.insert(cols.end(), {"bytes", "peak_bytes", "residual_bytes"});
  bool flops = false;
  for (const auto& r : d.ops.rows) flops |= r.costs.flops_known > 0;
  if (flops) cols.insert(cols.end(), {"float_ops", "flops_per_second"});  // unknown where unknown
  s += std::string("<p>By op type, ordered by ") +
       (nest ? "self time (self_micros: the ops nest in one another, so by inclusive time one "
               "piece of work would lead several rows)"
             : "inclusive time (micros)") +
       "; the first " + WithCommas(rows.size()) + " of " + WithCommas(d.ops.rows.size()) +
       ". Share is of the ops' total self time; accelerator time is the device time of the work "
       "each op launched.</p>\n";
  cols[0] = "name";
  s += ViewTable("top-ops", "op", rows, cols, {"op type"});
  return s + "</section>\n";
}

// The code view's frames with their "own" op time: under them, but not under a frame further
// in that has a file (a folded run of library frames counts as theirs), nor in a phase
// ("(compile)", "(input wait)": tracing, compilation and waits are not op time). *phases: the
// phases' time under `rows` not yet taken off a frame's.
void OwnLineTimes(const std::vector<Row>& rows, std::vector<std::pair<double, const Row*>>* out,
                  double* under_files, double* phases) {
  for (const auto& r : rows) {
    bool is_line = false;
    for (const auto& [k, v] : r.text) is_line |= k == "file" && !v.empty();
    double incl = static_cast<double>(r.incl.total());
    if (r.children.empty() && !is_line && r.name.starts_with("(")) {
      *phases += incl;
      continue;
    }
    double inner = 0, inner_phases = 0;
    OwnLineTimes(r.children, out, &inner, &inner_phases);
    if (is_line) {
      if (incl > inner + inner_phases) out->push_back({incl - inner - inner_phases, &r});
      *under_files += incl;
      *phases += inner_phases;
    } else {
      *under_files += inner;
      *phases += inner_phases;
    }
  }
}

// One entry per line: a line reached along several call paths (a layer's forward called from
// each block of a model) is one row with their times summed.
std::vector<std::pair<double, const Row*>> MergeSameLines(
    std::vector<std::pair<double, const Row*>> lines) {
  std::vector<std::pair<double, const Row*>> out;
  std::map<std::string, size_t> at;
  for (const auto& [ns, r] : lines) {
    auto [it, fresh] = at.try_emplace(r->name, out.size());
    if (fresh)
      out.push_back({ns, r});
    else
      out[it->second].first += ns;
  }
  return out;
}

std::string HotLines(const ReportData& d) {
  std::string s = "<section id=\"code\"><h2>Hottest lines of the program</h2>\n";
  std::vector<std::pair<double, const Row*>> lines;
  double under = 0, phases = 0;
  OwnLineTimes(d.code.rows, &lines, &under, &phases);
  lines = MergeSameLines(std::move(lines));
  if (lines.empty())
    return s +
           None(
               "No Python stacks in this trace (record a Python program; "
               "record --python-sample-ms 5 samples the stacks).") +
           "</section>\n";
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  if (lines.size() > d.top) lines.resize(d.top);
  double total = static_cast<double>(d.code.total_ns) - phases;
  s += "<p>Op time by the innermost line of the program's own files, or of a model layer's "
       "method in a library (a module's forward, a layer's call), behind each op (where its "
       "graph node was created, else the Python stack of the thread that ran or launched it; "
       "library frames folded, `stats --view code --all-frames` unfolds them). Share is of all "
       "op time." +
       (phases > 0 ? " Tracing, compilation and input (" + Us(phases) +
                         " us, the code view's (compile), (input wait) and (input work)) are "
                         "not op time and left out."
                   : std::string()) +
       "</p>\n<div class=\"wide\"><table id=\"hot-lines\">" +
       Header({"line", "function", "file", "op time (us)", "share"}) + "<tbody>\n";
  for (const auto& [ns, r] : lines) {
    std::string file, fn;
    for (const auto& [k, v] : r->text) {
      if (k == "file") file = v;
      if (k == "function") fn = v;
    }
    char share[32];
    std::snprintf(share, sizeof share, "%.2f%%", total > 0 ? 100 * ns / total : 0.0);
    s += "<tr>" + TdName(r->name) + TdName(fn) + TdName(file) + Td(Us(ns)) + Td(share) + "</tr>\n";
  }
  return s + "</tbody></table></div>\n</section>\n";
}

std::string Kernels(const ReportData& d) {
  std::string s = "<section id=\"kernels\"><h2>Top GPU kernels</h2>\n";
  if (d.kernels.rows.empty()) return s + None("No GPU kernels in this trace.") + "</section>\n";
  std::vector<Row> rows = Top(d.kernels.rows, d.top, Micros);
  s += "<p>Ordered by total time; the first " + WithCommas(rows.size()) + " of " +
       WithCommas(d.kernels.rows.size()) + ". Share is of all kernels' time.</p>\n";
  s += ViewTable("top-kernels", "kernel", rows,
                 {"name", "occurrence", "micros", "avg_micros", "median_micros", "min_micros",
                  "max_micros", "share", "grid", "block", "launched_by"},
                 {"kernel"});
  return s + "</section>\n";
}

std::string Memory(const ReportData& d) {
  std::string s = "<section id=\"memory\"><h2>Memory over time</h2>\n";
  const auto& mem = d.memory;
  if (mem.allocators.empty())
    return s +
           None(
               "No memory allocation events (MemoryAllocation / MemoryDeallocation) in "
               "this trace." +
               (d.memory_note.empty() ? std::string() : " " + d.memory_note + ".")) +
           "</section>\n";
  const char* colours[] = {"#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363", "#d6616b"};
  const char* dashes[] = {"", "6 3", "2 3", "10 3 2 3", "1 2", "12 6"};
  std::vector<svg::LineSeries> series;
  double x_max = static_cast<double>(mem.last - mem.first);
  for (size_t i = 0; i < mem.allocators.size() && i < 6; ++i) {
    const auto& a = mem.allocators[i];
    svg::LineSeries l;
    l.label = a.name;
    l.colour = colours[i];
    l.dash = dashes[i];
    for (const auto& p : a.series)
      l.points.push_back({static_cast<double>(p.ts - mem.first), static_cast<double>(p.bytes)});
    l.peak_x = static_cast<double>(a.peak_ts - mem.first);
    l.peak_y = static_cast<double>(a.peak);
    l.peak_label = "peak " + HumanBytes(a.peak) + (a.peak_op.empty() ? "" : " in " + a.peak_op);
    series.push_back(std::move(l));
  }
  s += "<figure>" + svg::LineChart(series, x_max, "Bytes in use per allocator") +
       "<figcaption>Running bytes in use from allocation and free events over the whole trace "
       "(a step selection does not cut it); the circle marks each allocator's peak." +
       std::string(mem.allocators.size() > 6 ? " The 6 allocators with the highest peaks are "
                                               "drawn; the table lists all."
                                             : "") +
       "</figcaption></figure>\n";
  s += "<div class=\"wide\"><table id=\"memory-peaks\">" +
       Header({"allocator", "allocations", "frees", "peak", "peak bytes", "at (since start)",
               "op running at the peak", "thread", "in use at the end"}) +
       "<tbody>\n";
  for (const auto& a : mem.allocators)
    s += "<tr>" + TdName(a.name) + Td(WithCommas(a.allocations)) + Td(WithCommas(a.frees)) +
         Td(HumanBytes(a.peak)) + Td(std::to_string(a.peak)) +
         Td(HumanDuration(static_cast<double>(a.peak_ts - mem.first))) +
         TdName(a.peak_op.empty() ? "(none)" : a.peak_op) + TdName(a.peak_thread) +
         Td(HumanBytes(a.final_bytes)) + "</tr>\n";
  s += "</tbody></table></div>\n";
  uint64_t unmatched = 0;
  for (const auto& a : mem.allocators) unmatched += a.unmatched_frees;
  if (unmatched)
    s += "<p>" + WithCommas(unmatched) +
         " frees named an address with no known allocation and no byte count; they are left "
         "out.</p>\n";
  return s + "</section>\n";
}

std::string Copies(const ReportData& d) {
  std::string s = "<section id=\"copies\"><h2>Copies and bandwidth</h2>\n";
  if (d.copies.rows.empty())
    return s + None("No memory copies or sets in this trace.") + "</section>\n";
  std::vector<Row> rows = Top(d.copies.rows, d.top, Micros);
  s += ViewTable("copies-table", "memcpy", rows,
                 {"name", "occurrence", "bytes", "micros", "avg_micros", "bandwidth_gbps", "share"},
                 {"kind", "", "", "", "", "bandwidth (GB/s)"});
  return s + "</section>\n";
}

std::string TimelineSection(const ReportData& d) {
  bool whole = d.timeline_step < 0;
  std::string s =
      "<section id=\"timeline\"><h2>" +
      std::string(whole ? "Timeline of the first process" : "Timeline of the median step") +
      "</h2>\n";
  if (!d.timeline)
    return s +
           None("No timeline: there is no step to show (" +
                (d.steps.notes.empty() ? std::string("no steps in this trace") : d.steps.notes[0]) +
                ").") +
           "</section>\n";
  const auto& tl = *d.timeline;
  double span = static_cast<double>(tl.end - tl.start);
  std::vector<svg::TimelineLane> lanes;
  std::map<Category, bool> used;
  for (const auto& row : tl.rows) {
    svg::TimelineLane lane;
    lane.label = row.label;
    lane.depth = std::min<int>(row.depth, 12);
    for (const auto& sl : row.slices) {
      if (sl.depth >= 12) continue;  // deeper nesting is cut to keep rows readable
      svg::TimelineRect r;
      r.start = static_cast<double>(sl.start - tl.start);
      r.end = static_cast<double>(sl.end - tl.start);
      r.depth = sl.depth;
      r.name = sl.name;
      r.colour = Colour(sl.category);
      r.tooltip = sl.name + " (" + layout::CategoryName(sl.category) +
                  "): " + HumanDuration(static_cast<double>(sl.end - sl.start));
      used[sl.category] = true;
      lane.rects.push_back(std::move(r));
    }
    lanes.push_back(std::move(lane));
  }
  std::vector<svg::LegendItem> legend;
  for (const auto& [c, u] : used) legend.push_back({layout::CategoryName(c), Colour(c), ""});
  if (whole)
    s += "<p>The trace has no steps: the whole run of process " + std::to_string(d.timeline_pid) +
         " (" + HumanDuration(span) + ") stands in.";
  else
    s += "<p>Step " + std::to_string(d.timeline_step) + " of process " +
         std::to_string(d.timeline_pid) + ", " + HumanDuration(span) +
         " long: the step of median duration.";
  s += " One row per thread and GPU stream; nested slices are drawn below their parent; "
       "hover a slice for its name and duration.</p>\n";
  s += "<figure>" +
       svg::TimelineChart(
           lanes, span, legend, whole ? "Whole run" : "Median step",
           whole ? "time since the process's first event" : "time since the step's start") +
       "</figure>\n";
  if (tl.left_out)
    s += "<p>" + WithCommas(tl.left_out) +
         " of the shortest slices are left out to keep the page small.</p>\n";
  return s + "</section>\n";
}

}  // namespace

void WriteReportHtml(const ReportData& d, Sink& out) {
  std::string title = d.run.title.empty() ? "tensortrace report" : d.run.title;
  out.Write(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
      Escape(title) + "</title>\n<style>" + kCss + "</style>\n</head>\n<body>\n");
  out.Write("<h1>" + Escape(title) + "</h1>\n<p class=\"sub\">" + Escape(d.run.trace) +
            " &mdash; made by tensortrace report</p>\n");
  out.Write(Summary(d.run));
  out.Write(Findings(d.findings));
  out.Write(report::SuggestionsSection(d));
  out.Write(Steps(d));
  out.Write(report::RankHeatmapSection(d));
  out.Write(Ops(d));
  out.Write(report::RooflineSection(d));
  out.Write(HotLines(d));
  out.Write(Kernels(d));
  out.Write(Memory(d));
  out.Write(Copies(d));
  out.Write(report::CommSection(d));
  out.Write(TimelineSection(d));
  if (!d.problems.empty()) {
    std::string s = "<section id=\"problems\"><h2>Damage skipped</h2>\n<ul>\n";
    for (const auto& p : d.problems) s += "<li>" + Escape(p) + "</li>\n";
    out.Write(s + "</ul></section>\n");
  }
  out.Write(
      "<footer>All numbers are computed from the trace; times are wall-clock. "
      "Generated by tensortrace.</footer>\n</body>\n</html>\n");
}

}  // namespace tt::exporter
