// `tensortrace info`: what a trace holds.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/job/steps.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/csv_rows.h"
#include "cli/framework_capture.h"
#include "cli/memory.h"
#include "cli/option_groups.h"
#include "core/files.h"
#include "core/time.h"
#include "format/captures.h"
#include "format/live_read.h"
#include "model/inventory.h"
#include "model/job/images.h"

namespace tt::cli {

using model::Drops;
using model::ProcessSummary;
using model::Summarise;
using model::ThreadSummary;
using model::TraceSummary;

namespace {

const char kInfoHelp[] = R"(usage: tensortrace info DIR [--json | --csv [--section S]]

Shows what the trace in DIR holds: processes (pid, parent, command, host, rank, job), threads,
events per category, time span, dropped events, clock data, and which sources produced events;
per process, the framework (TensorFlow, JAX, PyTorch) and version found and what its profiler
captured and record imported. Damage (truncated or corrupted files) is listed, and everything readable is still
counted.

)";

const OutputSpec kOutput{.schema = "docs/info-json.md",
                         .csv_rows = "",
                         .sections = {{"processes", "one row per process"},
                                      {"threads", "one row per thread, after its process's pid"},
                                      {"problems", "one row per damaged part skipped"}}};

// The rank its launcher gave the process, or null.
nlohmann::json RankJson(const ProcessMeta& m) {
  if (m.rank < 0) return nullptr;
  return {{"rank", m.rank},
          {"local_rank", m.local_rank},
          {"world_size", m.world_size},
          {"source", m.rank_source}};
}

std::string RankText(const ProcessMeta& m) {
  std::string t = std::to_string(m.rank);
  if (m.world_size >= 0) t += " of " + std::to_string(m.world_size);
  if (m.local_rank >= 0) t += ", local rank " + std::to_string(m.local_rank);
  return t + " (" + TerminalSafe(m.rank_source) + ")";
}

// The steps of one process as stats finds them (analysis/job/steps.h), so that info and stats
// agree.
struct ProcessSteps {
  size_t count = 0;
  int64_t first = 0, last = 0;
  std::string source;                      // "marker", "step-name", "repeated-call"
  std::string how;                         // one line: how they were found
  std::vector<analysis::CaptureGap> gaps;  // between capture windows
};

// The capture windows of c on the trace clock: the times the bootstrap knows each window
// covered (capture.json "window_times", CLOCK_REALTIME), else what the import saw of each
// file (import.json "windows"). A damaged file gives none.
void AddWindows(const FrameworkCapture& c, const ProcessMeta& meta,
                std::vector<std::pair<uint64_t, uint64_t>>* out) {
  try {
    if (c.capture.is_object() && c.capture.contains("window_times")) {
      for (const auto& w : c.capture["window_times"])
        out->emplace_back(w.at(0).get<uint64_t>() - static_cast<uint64_t>(meta.offset_start_ns),
                          w.at(1).get<uint64_t>() - static_cast<uint64_t>(meta.offset_start_ns));
    } else if (c.import.is_object() && c.import.contains("windows")) {
      for (const auto& w : c.import["windows"])
        out->emplace_back(w.at(0).get<uint64_t>(), w.at(1).get<uint64_t>());
    }
  } catch (const nlohmann::json::exception&) {
  }
}

// One gap, in words: "0.612 s after step 11, before step 12 (cut: 12)".
std::string GapText(const analysis::CaptureGap& g) {
  std::string t = FormatDuration(g.end - g.start);
  if (g.after >= 0) t += " after step " + std::to_string(g.after);
  if (g.before >= 0)
    t += std::string(g.after >= 0 ? "," : "") + " before step " + std::to_string(g.before);
  if (!g.cut.empty()) {
    t += " (steps cut:";
    for (int64_t n : g.cut) t += " " + std::to_string(n);
    t += ")";
  }
  return t;
}

// The captures of each process (by index): a pid's captures go to its newest image, the one
// that was running Python. Captures of pids without a process are returned in `unmatched`.
std::vector<std::vector<const FrameworkCapture*>> MatchCaptures(
    const TraceSummary& s, const std::vector<FrameworkCapture>& caps,
    std::vector<const FrameworkCapture*>* unmatched) {
  std::vector<std::vector<const FrameworkCapture*>> by_proc(s.processes.size());
  model::NewestImages images(s.processes);
  for (const auto& c : caps) {
    int best = -1;
    for (size_t i = 0; i < s.processes.size() && best < 0; ++i)
      if (s.processes[i].meta.pid == c.pid && images.IsNewest(s.processes[i].meta))
        best = static_cast<int>(i);
    if (best < 0)
      unmatched->push_back(&c);
    else
      by_proc[static_cast<size_t>(best)].push_back(&c);
  }
  return by_proc;
}

// The processes that could not write a trace (loss page): pid, events lost, by cause.
nlohmann::json LostJson(const TraceSummary& s) {
  nlohmann::json lost = nlohmann::json::array();
  for (const auto& l : s.lost) {
    nlohmann::json why = nlohmann::json::object();
    uint64_t n = 0;
    for (uint32_t c = 0; c < kLossCauseCount; ++c)
      if (l.counts[c]) {
        why[LossCauseText(c)] = l.counts[c];
        n += l.counts[c];
      }
    lost.push_back({{"pid", l.pid}, {"dropped", n}, {"drop_reasons", why}});
  }
  return lost;
}

// The table's lines for processes that could not write a trace.
void PrintLost(const TraceSummary& s) {
  for (const auto& l : s.lost) {
    std::printf("\nprocess %lld: no trace (it could not write one); dropped",
                static_cast<long long>(l.pid));
    for (uint32_t c = 0; c < kLossCauseCount; ++c)
      if (l.counts[c])
        std::printf(" [%s: %llu]", LossCauseText(c), static_cast<unsigned long long>(l.counts[c]));
    std::printf("\n");
  }
}

// Per process of the summary (matched to the model's by pid, exec and start time).
std::vector<ProcessSteps> StepsOf(const TraceSummary& s, const model::TraceModel& m,
                                  const std::vector<FrameworkCapture>& caps) {
  std::vector<const FrameworkCapture*> unmatched;
  auto by_proc = MatchCaptures(s, caps, &unmatched);
  std::vector<analysis::Step> steps = analysis::FindSteps(m, {}, 0);
  std::vector<std::string> how = analysis::DescribeStepSources(m, steps);
  std::vector<ProcessSteps> out(s.processes.size());
  for (size_t pi = 0; pi < s.processes.size(); ++pi) {
    const ProcessMeta& a = s.processes[pi].meta;
    for (size_t mp = 0; mp < m.processes.size(); ++mp) {
      const ProcessMeta& b = m.processes[mp].meta;
      if (a.pid != b.pid || a.exec_generation != b.exec_generation ||
          a.start_realtime_ns != b.start_realtime_ns)
        continue;
      ProcessSteps& ps = out[pi];
      for (const auto& st : steps) {
        if (st.process != mp) continue;
        ps.first = ps.count ? std::min(ps.first, st.number) : st.number;
        ps.last = ps.count ? std::max(ps.last, st.number) : st.number;
        ps.source = analysis::StepSourceName(st.source);
        ps.count++;
      }
      ps.how = how[mp];
      std::vector<std::pair<uint64_t, uint64_t>> windows;
      for (const auto* c : by_proc[pi]) AddWindows(*c, a, &windows);
      ps.gaps = analysis::CaptureGaps(steps, mp, windows);
      break;
    }
  }
  return out;
}

void PrintSteps(const ProcessSteps& ps) {
  if (ps.count)
    std::printf("  steps      %lld:%lld, %s\n", static_cast<long long>(ps.first),
                static_cast<long long>(ps.last), TerminalSafe(ps.how).c_str());
  if (ps.gaps.empty()) return;
  std::string gaps;
  for (const auto& g : ps.gaps) gaps += (gaps.empty() ? "" : "; ") + GapText(g);
  std::printf("  gaps       %zu between capture windows (not captured): %s\n", ps.gaps.size(),
              gaps.c_str());
}

nlohmann::json GapsJson(const std::vector<analysis::CaptureGap>& gaps) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& g : gaps)
    j.push_back({{"start_ns", g.start},
                 {"end_ns", g.end},
                 {"after_step", g.after},
                 {"before_step", g.before},
                 {"cut_steps", g.cut}});
  return j;
}

