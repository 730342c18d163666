// `tensortrace top`: the live view of a recording, refreshed every --interval seconds from the
// stream files as `record` writes them (read only, up to the last whole event of each packet),
// or one snapshot (--once) as a table or JSON (docs/top-json.md).
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "analysis/live/live.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/csv_rows.h"
#include "cli/human_table.h"
#include "cli/option_groups.h"
#include "cli/pids.h"
#include "core/files.h"
#include "core/ids.h"
#include "format/live_read.h"
#include "model/inventory.h"
#include "model/job/load.h"

namespace tt::cli {

namespace {

const char kTopUsage[] =
    R"(usage: tensortrace top DIR... [--once] [--json | --csv [--section S]] [--interval S]
                          [--window S] [--top N] [--step-name NAME]... [--pid P]...

The live view of a recording: run it beside `tensortrace record -o DIR -- CMD`. Refreshed
every second from the trace as it is written: steps per second, step time and its parts
(input, compile, compute, communication, runtime, idle; the device's), the top ops overall and
in the last window's steps, memory in use, dropped events, per process and rank, and how old
the framework profiler's data are (TensorFlow, JAX and PyTorch profiles are imported into the
trace only when a capture window closes or when `record` ends). It stops once the recording
has ended. Several directories (one recording per rank or host, `record -o 'out/%h-%r'`) are
one job. On a finished trace its numbers are those of `stats` (--view step, --view op).

options:
  --once            one snapshot, then exit
  --interval S      seconds between refreshes (default 1)
  --window S        the last window: steps that ended in the trace's last S seconds (default
                    10; at least the last step)
)";

const OutputSpec kOutput{
    .schema = "docs/top-json.md; with --once one object, else one line per refresh",
    .csv_rows = "",
    .sections = {{"ops", "one row per top op of the whole trace (with --once only)"},
                 {"window_ops", "the top ops of the last window's steps"},
                 {"processes", "one row per process"}},
    .top_rows = "ops",
    .top_default = 5,
    .top_max = 1000,
    .top_cuts_data = true};
const SelectionSpec kSelection{.step_name = true, .pid = true};

struct TopArgs {
  std::string dir;
  std::vector<std::string> more;  // further directories: one job (a recording per rank)
  SelectionOptions sel;
  OutputOptions out{kOutput};
  bool once = false;
  double interval = 1;
  analysis::LiveOptions live;
};

// False when the help was asked for (and printed).
bool ParseTopArgs(const std::vector<std::string>& argv, TopArgs* t) {
  ArgReader a("top", argv);
  std::string v;
  while (!a.Done()) {
    if (ParseOutputOption(a, kOutput, &t->out)) {
      if (!t->out.help) continue;
      std::cout << kTopUsage << SelectionHelp(kSelection) << OutputHelp(kOutput);
      return false;
    } else if (a.Flag("--once")) {
      t->once = true;
    } else if (a.Option("--interval", &v)) {
      t->interval = ParseSeconds("--interval", v);
      if (t->interval < 0.05) throw Error("--interval: at least 0.05 seconds");
    } else if (a.Option("--window", &v)) {
      t->live.window_s = ParseSeconds("--window", v);
    } else if (ParseSelectionOption(a, kSelection, &t->sel)) {
    } else if (!a.Peek().empty() && a.Peek()[0] != '-') {
      (t->dir.empty() ? t->dir : t->more.emplace_back()) = a.TakePositional();
    } else {
      a.Unknown();
    }
  }
  if (t->dir.empty()) throw Error("no trace directory given (usage: tensortrace top DIR)");
  CheckOutput(kOutput, t->out);
  if (t->out.csv && !t->once) throw Error("--csv goes with --once");
  t->live.top = t->out.top;
  t->live.step_names = t->sel.step_names;
  return true;
}

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// One snapshot. The trace clock is CLOCK_MONOTONIC: while the recording runs on this host,
// ages count up to now.
analysis::LiveSnapshot Snapshot(const TopArgs& t) {
  std::vector<std::string> dirs = DirList(t.dir, t.more);
  analysis::LiveOptions o = t.live;
  // `record` writes tensortrace.json last, once every process has ended and been imported.
  // A process's own directory (p<pid>) is read as a trace too: its recording's file is above.
  // A recording whose `record` was killed never writes it: live only while record's lock is held.
  for (const auto& d : dirs) {
    std::string rec = PathExists(d + "/metadata") ? d + "/.." : d;
    o.recording |= !PathExists(rec + "/tensortrace.json") && RecordLockHeld(rec);
  }
  // Until then `record` may cut and compact stream files (as processes end) and processes
  // define names and classes: read copies, threads' streams first (format/live_read.h).
  SetStreamFilesCopied(o.recording);
  TraceDir dir = model::OpenJob(dirs, t.sel.Chosen());
  model::TraceSummary inv;
  model::TraceModel m = model::LoadModel(dir, &inv);
  // Our clock is the trace's only where every process ran on this boot of this machine.
  bool here = true;
  std::string boot = BootId();
  for (const auto& p : dir.processes) here &= !boot.empty() && p.meta.clock_uuid == boot;
  if (o.recording && here) o.now_ns = MonotonicNs();
  return analysis::TakeSnapshot(m, inv, o);
}

