// The job's identity (issue 39, item 2): each process records the job its launcher named
// (format/launcher.h, the metadata's `job`) with its rank; several recordings are read as one
// job only when they are of one run of one job (model/job/load.h OpenJob), else the command
// says so in one line and exits 2; a recording given twice (a link, another spelling, a copy) is
// refused; the ranks of the world no recording holds are named. A two-rank gloo job
// (torch_collectives.py, one recording per rank) and launched `true`s, which cost nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "comm_test_util.h"
#include "model/job/load.h"
#include "test_json.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::RunResult;
using test::TempDir;

// `env` with every variable a launcher names its job or rank by set, empty where `env` does not
// set it (empty is unset to the runtime), so that the test's own environment adds nothing.
std::map<std::string, std::string> Launched(std::map<std::string, std::string> env) {
  for (const char* k : {"TORCHELASTIC_RUN_ID", "MASTER_ADDR", "MASTER_PORT", "PMIX_NAMESPACE",
                        "OMPI_MCA_ess_base_jobid", "OMPI_MCA_orte_ess_jobid", "SLURM_JOB_ID",
                        "SLURM_STEP_ID", "TF_CONFIG", "JAX_COORDINATOR_ADDRESS", "RANK",
                        "WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"})
    env.emplace(k, "");
  return env;
}

// Records `true` into `dir` under this launcher environment.
void RecordTrue(const std::string& dir, const std::map<std::string, std::string>& env) {
  RunResult r = RunCmd({TT_CLI, "record", "--quiet", "-o", dir, "--", "true"}, Launched(env));
  ASSERT_EQ(r.status, 0) << r.err;
}

// A refusal: exit 2 and one line, naming each of `names`.
void ExpectRefused(const std::vector<std::string>& argv, const std::vector<std::string>& names) {
  RunResult r = RunCmd(argv);
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
  for (const auto& n : names) EXPECT_NE(r.err.find(n), std::string::npos) << n << ": " << r.err;
}

std::map<std::string, std::string> Rendezvous(const char* port, const char* rank,
                                              const char* world) {
  return {
      {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}, {"RANK", rank}, {"WORLD_SIZE", world}};
}

TEST(JobIdentity, InfoShowsTheJobItsLauncherNamed) {
  TempDir d;
  auto env = Rendezvous("29500", "1", "2");
  env["SLURM_JOB_ID"] = "4242";
  env["SLURM_STEP_ID"] = "3";
  RecordTrue(d / "t", env);
  RecordTrue(d / "plain", {});
  json j = test::RunJson({TT_CLI, "info", d / "t", "--json"});
  ASSERT_EQ(j["processes"].size(), 1u);
  EXPECT_EQ(j["processes"][0]["job"], "rendezvous=127.0.0.1:29500 slurm=4242.3");
  EXPECT_EQ(j["processes"][0]["rank"]["world_size"], 2);
  RunResult text = RunCmd({TT_CLI, "info", d / "t"});
  EXPECT_NE(text.out.find("  job        rendezvous=127.0.0.1:29500 slurm=4242.3\n"),
            std::string::npos)
      << text.out;
  // No launcher: no job, in the JSON (null) or the text.
  EXPECT_TRUE(
      test::RunJson({TT_CLI, "info", d / "plain", "--json"})["processes"][0]["job"].is_null());
  EXPECT_EQ(RunCmd({TT_CLI, "info", d / "plain"}).out.find("  job "), std::string::npos);
}

// Ranks started out of rank order (2, 0, 1) under one launcher: info lists them in rank order,
// in the JSON as in the text, and the launcher, which has no rank, after them.
TEST(JobIdentity, InfoListsRanksInRankOrderThenTheProcessesWithout) {
  TempDir d;
  std::string ranks;
  for (const char* k : {"2", "0", "1"})
    ranks += std::string("RANK=") + k + " WORLD_SIZE=3 sh -c 'true; true'; ";
  RunResult r =
      RunCmd({TT_CLI, "record", "--quiet", "-o", d / "t", "--", "sh", "-c", ranks}, Launched({}));
  ASSERT_EQ(r.status, 0) << r.err;
  json j = test::RunJson({TT_CLI, "info", d / "t", "--json"});
  ASSERT_EQ(j["processes"].size(), 4u) << j.dump().substr(0, 2000);
  std::vector<int64_t> pids;
  for (int k = 0; k < 3; ++k) {
    const json& p = j["processes"][k];
    EXPECT_EQ(p["rank"]["rank"], k) << p["rank"];
    pids.push_back(p["pid"].get<int64_t>());
  }
  EXPECT_TRUE(j["processes"][3]["rank"].is_null());
  EXPECT_GT(pids[0], pids[2]);  // recorded (and numbered) 2, 0, 1
  std::string text = RunCmd({TT_CLI, "info", d / "t"}).out;
  size_t at = 0;
  for (int64_t pid : pids) {
    at = text.find("\nprocess " + std::to_string(pid) + " ", at);
    EXPECT_NE(at, std::string::npos) << pid << ": " << text;
  }
  EXPECT_NE(text.find("\nprocess " + j["processes"][3]["pid"].dump() + " ", at), std::string::npos)
      << text;
}

