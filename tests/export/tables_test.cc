// The job's tables (issue 37): `export --format parquet` and `tensortrace sql` (DuckDB) against
// the views they must agree with. TablesTorch records a 4-rank gloo DDP job, a recording per
// rank: totals per op type equal `stats --view op`, each step's breakdown equals
// `stats --view step`, each collective's waits and each instance's straggler equal `comm`.
// Tables.* : a damaged trace exports what is valid and says what it skipped; a dataset of
// another schema version is refused in one line. TablesSpark: the PySpark example's step
// breakdown and straggler table against the same views. Skipped where this tensortrace was built
// without Apache Arrow, or python3 lacks duckdb or pyarrow.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "comm_test_util.h"
#include "core/files.h"
#include "tables_skip.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;

json Sql(const std::vector<std::string>& dirs, const std::string& query) {
  std::vector<std::string> argv = {TT_CLI, "sql"};
  argv.insert(argv.end(), dirs.begin(), dirs.end());
  argv.push_back(query);
  argv.push_back("--json");
  auto r = RunCmd(argv, {}, 120);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? json::parse(r.out) : json::object({{"rows", json::array()}});
}

json Json(std::vector<std::string> argv) {
  argv.insert(argv.begin(), TT_CLI);
  argv.push_back("--json");
  auto r = RunCmd(argv, {}, 120);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? json::parse(r.out) : json::object();
}

// Microseconds of the views against integer ns of the tables (the views print 3 decimals).
void ExpectMicros(const json& micros, const json& ns, const std::string& what) {
  EXPECT_NEAR(micros.get<double>(), ns.get<double>() / 1000, 0.0015) << what;
}

// `argv` + the trace directories.
json Json(std::vector<std::string> argv, const std::vector<std::string>& dirs) {
  argv.insert(argv.begin() + 1, dirs.begin(), dirs.end());
  return Json(argv);
}

void OpsEqualTheOpView(const std::string& out, const std::vector<std::string>& dirs) {
  json view = Json({"stats", "--view", "op"}, dirs);
  json q = Sql({out},
               "SELECT op_type, count(*) AS n, sum(dur_ns) AS incl, sum(self_ns) AS self "
               "FROM ops GROUP BY op_type");
  std::map<std::string, json> got;
  for (const auto& r : q["rows"]) got[r["op_type"]] = r;
  ASSERT_FALSE(view["rows"].empty());
  EXPECT_EQ(got.size(), view["rows"].size());
  for (const auto& r : view["rows"]) {
    std::string name = r["name"];
    ASSERT_TRUE(got.count(name)) << name;
    EXPECT_EQ(got[name]["n"], r["occurrence"]) << name;
    ExpectMicros(r["micros"], got[name]["incl"], name);
    ExpectMicros(r["self_micros"], got[name]["self"], name);
  }
}

void StepsEqualTheStepView(const std::string& out, const std::vector<std::string>& dirs) {
  json view = Json({"stats", "--view", "step"}, dirs);
  json q = Sql({out}, "SELECT * FROM steps");
  std::map<std::pair<int64_t, int64_t>, json> got;
  for (const auto& r : q["rows"]) got[{r["pid"], r["step"]}] = r;
  ASSERT_FALSE(view["rows"].empty());
  EXPECT_EQ(got.size(), view["rows"].size());
  for (const auto& r : view["rows"]) {
    auto key = std::make_pair(r["pid"].get<int64_t>(), r["step"].get<int64_t>());
    ASSERT_TRUE(got.count(key)) << r.dump();
    for (const char* part : {"duration", "input", "compile", "host_compute", "runtime", "host_idle",
                             "device_compute", "copies", "communication"})
      ExpectMicros(r[std::string(part) + "_micros"], got[key][std::string(part) + "_ns"], part);
    EXPECT_EQ(got[key]["warmup"], r["warmup"]);
  }
}

