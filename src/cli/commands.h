// The subcommands; each returns the process exit status.
#pragma once
#include <string>
#include <vector>

namespace tt::cli {

int Record(const std::vector<std::string>& args, const std::string& self_path);
int Info(const std::vector<std::string>& args);
int Stats(const std::vector<std::string>& args);
int Export(const std::vector<std::string>& args);
int Report(const std::vector<std::string>& args);

// Total drops of a process: its own summary when it wrote one, else the streams' counts.
struct ProcessSummary;
uint64_t Drops(const ProcessSummary& p);
std::string FormatDuration(uint64_t ns);

}  // namespace tt::cli
