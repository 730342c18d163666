// A process's rank from its launcher's environment (src/format/launcher.h): each launcher's
// variables, their precedence, TF_CONFIG with and without a chief, and values that are no rank.
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

}  // namespace
}  // namespace tt