// Launchers that named different jobs, world sizes that differ, and two runs of one rendezvous
// address (the first ended before the second began): each refused in one line naming both.
TEST(JobIdentity, RecordingsOfDifferentJobsOrRunsAreRefused) {
  TempDir d;
  RecordTrue(d / "a0", Rendezvous("29501", "0", "2"));
  RecordTrue(d / "b1", Rendezvous("29502", "1", "2"));
  ExpectRefused({TT_CLI, "stats", d / "a0", d / "b1"},
                {d / "a0", d / "b1", "rendezvous=127.0.0.1:29501", "rendezvous=127.0.0.1:29502",
                 "another job"});
  RecordTrue(d / "s1", {{"SLURM_JOB_ID", "7"}, {"SLURM_STEP_ID", "1"}, {"SLURM_PROCID", "1"}});
  RecordTrue(d / "s0", {{"SLURM_JOB_ID", "7"}, {"SLURM_STEP_ID", "0"}, {"SLURM_PROCID", "0"}});
  ExpectRefused({TT_CLI, "memory", d / "s0", d / "s1"}, {"slurm=7.0", "slurm=7.1"});
  RecordTrue(d / "w1", Rendezvous("29501", "1", "4"));
  ExpectRefused({TT_CLI, "stats", d / "a0", d / "w1"}, {"rank 1 of 4", "rank 0 of 2"});
  RecordTrue(d / "a1", Rendezvous("29501", "1", "2"));  // after a0 ended: another run
  ExpectRefused({TT_CLI, "stats", d / "a0", d / "a1"}, {d / "a0", d / "a1", "another run"});
  ExpectRefused({TT_CLI, "replay", d / "a1", d / "a0"}, {"another run"});
}

// Two ranks of a world of 4 that ran at once (rank 0 waits for rank 2's process, which waits
// for rank 0's to have begun: a rank 2 that ended before rank 0 began is another run): read as
// one job, with a note naming ranks 1 and 3; one recording alone says nothing of the others.
TEST(JobIdentity, TheRanksNoRecordingHoldsAreNamed) {
  TempDir d;
  std::string done = d / "done", begun = d / "begun";
  std::string script = "env " + test::ShellQuote("RANK=0") + " " + TT_CLI + " record --quiet -o " +
                       test::ShellQuote(d / "r0") + " -- sh -c 'touch " + begun +
                       "; while [ ! -e " + done + " ]; do sleep 0.02; done' &\n" +
                       "env RANK=2 " + TT_CLI + " record --quiet -o " + test::ShellQuote(d / "r2") +
                       " -- sh -c 'while [ ! -e " + begun + " ]; do sleep 0.02; done; touch " +
                       done + "' || exit 1\nwait $!\n";
  RunResult r = RunCmd({"sh", "-c", script}, Launched(Rendezvous("29503", "0", "4")), 60);
  ASSERT_EQ(r.status, 0) << r.err;
  RunResult both = RunCmd({TT_CLI, "stats", d / "r0", d / "r2", "--json"});
  EXPECT_EQ(both.status, 0) << both.err;
  EXPECT_NE(both.err.find("note: ranks 1, 3 of the job's 4"), std::string::npos) << both.err;
  RunResult one = RunCmd({TT_CLI, "stats", d / "r0", "--json"});
  EXPECT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.err, "");
}

