// The subcommands, one table line each (commands.cc): a new command is one file with its entry
// point and one line there; main.cc dispatches from the table and writes the overview help
// from it. Each entry point returns the process exit status.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tt::cli {

using CommandArgs = std::vector<std::string>;

struct Command {
  const char* name;
  const char* synopsis;  // what follows the name in the overview ("DIR [--view V]")
  const char* summary;   // the overview's text; '\n' starts a continuation line
  bool reads_traces;     // takes --allow-damaged and reports damage (not record, capture)
  int (*run)(const CommandArgs& args);
};

// Every command, in the order the overview lists them.
const std::vector<Command>& Commands();
// The command called `name`, or null.
const Command* FindCommand(const std::string& name);
// `tensortrace --help`: usage, the commands from the table, exit statuses.
std::string OverviewHelp();

int Record(const CommandArgs& args);
int Info(const CommandArgs& args);
int Stats(const CommandArgs& args);
int Export(const CommandArgs& args);
int Report(const CommandArgs& args);
int Memory(const CommandArgs& args);
int Comm(const CommandArgs& args);
int Sql(const CommandArgs& args);
int Diff(const CommandArgs& args);
int Replay(const CommandArgs& args);
int Optimize(const CommandArgs& args);
int Capture(const CommandArgs& args);
int Repair(const CommandArgs& args);
int Top(const CommandArgs& args);

std::string FormatDuration(uint64_t ns);

}  // namespace tt::cli