void CollectivesEqualComm(const std::string& out, const std::vector<std::string>& dirs) {
  json comm = test::CommJson(dirs);
  json q = Sql({out},
               "SELECT collective, sum(wait_ns) AS wait, count(DISTINCT instance) AS n "
               "FROM collectives GROUP BY collective");
  std::map<std::string, json> got;
  for (const auto& r : q["rows"]) got[r["collective"]] = r;
  ASSERT_FALSE(comm["collectives"].empty());
  for (const auto& c : comm["collectives"]) {
    std::string name = c["collective"];
    ASSERT_TRUE(got.count(name)) << name;
    EXPECT_EQ(got[name]["wait"], c["wait_ns"]) << name;
    EXPECT_EQ(got[name]["n"], c["instances"]) << name;
  }
  // The straggler of each instance: the rank that arrived last.
  json s = Sql({out},
               "SELECT instance, any_value(straggler_rank) AS rank FROM collectives "
               "GROUP BY instance ORDER BY instance");
  ASSERT_EQ(s["rows"].size(), comm["instances"].size());
  for (size_t i = 0; i < s["rows"].size(); ++i) {
    const json& in = comm["instances"][i];
    EXPECT_EQ(s["rows"][i]["rank"], comm["ranks"][in["straggler_index"].get<size_t>()]["rank"])
        << in.dump();
  }
}

TEST(TablesTorch, FourRankDdpTablesEqualTheViewsAndComm) {
  REQUIRE_MODULE("torch");
  REQUIRE_TABLES();
  TempDir d;
  test::RunResult r;
  std::vector<std::map<std::string, std::string>> env(4);
  std::vector<std::string> dirs;
  for (int k = 0; k < 4; ++k) {
    env[k] = {{"WORLD_SIZE", "4"},
              {"MASTER_ADDR", "127.0.0.1"},
              {"MASTER_PORT", "29571"},
              {"RANK", std::to_string(k)},
              {"LOCAL_RANK", std::to_string(k)}};
    dirs.push_back(d / ("r" + std::to_string(k)));
  }
  RECORD_EACH_OR_SKIP(dirs, "torch_ddp.py", env, d.path(), r);
  std::vector<std::string> argv = {TT_CLI, "export"};
  argv.insert(argv.end(), dirs.begin(), dirs.end());
  for (const char* a : {"--format", "parquet", "-o"}) argv.push_back(a);
  argv.push_back(d / "tables");
  auto e = RunCmd(argv, {}, 120);
  ASSERT_EQ(e.status, 0) << e.err;
  for (int k = 0; k < 4; ++k)
    EXPECT_TRUE(IsDirectory(d / ("tables/slices/rank=" + std::to_string(k)))) << k;
  OpsEqualTheOpView(d / "tables", dirs);
  StepsEqualTheStepView(d / "tables", dirs);
  CollectivesEqualComm(d / "tables", dirs);
  // The trace directories themselves: exported for the query.
  json n = Sql(dirs, "SELECT count(DISTINCT rank) AS ranks FROM steps");
  ASSERT_EQ(n["rows"].size(), 1u);
  EXPECT_EQ(n["rows"][0]["ranks"], 4);
}

// examples/spark_tables.py in Spark's local mode over the export of a 2-rank gloo DDP job: its
// per-step breakdown equals `stats --view step`, its straggler table (per rank: instances it
// entered last in, its waits) and per-collective waits equal `comm`. Skipped without pyspark
// or java.
TEST(TablesSpark, StepBreakdownAndStragglersEqualStatsAndComm) {
  REQUIRE_MODULE("torch");
  REQUIRE_MODULE("pyspark");
  REQUIRE_TABLES();
  if (RunCmd({"java", "-version"}).status != 0) GTEST_SKIP() << "no java";
  TempDir d;
  test::RunResult r;
  std::map<std::string, std::string> env = {{"TT_DDP_PORT", "29572"}};
  RECORD_OR_SKIP(d / "t", "torch_ddp.py", env, r);
  auto e = RunCmd({TT_CLI, "export", d / "t", "--format", "parquet", "-o", d / "out"});
  ASSERT_EQ(e.status, 0) << e.err;
  auto s = RunCmd({test::Python(), std::string(TT_SOURCE_DIR) + "/examples/spark_tables.py",
                   d / "out", "--json"},
                  {}, 300);
  ASSERT_EQ(s.status, 0) << s.err.substr(s.err.size() > 3000 ? s.err.size() - 3000 : 0);
  json spark = json::parse(s.out);
  json view = Json({"stats", d / "t", "--view", "step"});
  std::map<std::pair<int64_t, int64_t>, json> got;
  for (const auto& row : spark["steps"]) got[{row["pid"], row["step"]}] = row;
  ASSERT_EQ(got.size(), view["rows"].size());
  for (const auto& row : view["rows"]) {
    const json& g = got[{row["pid"].get<int64_t>(), row["step"].get<int64_t>()}];
    for (const char* part : {"duration_micros", "host_compute_micros", "communication_micros",
                             "host_idle_micros", "runtime_micros", "device_compute_micros"})
      EXPECT_NEAR(g[part].get<double>(), row[part].get<double>(), 0.0015) << part;
  }
  json comm = test::CommJson({d / "t"});
  ASSERT_EQ(spark["stragglers"].size(), comm["ranks"].size());
  for (size_t k = 0; k < comm["ranks"].size(); ++k) {
    EXPECT_EQ(spark["stragglers"][k]["rank"], comm["ranks"][k]["rank"]);
    EXPECT_EQ(spark["stragglers"][k]["straggler"], comm["ranks"][k]["straggler"]) << k;
    EXPECT_EQ(spark["stragglers"][k]["wait_ns"], comm["ranks"][k]["wait_ns"]) << k;
  }
  std::map<std::string, json> by;
  for (const auto& c : spark["collectives"]) by[c["collective"]] = c;
  for (const auto& c : comm["collectives"]) {
    EXPECT_EQ(by[c["collective"]]["wait_ns"], c["wait_ns"]) << c.dump();
    EXPECT_EQ(by[c["collective"]]["instances"], c["instances"]) << c.dump();
  }
}

