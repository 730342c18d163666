// tensortrace: the command-line entry point.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/error.h"
#include "format/reader.h"

namespace {

const char kHelp[] = R"(usage: tensortrace COMMAND [OPTIONS]

Records deep-learning jobs with no change to their code, and explains where time and memory went.

commands:
  record -- CMD [ARGS...]   run CMD and trace it and every process it starts
  info DIR                  what a trace holds: processes, threads, events, drops, clocks
  stats DIR [--view V]      tfprof-style views: op, name, scope, kernel, api, memcpy,
                            primitive, step, thread, runtime
  export DIR --format F -o PATH   the trace as a Perfetto trace, Chrome JSON (Perfetto UI,
                            chrome://tracing), CSV, or an XSpace for TensorBoard
  report DIR -o PATH        a self-contained HTML report: summary, step time, top ops and
                            kernels, memory over time, copies, a timeline, findings
  memory DIR                per allocator: bytes in use over time, the peak and what was
                            live at it, bytes by op, chunks by bin, fragmentation
  comm DIR...               collectives matched across ranks: per collective and rank, each
                            instance's skew, waits, straggler and bus bandwidth
  diff A B                  what changed between two recordings: step time, each op type's
                            contribution to its difference, what is on one side only, memory
  replay DIR... [--what-if SPEC]   each step replayed from its dependency graph: predicted
                            against measured step time, the critical path, utilisation, and
                            what a change (an op faster or gone, input, communication) gains
  optimize DIR...           the settings replay predicts best (gradient bucket size, fusing
                            element-wise ops), each with its predicted gain
  capture DIR|PID           a capture window in a running `record --on-demand`
  top DIR                   the live view of a recording, refreshed every second: steps/s,
                            step time and its parts, top ops, memory, drops, per process

`tensortrace COMMAND --help` describes each command. `tensortrace --version` prints the version.

exit status: 0 done; 1 internal error; 2 bad input or options; 3 the trace is damaged (the
problems are printed on stderr, one line per kind; `--allow-damaged` on any command that reads
a trace turns this into 0 with the same warning lines).
)";

constexpr int kDamagedStatus = 3;

// The commands that read traces (not record, which writes one, nor capture).
bool ReadsTraces(const std::string& cmd) { return cmd != "record" && cmd != "capture"; }

// Removes `--allow-damaged` from `args` (before a `--`); true if it was there.
bool TakeAllowDamaged(std::vector<std::string>* args) {
  bool found = false;
  for (size_t i = 0; i < args->size() && (*args)[i] != "--";) {
    if ((*args)[i] == "--allow-damaged") {
      args->erase(args->begin() + static_cast<long>(i));
      found = true;
    } else {
      ++i;
    }
  }
  return found;
}

// One line per kind of damage the readers met; the command's status, or the damage status.
// `said`: an error line already printed; the damage it names is not repeated.
int ReportDamage(const std::string& cmd, int status, bool allow, const std::string& said = "") {
  std::vector<tt::DamageKind> kinds = tt::NotedDamage();
  if (kinds.empty()) return status;
  for (const auto& k : kinds) {
    if (!said.empty() && said.find(k.first.file) != std::string::npos) continue;
    std::cerr << "tensortrace " << cmd << ": damaged: " << k.first.file << ": " << k.what;
    if (k.count > 1)
      std::cerr << " (" << k.count << " times; the first at offset " << k.first.offset << ")";
    std::cerr << "\n";
  }
  if (allow || status != 0) return status;
  std::cerr << "tensortrace " << cmd << ": the trace is damaged (" << kinds.size()
            << " problem(s) above); exit status 3 (--allow-damaged: 0)\n";
  return kDamagedStatus;
}

int Dispatch(const std::string& cmd, const std::vector<std::string>& rest, const char* argv0) {
  if (cmd == "record") return tt::cli::Record(rest, argv0);
  if (cmd == "info") return tt::cli::Info(rest);
  if (cmd == "stats") return tt::cli::Stats(rest);
  if (cmd == "export") return tt::cli::Export(rest);
  if (cmd == "report") return tt::cli::Report(rest);
  if (cmd == "memory") return tt::cli::Memory(rest);
  if (cmd == "comm") return tt::cli::Comm(rest);
  if (cmd == "diff") return tt::cli::Diff(rest);
  if (cmd == "replay") return tt::cli::Replay(rest);
  if (cmd == "optimize") return tt::cli::Optimize(rest);
  if (cmd == "capture") return tt::cli::Capture(rest);
  if (cmd == "top") return tt::cli::Top(rest);
  std::cerr << "tensortrace: unknown command '" << cmd << "' (see `tensortrace --help`)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << kHelp;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "tensortrace " << TT_VERSION << "\n";
    return 0;
  }
  std::string cmd = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  bool reads = ReadsTraces(cmd);
  bool allow = reads && TakeAllowDamaged(&rest);
  try {
    int status = Dispatch(cmd, rest, argv[0]);
    return reads ? ReportDamage(cmd, status, allow) : status;
  } catch (const tt::Error& e) {
    std::string msg = e.what();
    if (msg.rfind(cmd + ": ", 0) == 0)
      std::cerr << "tensortrace " << msg << "\n";
    else
      std::cerr << "tensortrace " << cmd << ": " << msg << "\n";
    if (reads) ReportDamage(cmd, 2, allow, msg);  // the damage behind the error, if any
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tensortrace " << cmd << ": " << e.what() << "\n";
    return 1;
  }
}
