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
int Memory(const std::vector<std::string>& args);
int Comm(const std::vector<std::string>& args);
int Diff(const std::vector<std::string>& args);
int Replay(const std::vector<std::string>& args);
int Optimize(const std::vector<std::string>& args);
int Capture(const std::vector<std::string>& args);
int Top(const std::vector<std::string>& args);

std::string FormatDuration(uint64_t ns);

}  // namespace tt::cli
