// `tensortrace info`: what a trace holds.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/framework_capture.h"
#include "cli/memory.h"
#include "core/time.h"
#include "model/inventory.h"

namespace tt::cli {

using model::Drops;
using model::ProcessSummary;
using model::Summarise;
using model::ThreadSummary;
using model::TraceSummary;

namespace {

const char kInfoHelp[] = R"(usage: tensortrace info DIR [--json]

Shows what the trace in DIR holds: processes (pid, parent, command, host), threads, events per
category, time span, dropped events, clock data, and which sources produced events; per process,
the framework (TensorFlow, JAX) and version found and what its profiler captured and record
imported. Damage (truncated or corrupted files) is listed, and everything readable is still
counted.

  --json      machine-readable output (schema: docs/info-json.md)
  -h, --help  this help
)";

// The captures of each process (by index): a pid's captures go to its newest image, the one
// that was running Python. Captures of pids without a process are returned in `unmatched`.
std::vector<std::vector<const FrameworkCapture*>> MatchCaptures(
    const TraceSummary& s, const std::vector<FrameworkCapture>& caps,
    std::vector<const FrameworkCapture*>* unmatched) {
  std::vector<std::vector<const FrameworkCapture*>> by_proc(s.processes.size());
  for (const auto& c : caps) {
    int best = -1;
    for (size_t i = 0; i < s.processes.size(); ++i)
      if (s.processes[i].meta.pid == c.pid &&
          (best < 0 || s.processes[i].meta.exec_generation >
                           s.processes[static_cast<size_t>(best)].meta.exec_generation))
        best = static_cast<int>(i);
    if (best < 0)
      unmatched->push_back(&c);
    else
      by_proc[static_cast<size_t>(best)].push_back(&c);
  }
  return by_proc;
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
                       {"file", t.file}});
  return threads;
}

nlohmann::json ToJson(const TraceSummary& s, const std::vector<FrameworkCapture>& caps) {
  using nlohmann::json;
  std::vector<const FrameworkCapture*> unmatched;
  auto by_proc = MatchCaptures(s, caps, &unmatched);
  json procs = json::array();
  for (size_t pi = 0; pi < s.processes.size(); ++pi) {
    const auto& p = s.processes[pi];
    json frameworks = json::array();
    for (const auto* c : by_proc[pi]) frameworks.push_back(FrameworkCaptureJson(*c));
    json threads = ThreadsJson(p);
    json cats = json::object();
    for (size_t c = 0; c < p.by_category.size(); ++c)
      if (p.by_category[c]) cats[layout::CategoryName(static_cast<layout::Category>(c))] = p.by_category[c];
    json offsets = json::array();
    for (const auto& [clock, off] : p.clock_offsets)
      offsets.push_back({{"clock", clock}, {"offset_ns", off}});
    procs.push_back({
        {"pid", p.meta.pid},
        {"ppid", p.meta.ppid},
        {"exec_generation", p.meta.exec_generation},
        {"command", p.meta.cmdline},
        {"host", p.meta.hostname},
        {"dir", p.dir},
        {"start_realtime_ns", p.meta.start_realtime_ns},
        {"end_state", p.meta.end_state},
        {"events", p.events},
        {"thread_count", p.thread_count},
        {"events_by_category", cats},
        {"events_by_kind", p.by_kind},
        {"strings", p.strings},
        {"first_ns", p.first_ns == UINT64_MAX ? 0 : p.first_ns},
        {"last_ns", p.last_ns},
        {"dropped", Drops(p)},
        {"drop_reasons", p.drop_reasons},
        {"clock",
         {{"trace_clock", "CLOCK_MONOTONIC"},
          {"boot_id", p.meta.clock_uuid},
          {"ctf_clock_offset_ns", p.meta.clock_offset_ns},
          {"realtime_offset_start_ns", p.meta.offset_start_ns},
          {"realtime_offset_end_ns", p.meta.offset_end_ns},
          {"end_offset_measured_by", p.meta.end_offset_by},
          {"offsets", offsets}}},
        {"sources", p.sources},
        {"source_details", p.source_details},
        {"notes", p.notes},
        {"tracing_error", p.meta.tracing_error},
        {"frameworks", frameworks},
        {"threads", threads},
    });
  }
  json problems = json::array();
  for (const auto& pr : s.problems)
    problems.push_back({{"file", pr.file}, {"offset", pr.offset}, {"what", pr.what}});
  uint64_t drops = 0;
  for (const auto& p : s.processes) drops += Drops(p);
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
          {"memory_note", note.empty() ? json(nullptr) : json(note)},
          {"frameworks_without_process", orphans}};
}

