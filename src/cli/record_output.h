// record -o's pattern: one recording per rank under a launcher (mpirun, torchrun, srun, a
// TF_CONFIG script) that starts `tensortrace record` once per rank, e.g. -o 'out/%h-%r'.
#pragma once
#include <cstdint>
#include <string>

#include "format/launcher.h"

namespace tt::cli {

// Expands %h (the host's name), %r (the launcher's rank: RANK, OMPI_COMM_WORLD_RANK, PMI_RANK,
// SLURM_PROCID or TF_CONFIG's task index), %p (`pid`) and %% in `pattern`. Throws tt::Error for
// another %-sequence, or %r where no launcher gave a rank.
std::string ExpandOutputPattern(const std::string& pattern, const std::string& host,
                                const LauncherRank& rank, int64_t pid);

}  // namespace tt::cli