nlohmann::json StepsJson(const ProcessSteps& ps) {
  return {{"count", ps.count},   {"first", ps.first}, {"last", ps.last},
          {"source", ps.source}, {"how", ps.how},     {"gaps", GapsJson(ps.gaps)}};
}

// With no allocation event in the trace: why, and which option of record captures them.
std::string MemoryNote(const TraceSummary& s) {
  for (const auto& p : s.processes)
    if (p.by_category[static_cast<size_t>(layout::Category::kAllocation)]) return "";
  return MemoryMissingNote(s.path);
}

nlohmann::json ThreadsJson(const ProcessSummary& p) {
  nlohmann::json threads = nlohmann::json::array();
  for (const auto& t : p.threads)
    threads.push_back({{"tid", t.tid},
                       {"name", t.name},
                       {"events", t.events},
                       {"first_ns", t.first_ns},
                       {"last_ns", t.last_ns},
                       {"dropped", t.discarded},
                       {"imported", t.imported},
                       {"tensortrace", t.ours},
                       {"file", t.file}});
  return threads;
}

// record --on-demand / --every: "2 windows, 1.500 s in all (1.000 s, 500.000 ms); nothing
// was written between them".
std::string CapturesText(const CaptureWindows& w) {
  uint64_t all = 0;
  std::string each;
  for (size_t i = 0; i < w.size(); ++i) {
    uint64_t d = w[i].second > w[i].first ? w[i].second - w[i].first : 0;
    all += d;
    if (i < 10) each += (each.empty() ? "" : ", ") + FormatDuration(d);
  }
  if (w.size() > 10) each += ", ...";
  if (w.empty()) return "no window was opened (record --on-demand): nothing was written";
  return std::to_string(w.size()) + " window(s), " + FormatDuration(all) + " in all (" + each +
         "); nothing was written between them";
}