void PrintText(const TraceSummary& s, const std::vector<FrameworkCapture>& caps) {
  std::vector<const FrameworkCapture*> unmatched;
  auto by_proc = MatchCaptures(s, caps, &unmatched);
  uint64_t drops = 0;
  for (const auto& p : s.processes) drops += Drops(p);
  uint64_t span = s.first_ns == UINT64_MAX ? 0 : s.last_ns - s.first_ns;
  std::printf("trace      %s\n", TerminalSafe(s.path).c_str());
  std::printf("totals     %zu processes, %llu threads, %llu events, %llu dropped, %s span, %llu bytes\n",
              s.processes.size(), static_cast<unsigned long long>(s.threads),
              static_cast<unsigned long long>(s.events), static_cast<unsigned long long>(drops),
              FormatDuration(span).c_str(), static_cast<unsigned long long>(s.bytes));
  if (std::string note = MemoryNote(s); !note.empty())
    std::printf("memory     %s\n", TerminalSafe(note).c_str());
  for (size_t pi = 0; pi < s.processes.size(); ++pi) {
    const auto& p = s.processes[pi];
    std::printf(
        "\nprocess %lld (parent %lld%s) on %s: %s\n", static_cast<long long>(p.meta.pid),
        static_cast<long long>(p.meta.ppid),
        p.meta.exec_generation ? (", exec #" + std::to_string(p.meta.exec_generation)).c_str() : "",
        TerminalSafe(p.meta.hostname).c_str(), TerminalSafe(p.meta.cmdline).c_str());
    uint64_t pspan = p.first_ns == UINT64_MAX ? 0 : p.last_ns - p.first_ns;
    std::printf("  ended      %s%s\n", p.meta.end_state.c_str(),
                p.meta.end_state == "finalised" ? " (by record: crash, kill, exec or _exit)" : "");
    std::printf("  events     %llu over %s, %llu names\n", static_cast<unsigned long long>(p.events),
                FormatDuration(pspan).c_str(), static_cast<unsigned long long>(p.strings));
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
    for (const auto* c : by_proc[pi])
      std::fputs(TerminalSafe(FrameworkCaptureText(*c), true).c_str(), stdout);
    std::printf("  threads    %llu\n", static_cast<unsigned long long>(p.thread_count));
    for (const auto& t : p.threads)
      std::printf("  thread %-8llu %-16s %10llu events, %llu dropped%s\n",
                  static_cast<unsigned long long>(t.tid), TerminalSafe(t.name).c_str(),
                  static_cast<unsigned long long>(t.events),
                  static_cast<unsigned long long>(t.discarded),
                  t.imported ? " (imported from the framework's profiler)" : "");
  }
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
  bool json = false;
  std::string dir;
  while (!a.Done()) {
    if (a.Flag("-h") || a.Flag("--help")) {
      std::cout << kInfoHelp;
      return 0;
    } else if (a.Flag("--json")) {
      json = true;
    } else if (!a.Peek().empty() && a.Peek()[0] != '-' && dir.empty()) {
      dir = a.TakePositional();
    } else {
      a.Unknown();
    }
  }
  if (dir.empty()) throw Error("info: no trace directory given (usage: tensortrace info DIR)");
  TraceSummary s = Summarise(OpenTrace(dir));
  auto caps = LoadFrameworkCaptures(dir);
  // Names come from the traced program (and from damaged files): bytes that are not UTF-8
  // become U+FFFD rather than failing the whole output.
  if (json)
    std::cout << ToJson(s, caps).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  else PrintText(s, caps);
  // Damage is not an error: what could be read was shown. Say so once on stderr.
  if (!s.problems.empty())
    std::cerr << "tensortrace info: warning: " << s.problems.size()
              << " damaged part(s) skipped; the first: " << s.problems[0].ToString() << "\n";
  return 0;
}

}  // namespace tt::cli
