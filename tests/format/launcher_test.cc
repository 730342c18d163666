// A process's rank from its launcher's environment (src/format/launcher.h): each launcher's
// variables, their precedence, TF_CONFIG with and without a chief, and values that are no rank;
// the job as each launcher names it (JobFromEnvironment), and when two names differ.
#include "format/launcher.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace tt {
namespace {

LauncherRank From(const std::map<std::string, std::string>& env) {
  return RankFromEnvironment([&](const char* k) -> const char* {
    auto it = env.find(k);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

void ExpectRank(const LauncherRank& r, int64_t rank, int64_t local, int64_t size,
                const std::string& source) {
  EXPECT_EQ(r.rank, rank);
  EXPECT_EQ(r.local_rank, local);
  EXPECT_EQ(r.world_size, size);
  EXPECT_EQ(r.source, source);
}

TEST(Launcher, EachLaunchersVariables) {
  ExpectRank(From({{"RANK", "3"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "8"}}), 3, 1, 8, "RANK");
  ExpectRank(From({{"OMPI_COMM_WORLD_RANK", "2"},
                   {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                   {"OMPI_COMM_WORLD_SIZE", "4"}}),
             2, 0, 4, "OMPI_COMM_WORLD_RANK");
  ExpectRank(From({{"PMI_RANK", "5"}, {"PMI_SIZE", "6"}}), 5, -1, 6, "PMI_RANK");
  ExpectRank(From({{"SLURM_PROCID", "7"}, {"SLURM_LOCALID", "3"}, {"SLURM_NTASKS", "16"}}), 7, 3,
             16, "SLURM_PROCID");
  ExpectRank(From({}), -1, -1, -1, "");
}

TEST(Launcher, TorchrunsVariablesWinOverTheSchedulersUnderneath) {
  ExpectRank(From({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"SLURM_PROCID", "0"}}), 1, -1, 2, "RANK");
}

TEST(Launcher, ValuesThatAreNoRankAreIgnored) {
  ExpectRank(From({{"RANK", "-1"}, {"SLURM_PROCID", "4"}}), 4, -1, -1, "SLURM_PROCID");
  ExpectRank(From({{"RANK", "x"}, {"WORLD_SIZE", "2"}}), -1, -1, -1, "");
  ExpectRank(From({{"RANK", "2"}, {"WORLD_SIZE", "two"}}), 2, -1, -1, "RANK");
}

TEST(Launcher, TfConfigTaskIndexAndWorkers) {
  ExpectRank(From({{"TF_CONFIG", R"({"cluster": {"worker": ["127.0.0.1:2001", "127.0.0.1:2002"]},)"
                                 R"( "task": {"type": "worker", "index": 1}})"}}),
             1, -1, 2, "TF_CONFIG");
  // With a chief, the chief is rank 0 and worker k is rank k + 1.
  std::string cluster =
      R"({"cluster": {"chief": ["h:1"], "worker": ["h:2", "h:3", "h:4"]}, "task": )";
  ExpectRank(From({{"TF_CONFIG", cluster + R"({"type": "worker", "index": 2}})"}}), 3, -1, 4,
             "TF_CONFIG");
  ExpectRank(From({{"TF_CONFIG", cluster + R"({"type": "chief", "index": 0}})"}}), 0, -1, 4,
             "TF_CONFIG");
  ExpectRank(From({{"TF_CONFIG", R"({"cluster": {}})"}}), -1, -1, -1, "");
}

std::string Job(const std::map<std::string, std::string>& env) {
  return JobFromEnvironment([&](const char* k) -> const char* {
    auto it = env.find(k);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(LauncherJob, EachLaunchersIdentity) {
  EXPECT_EQ(Job({}), "");
  EXPECT_EQ(Job({{"RANK", "0"}, {"WORLD_SIZE", "2"}}), "") << "a rank alone names no job";
  EXPECT_EQ(
      Job({{"TORCHELASTIC_RUN_ID", "3f2a"}, {"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29500"}}),
      "torchrun=3f2a rendezvous=10.0.0.1:29500");
  // torchrun's default --rdzv-id names no run; a port without its address no rendezvous.
  EXPECT_EQ(Job({{"TORCHELASTIC_RUN_ID", "none"}, {"MASTER_PORT", "29500"}}), "");
  EXPECT_EQ(Job({{"PMIX_NAMESPACE", "prterun-h-97102@1"}, {"OMPI_MCA_ess_base_jobid", "7"}}),
            "mpi=prterun-h-97102@1");
  EXPECT_EQ(Job({{"OMPI_MCA_ess_base_jobid", "3826286593"}}), "mpi=3826286593");
  EXPECT_EQ(Job({{"OMPI_MCA_orte_ess_jobid", "12"}}), "mpi=12");
  EXPECT_EQ(Job({{"SLURM_JOB_ID", "4242"}, {"SLURM_STEP_ID", "1"}}), "slurm=4242.1");
  EXPECT_EQ(Job({{"SLURM_JOB_ID", "4242"}}), "slurm=4242");
  EXPECT_EQ(Job({{"JAX_COORDINATOR_ADDRESS", "10.0.0.1:1234"}}), "jax=10.0.0.1:1234");
  EXPECT_EQ(Job({{"SLURM_JOB_ID", ""}, {"MASTER_ADDR", ""}, {"MASTER_PORT", "1"}}), "")
      << "empty values are unset";
  EXPECT_EQ(Job({{"TORCHELASTIC_RUN_ID", "a b=c"}}), "torchrun=a_b_c");
}

TEST(LauncherJob, TfConfigsClusterIsTheJobWhateverTheTask) {
  std::string c0 = R"({"cluster": {"worker": ["h:1", "h:2"]}, "task": {"type": "worker", )"
                   R"("index": 0}})";
  std::string c1 = R"({"task": {"type": "worker", "index": 1},)"
                   R"( "cluster": {"worker": ["h:1",  "h:2"]}})";
  EXPECT_EQ(Job({{"TF_CONFIG", c0}}), R"(tf_cluster={"worker":["h:1","h:2"]})");
  EXPECT_EQ(Job({{"TF_CONFIG", c0}}), Job({{"TF_CONFIG", c1}}));
  std::string big = R"({"cluster": {"worker": [)";
  for (int i = 0; i < 20; ++i)
    big += (i ? ", \"" : "\"") + std::string("host-") + std::to_string(i) + ":2222\"";
  big += "]}}";
  std::string hashed = Job({{"TF_CONFIG", big}});
  EXPECT_EQ(hashed.rfind("tf_cluster=#", 0), 0u) << hashed;
  EXPECT_EQ(hashed.size(), std::string("tf_cluster=#").size() + 16);
  big.replace(big.find("host-7"), 6, "host-X");
  EXPECT_NE(Job({{"TF_CONFIG", big}}), hashed);
}

TEST(LauncherJob, JobsDifferWhereAKeyBothNameDiffers) {
  EXPECT_EQ(JobParts("torchrun=a rendezvous=h:1"),
            (std::map<std::string, std::string>{{"torchrun", "a"}, {"rendezvous", "h:1"}}));
  EXPECT_TRUE(DifferentJobs("rendezvous=h:1", "rendezvous=h:2"));
  EXPECT_TRUE(DifferentJobs("slurm=5.0 rendezvous=h:1", "slurm=5.1 rendezvous=h:1"));
  EXPECT_FALSE(DifferentJobs("rendezvous=h:1", "rendezvous=h:1"));
  EXPECT_FALSE(DifferentJobs("slurm=5.0", "rendezvous=h:1")) << "nothing in common: no telling";
  EXPECT_FALSE(DifferentJobs("slurm=5.0 rendezvous=h:1", "rendezvous=h:1"));
  EXPECT_FALSE(DifferentJobs("", "rendezvous=h:1"));
}

}  // namespace
}  // namespace tt