nlohmann::json CapturesJson(const CaptureWindows* w) {
  if (!w) return nullptr;
  nlohmann::json a = nlohmann::json::array();
  for (const auto& [start, end] : *w) a.push_back({{"start_ns", start}, {"end_ns", end}});
  return a;
}

nlohmann::json ClockJson(const ProcessSummary& p) {
  nlohmann::json offsets = nlohmann::json::array();
  for (const auto& [clock, off] : p.clock_offsets)
    offsets.push_back({{"clock", clock}, {"offset_ns", off}});
  return {{"trace_clock", "CLOCK_MONOTONIC"},
          {"boot_id", p.meta.clock_uuid},
          {"ctf_clock_offset_ns", p.meta.clock_offset_ns},
          {"realtime_offset_start_ns", p.meta.offset_start_ns},
          {"realtime_offset_end_ns", p.meta.offset_end_ns},
          {"end_offset_measured_by", p.meta.end_offset_by},
          {"offsets", offsets}};
}

// The processes' indices: the ranks in rank order, then the processes without one (a launcher,
// its helpers) in the order they were recorded; not in the order of their pids. As the report's
// run summary lists them.
std::vector<size_t> RankOrder(const TraceSummary& s) {
  std::vector<size_t> order(s.processes.size());
  for (size_t pi = 0; pi < order.size(); ++pi) order[pi] = pi;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    int64_t ra = s.processes[a].meta.rank, rb = s.processes[b].meta.rank;
    return ra >= 0 && (rb < 0 || ra < rb);
  });
  return order;
}

