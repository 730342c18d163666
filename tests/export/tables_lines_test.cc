// The slices table's `line` and `stack` (issue 37: each op's code line) against the code view
// (`stats --view code`) on a PyTorch loop recorded unchanged (tests/programs/code_torch.py),
// with `record --tables` writing the tables into the trace directory as record ends: per stack,
// the ops' count and self time equal the code view's rows whose own ops they are, each op's
// line is the innermost source frame of its stack, and the program's two model functions each
// have their line. Sampled stacks (the default) and PyTorch's Python tracer's exact ones.
// TablesTf: eager TensorFlow's ops (their dispatches) take the line the code view gives them
// (tests/corpus/tf_eager_two_functions.py).
// Skipped without torch, DuckDB or pyarrow, or where this tensortrace was built without Arrow.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/files.h"
#include "tables_skip.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::Program;
using test::Python;
using test::RunCmd;
using test::TempDir;

json Sql(const std::string& dir, const std::string& query) {
  auto r = RunCmd({TT_CLI, "sql", dir, query, "--json"}, {}, 120);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? json::parse(r.out) : json::object({{"rows", json::array()}});
}

struct Own {
  int64_t n = 0;
  double self_us = 0;
};

// The code view's rows as paths (names joined by ';'), each with the ops whose innermost shown
// frame it is: its occurrences less its children's, its self time. Phases ("(compile)", "(input
// wait)", ...) are not ops: left out.
void OwnOps(const json& rows, const std::string& above, std::map<std::string, Own>* out) {
  for (const auto& r : rows) {
    std::string name = r["name"], path = above.empty() ? name : above + ";" + name;
    if (name.starts_with("(") && name != "(no Python stack)" && name != "(empty stack)") continue;
    int64_t n = r["occurrence"];
    if (r.contains("children"))
      for (const auto& c : r["children"]) n -= c["occurrence"].get<int64_t>();
    if (n > 0) (*out)[path] = {n, r["self_micros"].get<double>()};
    if (r.contains("children")) OwnOps(r["children"], path, out);
  }
}

// The number of code_torch.py's first line holding `text`.
int LineOf(const std::string& text) {
  std::string src = ReadFile(Program("code_torch.py"));
  size_t at = src.find(text);
  EXPECT_NE(at, std::string::npos) << text;
  return 1 + static_cast<int>(std::count(src.begin(), src.begin() + at, '\n'));
}

// The code view of `trace` against DIR/tables: `query` gives (stack, n, self) per path; each is
// a code view row's own ops (count, self time), and each row's line is its stack's innermost
// source frame ("file.py:N:function").
void ExpectStacksOfTheCodeView(const std::string& trace, const std::string& query) {
  auto v = RunCmd({TT_CLI, "stats", trace, "--view", "code", "--json", "--select",
                   "name,occurrence,micros,self_micros"},
                  {}, 120);
  ASSERT_EQ(v.status, 0) << v.err;
  std::map<std::string, Own> want;
  OwnOps(json::parse(v.out)["rows"], "", &want);
  ASSERT_FALSE(want.empty()) << v.out;

  json got = Sql(trace + "/tables", query);
  EXPECT_EQ(got["rows"].size(), want.size()) << got.dump() << "\n" << v.out;
  for (const auto& row : got["rows"]) {
    std::string stack = row["stack"];
    ASSERT_TRUE(want.count(stack)) << stack << "\n" << v.out;
    EXPECT_EQ(row["n"], want[stack].n) << stack;
    EXPECT_NEAR(row["self"].get<double>() / 1e3, want[stack].self_us, 0.0015 * want[stack].n)
        << stack;
  }
  json lines =
      Sql(trace + "/tables", "SELECT DISTINCT stack, line FROM slices WHERE stack IS NOT NULL");
  for (const auto& row : lines["rows"]) {
    std::string stack = row["stack"], expect;
    for (size_t at = 0; at <= stack.size();) {
      size_t end = std::min(stack.find(';', at), stack.size());
      std::string node = stack.substr(at, end - at);
      if (!node.starts_with("[") && !node.starts_with("(")) expect = node;
      at = end + 1;
    }
    if (expect.empty())
      EXPECT_TRUE(row["line"].is_null()) << stack;
    else
      EXPECT_EQ(row["line"], expect) << stack;
  }
}