// 64 zero bytes in the middle of a thread's stream: the export writes the events before and
// after the damage, says what it skipped, and exits 3 (0 with --allow-damaged).
TEST(Tables, DamagedTraceExportsWhatIsValidAndSaysWhatItSkipped) {
  REQUIRE_TABLES();
  TempDir d;
  std::string t = d / "t";
  auto r = RunCmd({TT_CLI, "record", "-o", t, "--", TT_PROGRAM, "leaf", "20000"});
  ASSERT_EQ(r.status, 0) << r.err;
  json whole = Sql({t}, "SELECT count(*) AS n FROM slices");
  std::string stream;
  for (const auto& p : ListDirectory(t))
    if (p[0] == 'p' && IsDirectory(t + "/" + p))
      for (const auto& f : ListDirectory(t + "/" + p))
        if (f[0] == 't') stream = t + "/" + p + "/" + f;
  ASSERT_FALSE(stream.empty());
  std::string b = ReadFile(stream);
  for (size_t i = b.size() / 2; i < b.size() / 2 + 64; ++i) b[i] = 0;
  WriteFileAtomic(stream, b);
  auto e = RunCmd({TT_CLI, "export", t, "--format", "parquet", "-o", d / "out"});
  EXPECT_EQ(e.status, 3) << e.err;
  EXPECT_NE(e.err.find("tensortrace export: damaged: " + stream), std::string::npos)
      << e.err;
  json part = Sql({d / "out"}, "SELECT count(*) AS n FROM slices");
  int64_t kept = part["rows"][0]["n"], all = whole["rows"][0]["n"];
  EXPECT_GT(kept, all / 4) << e.err;
  EXPECT_LT(kept, all) << e.err;
}

// A dataset whose files say another schema version is refused in one line, by `sql` and by
// the Python package.
TEST(Tables, OlderSchemaVersionIsRefusedInOneLine) {
  REQUIRE_TABLES();
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--", TT_PROGRAM, "leaf", "100"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto e = RunCmd({TT_CLI, "export", d / "t", "--format", "parquet", "-o", d / "out"});
  ASSERT_EQ(e.status, 0) << e.err;
  std::string rewrite =
      "import pathlib, pyarrow.parquet as pq\n"
      "for f in pathlib.Path('" +
      d / "out" +
      "').rglob('*.parquet'):\n"
      "    t = pq.read_table(f, partitioning=None)\n"
      "    m = dict(t.schema.metadata); m[b'tensortrace.schema_version'] = b'0'\n"
      "    pq.write_table(t.replace_schema_metadata(m), f)\n";
  auto w = RunCmd({test::Python(), "-c", rewrite});
  ASSERT_EQ(w.status, 0) << w.err;
  auto q = RunCmd({TT_CLI, "sql", d / "out", "SELECT count(*) FROM slices"});
  EXPECT_EQ(q.status, 2);
  EXPECT_EQ(test::CountLines(q.err), 1u) << q.err;
  EXPECT_NE(q.err.find("schema version 0; this tensortrace reads version 1"), std::string::npos)
      << q.err;
  EXPECT_TRUE(q.out.empty()) << q.out;
}