nlohmann::json ToJson(const TraceSummary& s, const std::vector<FrameworkCapture>& caps,
                      const std::vector<ProcessSteps>& steps, const CaptureWindows* windows) {
  using nlohmann::json;
  std::vector<const FrameworkCapture*> unmatched;
  auto by_proc = MatchCaptures(s, caps, &unmatched);
  json procs = json::array();
  for (size_t pi : RankOrder(s)) {
    const auto& p = s.processes[pi];
    json frameworks = json::array();
    for (const auto* c : by_proc[pi]) frameworks.push_back(FrameworkCaptureJson(*c));
    json threads = ThreadsJson(p);
    json cats = json::object();
    for (size_t c = 0; c < p.by_category.size(); ++c)
      if (p.by_category[c])
        cats[layout::CategoryName(static_cast<layout::Category>(c))] = p.by_category[c];
    procs.push_back({
        {"pid", p.meta.pid},
        {"ppid", p.meta.ppid},
        {"exec_generation", p.meta.exec_generation},
        {"command", p.meta.cmdline},
        {"host", p.meta.hostname},
        {"cpus", p.meta.cpus},
        {"rank", RankJson(p.meta)},
        {"job", p.meta.job.empty() ? json(nullptr) : json(p.meta.job)},
        {"dir", p.dir},
        {"start_realtime_ns", p.meta.start_realtime_ns},
        {"end_state", p.meta.end_state},
        {"events", p.events},
        {"thread_count", p.thread_count},
        {"tensortrace_threads", p.own_threads},
        {"events_by_category", cats},
        {"events_by_kind", p.by_kind},
        {"strings", p.strings},
        {"truncated_names", p.meta.truncated_names},
        {"first_ns", p.first_ns == UINT64_MAX ? 0 : p.first_ns},
        {"last_ns", p.last_ns},
        {"dropped", Drops(p)},
        {"drop_reasons", p.drop_reasons},
        {"clock", ClockJson(p)},
        {"sources", p.sources},
        {"source_details", p.source_details},
        {"notes", p.notes},
        {"tracing_error", p.meta.tracing_error},
        {"frameworks", frameworks},
        {"steps", StepsJson(steps[pi])},
        {"threads", threads},
    });
  }
  json problems = json::array();
  for (const auto& pr : s.problems)
    problems.push_back({{"file", pr.file}, {"offset", pr.offset}, {"what", pr.what}});
  uint64_t drops = model::TotalDrops(s);
  json orphans = json::array();
  for (const auto* c : unmatched) orphans.push_back(FrameworkCaptureJson(*c));
  std::string note = MemoryNote(s);
  return {{"schema", "tensortrace.info/1"},
          {"path", s.path},
          {"processes", procs},
          {"totals",
           {{"processes", s.processes.size()},
            {"threads", s.threads},
            {"events", s.events},
            {"dropped", drops},
            {"bytes", s.bytes},
            {"first_ns", s.first_ns == UINT64_MAX ? 0 : s.first_ns},
            {"last_ns", s.last_ns},
            {"duration_ns", s.first_ns == UINT64_MAX ? 0 : s.last_ns - s.first_ns}}},
          {"problems", problems},
          {"lost_processes", LostJson(s)},
          {"memory_note", note.empty() ? json(nullptr) : json(note)},
          {"frameworks_without_process", orphans},
          {"capture_windows", CapturesJson(windows)}};
}

