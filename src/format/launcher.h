// A process's place in a distributed job, from the environment its launcher gave it: torchrun
// and torch.distributed (RANK, LOCAL_RANK, WORLD_SIZE), Open MPI (OMPI_COMM_WORLD_*), MPICH and
// Hydra (PMI_*), Slurm (SLURM_PROCID, SLURM_LOCALID, SLURM_NTASKS) and TensorFlow's TF_CONFIG
// (the task's index among the workers). Read by the runtime at process start, written in the
// trace metadata (rank, local_rank, world_size, rank_source); and the job itself, as the
// launcher names it (JobFromEnvironment, the metadata's `job`), so that the recordings of one
// job are told from another's.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace tt {

struct LauncherRank {
  int64_t rank = -1, local_rank = -1, world_size = -1;  // -1: not given
  std::string source;  // the variable the rank came from ("RANK", "TF_CONFIG", ...); "" for none
};

// `getenv` returns a variable's value or nullptr (std::getenv in the runtime).
LauncherRank RankFromEnvironment(const std::function<const char*(const char*)>& getenv);

// The job the process belongs to, as its launcher names it: "key=value" parts joined by spaces,
// each where its variables are set (empty values count as unset), in this order:
//   torchrun=TORCHELASTIC_RUN_ID (left out when "none", torchrun's default --rdzv-id)
//   rendezvous=MASTER_ADDR:MASTER_PORT (torch.distributed's env:// store)
//   mpi=PMIX_NAMESPACE, else OMPI_MCA_ess_base_jobid, else OMPI_MCA_orte_ess_jobid
//   slurm=SLURM_JOB_ID[.SLURM_STEP_ID]
//   tf_cluster=TF_CONFIG's cluster, white space taken out (a hash, #<16 hex digits>, where
//     longer than 160 characters)
//   jax=JAX_COORDINATOR_ADDRESS
// White space and '=' in a value become '_'. "" when no launcher named the job.
std::string JobFromEnvironment(const std::function<const char*(const char*)>& getenv);

// The parts of a job identity as JobFromEnvironment writes it: key -> value.
std::map<std::string, std::string> JobParts(const std::string& job);

// Whether two job identities name different jobs: a key both name has a different value in
// each. Identities with no key in common (one of them "", say) cannot be told apart: false.
bool DifferentJobs(const std::string& a, const std::string& b);

}  // namespace tt