// A recording that has begun (`record` writes its loss page before it starts the command)
// but whose first process has not made its trace yet.
bool Starting(const std::string& dir) {
  if (!PathExists(dir + "/losses") || PathExists(dir + "/tensortrace.json")) return false;
  for (const auto& name : ListDirectory(dir))
    if (PathExists(dir + "/" + name + "/metadata")) return false;
  return true;
}

nlohmann::json OpsJson(const std::vector<analysis::LiveOp>& ops) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& op : ops)
    j.push_back({{"name", op.name},
                 {"occurrence", op.count},
                 {"micros", static_cast<double>(op.total_ns) / 1e3},
                 {"self_micros", static_cast<double>(op.self_ns) / 1e3},
                 {"share", op.share}});
  return j;
}

nlohmann::json StepsJson(const analysis::LiveSteps& s) {
  auto us = [](double ns) { return ns / 1e3; };
  nlohmann::json j = {{"steps", s.count},
                      {"warmup_steps", s.warmup},
                      {"steps_per_second", s.steps_per_s},
                      {"mean_step_micros", us(s.mean_ns)},
                      {"last_step", s.last_number},
                      {"last_step_micros", us(static_cast<double>(s.last_ns))},
                      {"window_steps", s.window_steps}};
  j["breakdown_micros"] = {{"input", us(s.input)},
                           {"compile", us(s.compile)},
                           {"host_compute", us(s.host_compute)},
                           {"host_communication", us(s.host_comm)},
                           {"runtime", us(s.runtime)},
                           {"host_idle", us(s.host_idle)}};
  if (s.has_device)
    j["device_micros"] = {{"compute", us(s.device_compute)},
                          {"copies", us(s.copies)},
                          {"communication", us(s.communication)},
                          {"idle", us(s.device_idle)}};
  return j;
}

nlohmann::json FrameworkJson(const analysis::LiveFramework& f) {
  nlohmann::json j = {{"source", f.name.empty() ? nullptr : nlohmann::json(f.name)},
                      {"pending", f.pending},
                      {"last_ns", f.imported_last_ns}};
  j["age_seconds"] = f.age_s ? nlohmann::json(*f.age_s) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json SnapshotJson(const analysis::LiveSnapshot& s) {
  nlohmann::json j = {{"schema", "tensortrace.top/1"},
                      {"trace", s.path},
                      {"recording", s.recording},
                      {"now_ns", s.now_ns},
                      {"first_ns", s.first_ns},
                      {"last_ns", s.last_ns},
                      {"events", s.events},
                      {"dropped", s.dropped}};
  j.update(StepsJson(s.steps));
  j["top_op"] = s.top_ops.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.top_ops[0].name);
  j["ops"] = OpsJson(s.top_ops);
  j["window"] = {{"seconds", s.window_s},
                 {"first_step", s.window_first_step},
                 {"last_step", s.window_last_step},
                 {"ops", OpsJson(s.window_ops)}};
  j["memory_bytes"] = s.has_memory ? nlohmann::json(s.memory_bytes) : nlohmann::json(nullptr);
  nlohmann::json procs = nlohmann::json::array();
  for (const auto& p : s.processes) {
    nlohmann::json pj = {{"pid", p.pid},
                         {"rank", p.rank},
                         {"world_size", p.world_size},
                         {"host", p.host},
                         {"command", p.command},
                         {"state", p.state},
                         {"events", p.events},
                         {"dropped", p.dropped},
                         {"threads", p.threads},
                         {"last_ns", p.last_event_ns}};
    pj.update(StepsJson(p.steps));
    pj["memory_bytes"] = p.has_memory ? nlohmann::json(p.memory_bytes) : nlohmann::json(nullptr);
    pj["framework"] = FrameworkJson(p.framework);
    procs.push_back(pj);
  }
  j["processes"] = procs;
  j["notes"] = s.notes;
  j["problems"] = s.problems;
  j["first_problem"] =
      s.first_problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.first_problem);
  return j;
}