// Programs started with no launcher, one after the other, are read together as before.
TEST(JobIdentity, UnlaunchedRecordingsAreOneJobAsBefore) {
  TempDir d;
  RecordTrue(d / "n0", {});
  RecordTrue(d / "n1", {});
  RunResult r = RunCmd({TT_CLI, "stats", d / "n0", d / "n1", "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// A model of processes (recording, rank, world size), as several recordings load.
model::TraceModel Ranked(const std::vector<std::tuple<std::string, int64_t, int64_t>>& procs) {
  model::TraceModel m;
  for (const auto& [recording, rank, world] : procs) {
    model::Process p;
    p.recording = recording;
    p.meta.rank = rank;
    p.meta.world_size = world;
    m.processes.push_back(p);
  }
  return m;
}

TEST(JobIdentity, MissingRanksOnlyWhereEveryRecordingSaysItsRankAndWorld) {
  using V = std::vector<int64_t>;
  EXPECT_EQ(model::MissingRanks(Ranked({{"a", 0, 4}, {"b", 2, 4}, {"b", -1, -1}})), (V{1, 3}));
  EXPECT_EQ(model::MissingRanksNote(Ranked({{"a", 0, 4}, {"b", 2, 4}})),
            "ranks 1, 3 of the job's 4 (its launcher's world size) are in none of the "
            "recordings given");
  EXPECT_EQ(model::MissingRanksNote(Ranked({{"a", 0, 3}, {"b", 2, 3}})),
            "rank 1 of the job's 3 (its launcher's world size) is in none of the recordings "
            "given");
  EXPECT_EQ(model::MissingRanks(Ranked({{"a", 0, 2}, {"b", 1, 2}})), V{});    // all there
  EXPECT_EQ(model::MissingRanks(Ranked({{"a", 0, 4}})), V{});                 // one recording alone
  EXPECT_EQ(model::MissingRanks(Ranked({{"a", 0, 4}, {"b", -1, -1}})), V{});  // b has no rank
  EXPECT_EQ(model::MissingRanks(Ranked({{"a", 0, 4}, {"b", 1, 8}})), V{});    // two worlds
  EXPECT_EQ(model::MissingRanksNote(Ranked({{"a", 0, 4}, {"b", 1, -1}})), "");
}

// Runs of the two-rank gloo job (torch_collectives.py) on each of `ports`, one recording per
// rank, into dir/p<port>-r<rank>: false where no network namespace can be made.
bool RecordGlooJobs(const TempDir& dir, const std::vector<std::string>& ports) {
  for (const auto& port : ports) {
    std::vector<std::string> traces;
    std::vector<std::map<std::string, std::string>> env;
    for (const char* rank : {"0", "1"}) {
      traces.push_back(dir / ("p" + port + "-r" + rank));
      auto e = Launched(Rendezvous(port.c_str(), rank, "2"));
      e["LOCAL_RANK"] = rank;
      env.push_back(e);
    }
    RunResult r;
    std::string logs = dir / ("logs-" + port);
    std::filesystem::create_directory(logs);
    if (!test::RecordEachRank(traces, "torch_collectives.py", env, logs, &r)) return false;
    EXPECT_EQ(r.status, 0) << r.err;
  }
  return true;
}

// Two gloo jobs (one recording per rank; ctest runs each test alone, so one test makes them
// once): the two ranks of one are one job, with no note; a rank of each together is refused
// naming both rendezvous; one recording twice, as itself, a link, another spelling of its path
// or a copy, is refused.
TEST(JobIdentity, GlooJobsOneRunIsOneJobTwoJobsOrOneRecordingTwiceAreRefused) {
  REQUIRE_MODULE("torch");
  TempDir d;
  if (!RecordGlooJobs(d, {"29561", "29562"})) GTEST_SKIP() << "cannot unshare -n";
  ASSERT_FALSE(::testing::Test::HasFailure());
  std::string a0 = d / "p29561-r0", a1 = d / "p29561-r1", b1 = d / "p29562-r1";
  for (const char* cmd : {"comm", "stats"}) {
    RunResult one = RunCmd({TT_CLI, cmd, a0, a1, "--json"});
    EXPECT_EQ(one.status, 0) << one.err;
    EXPECT_EQ(one.err.find("note:"), std::string::npos) << one.err;  // no rank is missing
  }
  json info = test::RunJson({TT_CLI, "info", a1, "--json"});
  bool found = false;
  for (const auto& p : info["processes"])
    found = found || (p["job"] == "rendezvous=127.0.0.1:29561" && p["rank"]["rank"] == 1);
  EXPECT_TRUE(found) << info["processes"].dump();

  std::vector<std::string> names = {a0, b1, "rendezvous=127.0.0.1:29561",
                                    "rendezvous=127.0.0.1:29562"};
  for (const char* cmd : {"comm", "stats", "replay"}) ExpectRefused({TT_CLI, cmd, a0, b1}, names);
  ExpectRefused({TT_CLI, "report", a0, b1, "-o", d / "mixed.html"}, names);
  EXPECT_FALSE(std::filesystem::exists(d / "mixed.html"));

  std::string link = d / "link-r0", copy = d / "copy-r0", spelled = d.path() + "/./p29561-r0/";
  std::filesystem::create_directory_symlink(a0, link);
  std::filesystem::copy(a0, copy, std::filesystem::copy_options::recursive);
  for (const std::string& second : {a0, link, spelled, copy})
    for (const char* cmd : {"comm", "stats", "replay"})
      ExpectRefused({TT_CLI, cmd, a0, second}, {second});
  ExpectRefused({TT_CLI, "stats", a0, a1, copy}, {copy, "the same recording"});
}

}  // namespace
}  // namespace tt