// Records code_torch.py with --tables (and `options`; exact: a tracer's stacks); compares
// DIR/tables with the code view.
void ExpectLinesOfTheCodeView(const std::vector<std::string>& options, bool exact) {
  TempDir d;
  std::string trace = d / "t";
  std::vector<std::string> argv = {TT_CLI, "record", "--tables", "-o", trace};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"--", Python(), Program("code_torch.py")});
  auto r = RunCmd(argv, {}, 400);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  ASSERT_TRUE(IsDirectory(trace + "/tables/slices/rank=-1")) << r.err;

  ExpectStacksOfTheCodeView(trace,
                            "SELECT stack, count(*) AS n, sum(self_ns) AS self FROM ops "
                            "WHERE stack IS NOT NULL GROUP BY stack");
  // The model's two functions, each at its own line of the program.
  json parts =
      Sql(trace + "/tables",
          "SELECT line, sum(self_ns) AS self FROM ops WHERE line LIKE '%_part' GROUP BY 1");
  std::map<std::string, double> by;
  for (const auto& row : parts["rows"]) by[row["line"]] = row["self"];
  EXPECT_EQ(by.size(), 2u) << parts.dump();
  for (const char* part : {"small", "big"}) {
    // A sampled stack names the line running; a tracer's frame its function's first line.
    std::string at = exact ? "def " + std::string(part) + "_part" : "x @ w_" + std::string(part);
    std::string line = "code_torch.py:" + std::to_string(LineOf(at)) + ":" + part + "_part";
    EXPECT_TRUE(by.count(line)) << line << " in " << parts.dump();
  }
}

TEST(TablesTorch, RecordTablesGiveEachOpTheCodeViewsLine) {
  REQUIRE_MODULE("torch");
  REQUIRE_TABLES();
  ExpectLinesOfTheCodeView({}, false);
}

TEST(TablesTorch, RecordTablesGiveEachOpThePythonTracersLine) {
  REQUIRE_MODULE("torch");
  REQUIRE_TABLES();
  ExpectLinesOfTheCodeView({"--python-tracer"}, true);
}

// Eager TensorFlow writes no op event: the code view gives each eager op's dispatch
// (EagerLocalExecute, its kernel inside) whole to the line that called it, and the slices table
// gives those rows (meaning eager) that line and stack: per path, the table's ops and counted
// eager ops are the code view's row's own, and both of the program's functions have theirs.
TEST(TablesTf, RecordTablesGiveEagerOpsTheCodeViewsLine) {
  REQUIRE_MODULE("tensorflow");
  REQUIRE_TABLES();
  TempDir d;
  std::string trace = d / "t";
  auto r = RunCmd({TT_CLI, "record", "--tables", "-o", trace, "--", Python(),
                   std::string(TT_SOURCE_DIR) + "/tests/corpus/tf_eager_two_functions.py", "40"},
                  {}, 400);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  ExpectStacksOfTheCodeView(trace,
                            "SELECT stack, count(*) AS n, "
                            "sum(CASE WHEN is_op THEN self_ns ELSE dur_ns END) AS self "
                            "FROM slices WHERE stack IS NOT NULL GROUP BY stack");
  json parts = Sql(trace + "/tables",
                   "SELECT regexp_extract(line, '[a-z]+_part$') AS f, count(*) AS n "
                   "FROM slices WHERE meaning = 'eager' AND line LIKE '%_part' GROUP BY 1");
  EXPECT_EQ(parts["rows"].size(), 2u) << parts.dump();
  json other = Sql(trace + "/tables",
                   "SELECT count(*) AS n FROM slices WHERE meaning NOT IN ('op', 'annotation', "
                   "'eager') AND stack IS NOT NULL");
  EXPECT_EQ(other["rows"][0]["n"], 0) << other.dump();
}

}  // namespace
}  // namespace tt