std::string Ms(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f ms", ns / 1e6);
  return b;
}

std::string Bytes(int64_t n) {
  char b[32];
  double v = static_cast<double>(n);
  if (std::abs(v) >= 1 << 20)
    std::snprintf(b, sizeof b, "%.1f MiB", v / (1 << 20));
  else
    std::snprintf(b, sizeof b, "%lld B", static_cast<long long>(n));
  return b;
}

void PrintSteps(const analysis::LiveSteps& s, double window_s) {
  if (!s.count) {
    std::cout << "steps 0 (none complete yet)\n";
    return;
  }
  char line[256];
  std::snprintf(line, sizeof line, "steps %llu (%llu warm-up)  %.2f/s  mean %s  last %s (#%lld)\n",
                static_cast<unsigned long long>(s.count), static_cast<unsigned long long>(s.warmup),
                s.steps_per_s, Ms(s.mean_ns).c_str(), Ms(static_cast<double>(s.last_ns)).c_str(),
                static_cast<long long>(s.last_number));
  std::cout << line;
  if (!s.window_steps) return;
  std::snprintf(line, sizeof line,
                "  ms per step (last %g s, %llu steps): input %.3f  compile %.3f  compute %.3f  "
                "comm %.3f  runtime %.3f  idle %.3f\n",
                window_s, static_cast<unsigned long long>(s.window_steps), s.input / 1e6,
                s.compile / 1e6, s.host_compute / 1e6, s.host_comm / 1e6, s.runtime / 1e6,
                s.host_idle / 1e6);
  std::cout << line;
  if (!s.has_device) return;
  std::snprintf(line, sizeof line,
                "  device ms per step: compute %.3f  copies %.3f  comm %.3f  idle %.3f\n",
                s.device_compute / 1e6, s.copies / 1e6, s.communication / 1e6, s.device_idle / 1e6);
  std::cout << line;
}

// The ops through the table renderer, under the JSON's names (times in ms from 1 ms up).
void PrintOps(const std::string& title, const std::vector<analysis::LiveOp>& ops) {
  if (ops.empty()) return;
  std::cout << "\n" << title << ":\n";
  using K = analysis::ColumnKind;
  HumanTable t;
  t.cols = {{"name", K::kText},
            {"micros", K::kMicros},
            {"self_micros", K::kMicros},
            {"occurrence", K::kCount},
            {"share", K::kRatio}};
  for (const auto& op : ops)
    t.rows.push_back({TextCell(op.name.substr(0, 60)),
                      NumberCell(static_cast<double>(op.total_ns) / 1e3),
                      NumberCell(static_cast<double>(op.self_ns) / 1e3),
                      NumberCell(static_cast<double>(op.count)), NumberCell(op.share)});
  PrintHumanTable(std::move(t), false);
}

// How old a process's framework data are, in words.
std::string FrameworkAge(const analysis::LiveFramework& f) {
  char b[96];
  if (!f.age_s)
    return "-";
  else if (f.name.empty())
    std::snprintf(b, sizeof b, "none yet, %.1f s behind (imported when record ends)", *f.age_s);
  else
    std::snprintf(b, sizeof b, "%s, %.1f s old%s", f.name.c_str(), *f.age_s,
                  f.pending ? ", more pending" : "");
  return b;
}