// One process of the table.
void PrintProcess(const ProcessSummary& p, const std::vector<const FrameworkCapture*>& caps,
                  const ProcessSteps& steps) {
  std::printf(
      "\nprocess %lld (parent %lld%s) on %s: %s\n", static_cast<long long>(p.meta.pid),
      static_cast<long long>(p.meta.ppid),
      p.meta.exec_generation ? (", exec #" + std::to_string(p.meta.exec_generation)).c_str() : "",
      TerminalSafe(p.meta.hostname).c_str(), TerminalSafe(p.meta.cmdline).c_str());
  uint64_t pspan = p.first_ns == UINT64_MAX ? 0 : p.last_ns - p.first_ns;
  if (p.meta.rank >= 0) std::printf("  rank       %s\n", RankText(p.meta).c_str());
  if (!p.meta.job.empty()) std::printf("  job        %s\n", TerminalSafe(p.meta.job).c_str());
  std::printf("  ended      %s%s\n", p.meta.end_state.c_str(),
              p.meta.end_state == "finalised" ? " (by record: crash, kill, exec or _exit)"
              : p.meta.end_state == "cut"
                  ? " (by record: still running when record ended; no packet after that)"
                  : "");
  std::printf("  events     %llu over %s, %llu names\n", static_cast<unsigned long long>(p.events),
              FormatDuration(pspan).c_str(), static_cast<unsigned long long>(p.strings));
  if (p.meta.truncated_names)
    std::printf("  names cut  %llu (longer than 4096 bytes; cut to 4096)\n",
                static_cast<unsigned long long>(p.meta.truncated_names));
  std::string cats;
  for (size_t c = 0; c < p.by_category.size(); ++c)
    if (p.by_category[c])
      cats += std::string(cats.empty() ? "" : ", ") +
              layout::CategoryName(static_cast<layout::Category>(c)) + " " +
              std::to_string(p.by_category[c]);
  std::printf("  categories %s\n", cats.empty() ? "(none)" : cats.c_str());
  std::string srcs;
  for (const auto& src : p.sources) srcs += (srcs.empty() ? "" : ", ") + src;
  std::printf("  sources    %s\n", srcs.empty() ? "(none produced events)" : srcs.c_str());
  for (const auto& [src, seen] : p.source_details) {
    std::string all;
    for (const auto& s : seen) all += (all.empty() ? "" : ", ") + s;
    std::printf("  %-10s %s\n", TerminalSafe(src == "itt" ? "itt domains" : src).c_str(),
                TerminalSafe(all).c_str());
  }
  std::printf("  dropped    %llu", static_cast<unsigned long long>(Drops(p)));
  for (const auto& [why, n] : p.drop_reasons)
    std::printf(" [%s: %llu]", TerminalSafe(why).c_str(), static_cast<unsigned long long>(n));
  std::printf("\n  clock      CLOCK_MONOTONIC (boot %s); realtime offset %lld ns at start, ",
              p.meta.clock_uuid.c_str(), static_cast<long long>(p.meta.offset_start_ns));
  if (p.meta.offset_end_ns)
    std::printf("%lld ns at end (measured by %s)\n", static_cast<long long>(p.meta.offset_end_ns),
                p.meta.end_offset_by.c_str());
  else
    std::printf("end not recorded\n");
  if (!p.meta.tracing_error.empty())
    std::printf("  error      tracing stopped: %s\n", TerminalSafe(p.meta.tracing_error).c_str());
  for (const auto* c : caps)
    std::fputs(TerminalSafe(FrameworkCaptureText(*c), true).c_str(), stdout);
  PrintSteps(steps);
  std::printf("  threads    %llu", static_cast<unsigned long long>(p.thread_count));
  if (p.own_threads)
    std::printf(" (and %llu of tensortrace's own, listed as such)",
                static_cast<unsigned long long>(p.own_threads));
  std::printf("\n");
  for (const auto& t : p.threads)
    std::printf("  thread %-8llu %-16s %10llu events, %llu dropped%s\n",
                static_cast<unsigned long long>(t.tid), TerminalSafe(t.name).c_str(),
                static_cast<unsigned long long>(t.events),
                static_cast<unsigned long long>(t.discarded),
                t.imported ? " (imported from the framework's profiler)"
                : t.ours   ? " (tensortrace's own)"
                           : "");
}

void PrintText(const TraceSummary& s, const std::vector<FrameworkCapture>& caps,
               const std::vector<ProcessSteps>& steps, const CaptureWindows* windows) {
  std::vector<const FrameworkCapture*> unmatched;
  auto by_proc = MatchCaptures(s, caps, &unmatched);
  uint64_t drops = model::TotalDrops(s);
  uint64_t span = s.first_ns == UINT64_MAX ? 0 : s.last_ns - s.first_ns;
  std::printf("trace      %s\n", TerminalSafe(s.path).c_str());
  std::printf(
      "totals     %zu processes, %llu threads, %llu events, %llu dropped, %s span, %llu bytes\n",
      s.processes.size(), static_cast<unsigned long long>(s.threads),
      static_cast<unsigned long long>(s.events), static_cast<unsigned long long>(drops),
      FormatDuration(span).c_str(), static_cast<unsigned long long>(s.bytes));
  if (std::string note = MemoryNote(s); !note.empty())
    std::printf("memory     %s\n", TerminalSafe(note).c_str());
  if (windows) std::printf("captured   %s\n", CapturesText(*windows).c_str());
  for (size_t pi : RankOrder(s)) PrintProcess(s.processes[pi], by_proc[pi], steps[pi]);
  PrintLost(s);
  for (const auto* c : unmatched) {
    std::printf("\nframework capture of pid %lld (no process stream):\n",
                static_cast<long long>(c->pid));
    std::fputs(TerminalSafe(FrameworkCaptureText(*c), true).c_str(), stdout);
  }
  if (!s.problems.empty()) {
    std::printf("\nskipped (damaged parts; everything before them was read):\n");
    for (const auto& pr : s.problems) std::printf("  %s\n", TerminalSafe(pr.ToString()).c_str());
  }
}