size_t LinesWith(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find(what, at)) != std::string::npos; at = text.find('\n', at))
    ++n;
  return n;
}

// Every row of the tables that record --tables writes per process (clocks and processes name
// the recording's directory, which differs between the two).
json Rows(const std::vector<std::string>& dirs, std::string* err) {
  std::vector<std::string> argv = {TT_CLI, "sql"};
  argv.insert(argv.end(), dirs.begin(), dirs.end());
  argv.insert(argv.end(), {"SELECT 'slices' AS t, to_json(s) AS r FROM slices s UNION ALL "
                           "SELECT 'steps', to_json(x) FROM steps x UNION ALL "
                           "SELECT 'threads', to_json(h) FROM threads h UNION ALL "
                           "SELECT 'allocations', to_json(a) FROM allocations a UNION ALL "
                           "SELECT 'processes', to_json(p) FROM (SELECT * EXCLUDE (recording) "
                           "FROM processes) p ORDER BY 1, 2",
                           "--json"});
  auto r = RunCmd(argv, {}, 120);
  EXPECT_EQ(r.status, 0) << r.err;
  *err = r.err;
  return r.status == 0 ? json::parse(r.out)["rows"] : json::array();
}

// `sql` and `tensortrace.open` over recordings made with record --tables take each one's
// per-process tables (one line says so), which equal those computed from the same traces (their
// copies without tables); tables of another recording put in a DIR/tables are not taken: one
// line says so, and the tables are computed from the trace.
TEST(Tables, SqlAndOpenTakeTheRecordedTablesWhereCurrent) {
  REQUIRE_TABLES();
  TempDir d;
  for (const char* n : {"a", "b", "x"}) {
    auto r = RunCmd({TT_CLI, "record", "--tables", "-o", d / n, "--", TT_PROGRAM, "leaf", "300"});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_TRUE(IsDirectory(d / n + "/tables/slices")) << r.err;
  }
  namespace fs = std::filesystem;
  fs::create_directories(d / "c");
  for (const char* n : {"a", "b"}) {
    std::string copy = d / "c" + "/" + n;
    fs::copy(d / n, copy, fs::copy_options::recursive);
    fs::remove_all(copy + "/tables");
  }
  std::string err;
  json computed = Rows({d / "c/a", d / "c/b"}, &err);
  EXPECT_EQ(err.find("took"), std::string::npos) << err;
  ASSERT_GT(computed.size(), 600u);
  json taken = Rows({d / "a", d / "b"}, &err);
  EXPECT_EQ(LinesWith(err, "record --tables"), 1u) << err;
  EXPECT_NE(err.find("from the tables record --tables wrote in 2 recording(s)"), std::string::npos)
      << err;
  EXPECT_EQ(taken, computed);

  auto py =
      RunCmd({test::Python(), "-c",
              "import sys, tensortrace\n"
              "t = tensortrace.open(sys.argv[1:])\n"
              "print(len(t.slices), any('record --tables' in n for n in t.notes))",
              d / "a", d / "b"},
             {{"PYTHONPATH", std::string(TT_SOURCE_DIR) + "/python"}, {"TENSORTRACE", TT_CLI}});
  ASSERT_EQ(py.status, 0) << py.err;
  json n = Sql({d / "c/a", d / "c/b"}, "SELECT count(*) AS n FROM slices");
  EXPECT_EQ(py.out, std::to_string(n["rows"][0]["n"].get<int64_t>()) + " True\n");

  fs::remove_all(d / "a/tables");
  fs::rename(d / "x/tables", d / "a/tables");
  json stale = Rows({d / "a", d / "b"}, &err);
  EXPECT_EQ(LinesWith(err, "record --tables"), 1u) << err;
  EXPECT_NE(err.find(d / "a/tables (record --tables) is not the tables of this trace"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("computing the tables from the trace"), std::string::npos) << err;
  EXPECT_EQ(stale, computed);
}

}  // namespace
}  // namespace tt
