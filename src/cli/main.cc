// tensortrace: the command-line entry point.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/error.h"
#include "format/reader.h"

namespace {

constexpr int kDamagedStatus = 3;

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
    std::cerr << "tensortrace " << cmd << ": damaged: " << tt::cli::TerminalSafe(k.first.file)
              << ": " << tt::cli::TerminalSafe(k.what);
    if (k.count > 1)
      std::cerr << " (" << k.count << " times; the first at offset " << k.first.offset << ")";
    std::cerr << "\n";
  }
  if (allow || status != 0) return status;
  std::cerr << "tensortrace " << cmd << ": the trace is damaged (" << kinds.size()
            << " problem(s) above); exit status 3 (--allow-damaged: 0)\n";
  return kDamagedStatus;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << tt::cli::OverviewHelp();
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "tensortrace " << TT_VERSION << "\n";
    return 0;
  }
  std::string cmd = args[0];
  const tt::cli::Command* command = tt::cli::FindCommand(cmd);
  if (command == nullptr) {
    std::cerr << "tensortrace: unknown command '" << cmd << "' (see `tensortrace --help`)\n";
    return 2;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  bool reads = command->reads_traces;
  bool allow = reads && TakeAllowDamaged(&rest);
  try {
    int status = command->run(rest);
    return reads ? ReportDamage(cmd, status, allow) : status;
  } catch (const tt::Error& e) {
    std::string msg = e.what();
    std::string shown = tt::cli::TerminalSafe(msg, true);  // paths and names it quotes
    if (msg.rfind(cmd + ": ", 0) == 0)
      std::cerr << "tensortrace " << shown << "\n";
    else
      std::cerr << "tensortrace " << cmd << ": " << shown << "\n";
    if (reads) ReportDamage(cmd, 2, allow, msg);  // the damage behind the error, if any
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tensortrace " << cmd << ": " << e.what() << "\n";
    return 1;
  }
}