// --csv: the section's rows of the JSON (threads after their process's pid).
void PrintCsv(const nlohmann::json& j, const std::string& section) {
  if (section == "problems") return PrintCsvRows(j["problems"], {"file", "offset", "what"});
  if (section == "processes") return PrintCsvRows(j["processes"], {"pid", "ppid", "command"});
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& p : j["processes"])
    for (const auto& t : p["threads"]) rows.push_back(WithOwner({{"pid", p["pid"]}}, t));
  PrintCsvRows(rows, {"pid", "tid"});
}

}  // namespace

std::string FormatDuration(uint64_t ns) {
  char b[64];
  if (ns >= 60 * tt::kNsPerSec)
    std::snprintf(b, sizeof b, "%.1f min", static_cast<double>(ns) / 60e9);
  else if (ns >= tt::kNsPerSec)
    std::snprintf(b, sizeof b, "%.3f s", static_cast<double>(ns) / 1e9);
  else if (ns >= 1000000)
    std::snprintf(b, sizeof b, "%.3f ms", static_cast<double>(ns) / 1e6);
  else
    std::snprintf(b, sizeof b, "%.3f us", static_cast<double>(ns) / 1e3);
  return b;
}

int Info(const std::vector<std::string>& argv) {
  ArgReader a("info", argv);
  OutputOptions out{kOutput};
  std::string dir;
  while (!a.Done()) {
    if (ParseOutputOption(a, kOutput, &out)) {
      if (!out.help) continue;
      std::cout << kInfoHelp << OutputHelp(kOutput);
      return 0;
    } else if (!a.Peek().empty() && a.Peek()[0] != '-' && dir.empty()) {
      dir = a.TakePositional();
    } else {
      a.Unknown();
    }
  }
  if (dir.empty()) throw Error("info: no trace directory given (usage: tensortrace info DIR)");
  CheckOutput(kOutput, out);
  // A recording still running (record writes tensortrace.json last): its stream files are read
  // from copies, so that none is cut under the reader and each event's class is defined in
  // what is read (format/live_read.h).
  if (PathExists(dir + "/losses") && !PathExists(dir + "/tensortrace.json"))
    SetStreamFilesCopied(true);
  TraceSummary s;
  model::TraceModel m = model::LoadModel(OpenTrace(dir), &s);
  auto caps = LoadFrameworkCaptures(dir);
  std::vector<ProcessSteps> steps = StepsOf(s, m, caps);
  // The recording's capture windows (every process has them; none: recorded whole).
  bool windowed = false;
  CaptureWindows windows;
  try {
    windows = ReadCaptures(dir, &windowed);
  } catch (const Error&) {
    windowed = false;  // a damaged file: a problem of the trace, listed with the others
  }
  // Names come from the traced program (and from damaged files): bytes that are not UTF-8
  // become U+FFFD rather than failing the whole output.
  if (out.json)
    std::cout << ToJson(s, caps, steps, windowed ? &windows : nullptr)
                     .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  else if (out.csv)
    PrintCsv(ToJson(s, caps, steps, windowed ? &windows : nullptr), out.section);
  else
    PrintText(s, caps, steps, windowed ? &windows : nullptr);
  return 0;
}

}  // namespace tt::cli
