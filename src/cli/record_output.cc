#include "cli/record_output.h"

#include "core/error.h"

namespace tt::cli {

std::string ExpandOutputPattern(const std::string& pattern, const std::string& host,
                                const LauncherRank& rank, int64_t pid) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out += pattern[i];
      continue;
    }
    char c = i + 1 < pattern.size() ? pattern[++i] : '\0';
    switch (c) {
      case '%':
        out += '%';
        break;
      case 'h':
        out += host.empty() ? "unknown-host" : host;
        break;
      case 'p':
        out += std::to_string(pid);
        break;
      case 'r':
        if (rank.rank < 0)
          throw Error("record: -o " + pattern +
                      ": %r needs a rank from a launcher (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, "
                      "SLURM_PROCID or TF_CONFIG), and none is set");
        out += std::to_string(rank.rank);
        break;
      default:
        throw Error("record: -o " + pattern + ": unknown %-sequence '%" +
                    (c ? std::string(1, c) : std::string()) + "' (%h host, %r rank, %p pid, %% %)");
    }
  }
  return out;
}

}  // namespace tt::cli
