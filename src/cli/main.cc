// tensortrace: the command-line entry point.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/error.h"

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
)";

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
  try {
    if (cmd == "record") return tt::cli::Record(rest, argv[0]);
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
  } catch (const tt::Error& e) {
    std::string msg = e.what();
    if (msg.rfind(cmd + ": ", 0) == 0)
      std::cerr << "tensortrace " << msg << "\n";
    else
      std::cerr << "tensortrace " << cmd << ": " << msg << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tensortrace " << cmd << ": " << e.what() << "\n";
    return 1;
  }
}
