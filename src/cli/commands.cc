// The command table: one line per subcommand (name, synopsis, overview text, entry point).
#include "cli/commands.h"

namespace tt::cli {

const std::vector<Command>& Commands() {
  static const std::vector<Command> table = {
      {"record", "-- CMD [ARGS...]", "run CMD and trace it and every process it starts", false,
       Record},
      {"info", "DIR", "what a trace holds: processes, threads, events, drops, clocks", true, Info},
      {"stats", "DIR [--view V]",
       "tfprof-style views: op, name, scope, kernel, api, memcpy,\nprimitive, step, thread, "
       "runtime",
       true, Stats},
      {"export", "DIR --format F -o PATH",
       "the trace as a Perfetto trace, Chrome JSON (Perfetto UI,\nchrome://tracing), CSV, or an "
       "XSpace for TensorBoard",
       true, Export},
      {"report", "DIR -o PATH",
       "a self-contained HTML report: summary, step time, top ops and\nkernels, memory over "
       "time, copies, a timeline, findings",
       true, Report},
      {"memory", "DIR",
       "per allocator: bytes in use over time, the peak and what was\nlive at it, bytes by op, "
       "chunks by bin, fragmentation",
       true, Memory},
      {"comm", "DIR...",
       "collectives matched across ranks: per collective and rank, each\ninstance's skew, "
       "waits, straggler and bus bandwidth",
       true, Comm},
      {"sql", "DIR... \"SELECT ...\"",
       "SQL (DuckDB) over the job's tables: slices, ops, steps, kernels,\ncollectives, "
       "allocations, "
       "processes, threads, clocks",
       true, Sql},
      {"diff", "A B",
       "what changed between two recordings: step time, each op type's\ncontribution to its "
       "difference, what is on one side only, memory",
       true, Diff},
      {"replay", "DIR... [--what-if SPEC]",
       "each step replayed from its dependency graph: predicted\nagainst measured step time, "
       "the critical path, utilisation, and\nwhat a change (an op faster or gone, input, "
       "communication) gains",
       true, Replay},
      {"optimize", "DIR...",
       "the settings replay predicts best (gradient bucket size, fusing\nelement-wise ops), "
       "each with its predicted gain",
       true, Optimize},
      {"capture", "DIR|PID", "a capture window in a running `record --on-demand`", false, Capture},
      {"repair", "DIR", "close a recording whose record was killed, as record would have", false,
       Repair},
      {"top", "DIR",
       "the live view of a recording, refreshed every second: steps/s,\nstep time and its "
       "parts, top ops, memory, drops, per process",
       true, Top},
  };
  return table;
}

const Command* FindCommand(const std::string& name) {
  for (const auto& c : Commands())
    if (name == c.name) return &c;
  return nullptr;
}

namespace {

constexpr size_t kTextColumn = 28;  // where the overview's text starts

// "  NAME SYNOPSIS   summary", continuation lines indented to the text's column; a long
// synopsis keeps three spaces before the text.
std::string OverviewLine(const Command& c) {
  std::string head = std::string("  ") + c.name + " " + c.synopsis;
  head += head.size() + 1 < kTextColumn ? std::string(kTextColumn - head.size(), ' ') : "   ";
  std::string out = head;
  for (const char* p = c.summary; *p; ++p) {
    out += *p;
    if (*p == '\n') out += std::string(kTextColumn, ' ');
  }
  return out + "\n";
}

}  // namespace

std::string OverviewHelp() {
  std::string h =
      "usage: tensortrace COMMAND [OPTIONS]\n\nRecords deep-learning jobs with no change to "
      "their code, and explains where time and memory went.\n\ncommands:\n";
  for (const auto& c : Commands()) h += OverviewLine(c);
  return h +
         "\n`tensortrace COMMAND --help` describes each command. `tensortrace --version` prints "
         "the version.\n\nexit status: 0 done; 1 internal error; 2 bad input or options; 3 the "
         "trace is damaged (the\nproblems are printed on stderr, one line per kind; "
         "`--allow-damaged` on any command that reads\na trace turns this into 0 with the same "
         "warning lines).\n";
}

}  // namespace tt::cli
