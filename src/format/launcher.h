// A process's place in a distributed job, from the environment its launcher gave it: torchrun
// and torch.distributed (RANK, LOCAL_RANK, WORLD_SIZE), Open MPI (OMPI_COMM_WORLD_*), MPICH and
// Hydra (PMI_*), Slurm (SLURM_PROCID, SLURM_LOCALID, SLURM_NTASKS) and TensorFlow's TF_CONFIG
// (the task's index among the workers). Read by the runtime at process start, written in the
// trace metadata (rank, local_rank, world_size, rank_source).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace tt {

struct LauncherRank {
  int64_t rank = -1, local_rank = -1, world_size = -1;  // -1: not given
  std::string source;  // the variable the rank came from ("RANK", "TF_CONFIG", ...); "" for none
};

// `getenv` returns a variable's value or nullptr (std::getenv in the runtime).
LauncherRank RankFromEnvironment(const std::function<const char*(const char*)>& getenv);

}  // namespace tt