void PrintProcesses(const analysis::LiveSnapshot& s) {
  using K = analysis::ColumnKind;
  HumanTable t;
  t.cols = {{"pid", K::kCount},
            {"rank", K::kCount},
            {"state", K::kText},
            {"steps", K::kCount},
            {"steps_per_second", K::kNumber},
            {"mean_step_micros", K::kMicros},
            {"memory_bytes", K::kBytes},
            {"dropped", K::kCount},
            {"framework", K::kText}};
  for (const auto& p : s.processes)
    t.rows.push_back(
        {NumberCell(static_cast<double>(p.pid)), NumberCell(static_cast<double>(p.rank)),
         TextCell(p.state), NumberCell(static_cast<double>(p.steps.count)),
         NumberCell(p.steps.steps_per_s), NumberCell(p.steps.mean_ns / 1e3),
         NumberCell(p.has_memory ? static_cast<double>(p.memory_bytes) : -1),
         NumberCell(static_cast<double>(p.dropped)), TextCell(FrameworkAge(p.framework))});
  std::cout << "\n";
  PrintHumanTable(std::move(t), false);
}

void PrintTable(const analysis::LiveSnapshot& s, bool clear) {
  if (clear) std::cout << "\x1b[H\x1b[2J";
  std::cout << "tensortrace top  " << TerminalSafe(s.path) << "  "
            << (s.recording ? "recording" : "recording ended");
  char ago[64] = "";
  if (s.recording && s.now_ns > s.last_ns)
    std::snprintf(ago, sizeof ago, " (last event %.1f s ago)",
                  static_cast<double>(s.now_ns - s.last_ns) / 1e9);
  std::cout << ago << "\n";
  std::cout << "events " << s.events << "  dropped " << s.dropped << "  memory in use "
            << (s.has_memory ? Bytes(s.memory_bytes) : "-") << "  trace span "
            << Ms(static_cast<double>(s.last_ns - s.first_ns)) << "\n";
  PrintSteps(s.steps, s.window_s);
  if (s.window_first_step >= 0)
    PrintOps("top ops, steps " + std::to_string(s.window_first_step) + "-" +
                 std::to_string(s.window_last_step),
             s.window_ops);
  PrintOps("top ops, whole trace", s.top_ops);
  PrintProcesses(s);
  for (const auto& n : s.notes) std::cout << "note: " << n << "\n";
  if (s.problems)
    std::cout << "note: " << s.problems
              << " damaged part(s) skipped; the first: " << TerminalSafe(s.first_problem) << "\n";
  std::cout << std::flush;
}

void Print(const TopArgs& t, const analysis::LiveSnapshot& s, bool clear) {
  if (t.out.csv) {
    nlohmann::json j = SnapshotJson(s);
    if (t.out.section == "window_ops")
      PrintCsvRows(j["window"]["ops"], {"name"});
    else
      PrintCsvRows(j[t.out.section], {"name", "pid"});
  } else if (t.out.json)
    std::cout << SnapshotJson(s).dump(t.once ? 2 : -1, ' ', false,
                                      nlohmann::json::error_handler_t::replace)
              << std::endl;
  else
    PrintTable(s, clear);
}

}  // namespace

int Top(const std::vector<std::string>& argv) {
  TopArgs t;
  if (!ParseTopArgs(argv, &t)) return 0;
  if (t.once) {
    Print(t, Snapshot(t), false);
    return 0;
  }
  bool clear = !t.out.json && !t.out.csv && isatty(STDOUT_FILENO);
  while (true) {
    std::string starting;
    for (const auto& d : DirList(t.dir, t.more))
      if (Starting(d)) starting = d;
    if (!starting.empty()) {
      std::cerr << "tensortrace top: waiting for the first process of " << TerminalSafe(starting)
                << "\n";
    } else {
      analysis::LiveSnapshot s = Snapshot(t);
      Print(t, s, clear);
      if (!s.recording) return 0;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(t.interval));
  }
}

}  // namespace tt::cli
