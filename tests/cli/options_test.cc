// The effect of options the README names that no other test checked (issue 18, item 9):
// record's --max-size, --wait-children and --quiet; report's --skip-warmup, --step-name and
// --include-warmup; stats --help. Each test compares a run with the option against one without, so
// that the option, not the program, made the difference. The framework options (--steps,
// --tf-host-level,
// --python-tracer, --window-s) are checked in tf_bootstrap_test.cc, on real TensorFlow and JAX.
// The option groups the analysis commands share (cli/option_groups.h, issue 33, item 4): each
// command that prints a table takes --json and --csv, the CSV as many rows as the JSON's table;
// each shared option is worded alike in every command's help; stats --include-warmup.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "core/files.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;

json Info(const std::string& trace) {
  auto r = RunCmd({TT_CLI, "info", trace, "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
  return json::parse(r.out);
}

// --max-size: a process's streams stop growing at the cap and what did not fit is counted.
TEST(RecordOptions, MaxSizeBoundsTheTraceAndCountsTheDrops) {
  TempDir d;
  const std::vector<std::string> program = {TT_PROGRAM, "threads", "4", "50000"};
  auto run = [&](const std::string& name, std::vector<std::string> opts) {
    std::vector<std::string> argv = {TT_CLI,   "record",        "--quiet", "-o",
                                     d / name, "--buffer-size", "64K"};
    argv.insert(argv.end(), opts.begin(), opts.end());
    argv.push_back("--");
    argv.insert(argv.end(), program.begin(), program.end());
    auto r = RunCmd(argv);
    EXPECT_EQ(r.status, 0) << r.err;
    return Info(d / name);
  };
  json full = run("full", {});
  json capped = run("capped", {"--max-size", "256K"});
  EXPECT_EQ(full["totals"]["dropped"], 0);
  EXPECT_GT(full["totals"]["bytes"].get<uint64_t>(), 1024u * 1024u);  // 400k events: > 1 MiB

  ASSERT_EQ(capped["processes"].size(), 1u);
  EXPECT_LE(capped["totals"]["bytes"].get<uint64_t>(), 256u * 1024u) << capped["totals"];
  uint64_t dropped = capped["totals"]["dropped"];
  EXPECT_GT(dropped, 0u);
  // Each drop has its reason.
  uint64_t reasons = 0;
  for (const auto& [why, n] : capped["processes"][0]["drop_reasons"].items())
    reasons += n.get<uint64_t>();
  EXPECT_EQ(reasons, dropped) << capped["processes"][0]["drop_reasons"];
  EXPECT_LT(capped["totals"]["events"].get<uint64_t>(), full["totals"]["events"].get<uint64_t>());
}

// A daemon that the program leaves behind (a shell of its own, traced from its start, its
// output away from record's) waits until `gate` holds, then runs the test program (events named
// "leaf") and touches `done`. With --wait-children record waits for it and its events are in the
// trace; with --wait-children 0 it does not, and says that the daemon still runs.
std::vector<std::string> WithDaemon(const std::string& wait, const std::string& gate,
                                    const std::string& dir) {
  // The program exits once the daemon has started (so that its trace exists by then).
  std::string daemon = "touch " + dir + "/started; while " + gate + "; do sleep 0.05; done; " +
                       TT_PROGRAM + " leaf 20; touch " + dir + "/done";
  return {TT_CLI,
          "record",
          "--wait-children",
          wait,
          "-o",
          dir + "/t",
          "--",
          "sh",
          "-c",
          "sh -c '" + daemon + "' $$ </dev/null >/dev/null 2>&1 & while [ ! -e " + dir +
              "/started ]; do sleep 0.05; done; exit 0"};
}

// Processes of the trace that ran the test program as `leaf 20` and wrote its events.
size_t LeafProcesses(const std::string& trace) {
  size_t n = 0;
  json info = Info(trace);
  for (const auto& p : info["processes"])
    n += p["command"].get<std::string>().ends_with(" leaf 20") &&
         p["events_by_category"].value("user", 0) == 20;
  EXPECT_LE(n, 1u) << info.dump(1);
  return n;
}

TEST(RecordOptions, WaitChildrenWaitsForADaemonsEvents) {
  TempDir d;
  // The gate opens once the program ($0 in the daemon) has exited: the daemon's work starts
  // after the program's end, and only waiting for it catches it.
  auto r = RunCmd(WithDaemon("60", "kill -0 $0 2>/dev/null", d.path()), {}, 90);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(PathExists(d / "done")) << "record returned before the daemon ended";
  EXPECT_EQ(LeafProcesses(d / "t"), 1u) << RunCmd({TT_CLI, "info", d / "t"}).out;
  EXPECT_EQ(r.err.find("still running"), std::string::npos) << r.err;
}

TEST(RecordOptions, WaitChildrenZeroLeavesTheDaemonAndSaysSo) {
  TempDir d;
  // The gate opens only when the test says so, after record has returned.
  auto r = RunCmd(WithDaemon("0", "[ ! -e " + d / "gate" + " ]", d.path()), {}, 60);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("processes still running after --wait-children"), std::string::npos)
      << r.err;
  EXPECT_EQ(LeafProcesses(d / "t"), 0u);
  // Let the daemon finish (it is ours to clean up), then check it did run.
  WriteFileAtomic(d / "gate", "");
  for (int i = 0; i < 600 && !PathExists(d / "done"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(PathExists(d / "done"));
}

// --quiet: record prints the trace path and nothing else; without it, its summary.
TEST(RecordOptions, QuietPrintsOnlyTheTracePath) {
  TempDir d;
  auto quiet = RunCmd({TT_CLI, "record", "--quiet", "-o", d / "q", "--", TT_PROGRAM, "leaf", "5"});
  EXPECT_EQ(quiet.status, 0);
  EXPECT_EQ(quiet.err, d / "q" + "\n");
  EXPECT_EQ(quiet.out, "");
  auto loud = RunCmd({TT_CLI, "record", "-o", d / "l", "--", TT_PROGRAM, "leaf", "5"});
  EXPECT_EQ(loud.status, 0);
  EXPECT_NE(loud.err.find("tensortrace: trace written to " + d / "l"), std::string::npos)
      << loud.err;
  EXPECT_GE(test::CountLines(loud.err), 2u) << loud.err;
}

TEST(StatsOptions, HelpNamesEveryViewAndOption) {
  auto r = RunCmd({TT_CLI, "stats", "--help"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("usage: tensortrace stats", 0), 0u) << r.out;
  for (const char* word : {"--view", "--top", "--json", "--csv", "--steps", "--skip-warmup",
                           "--step-name", "--filter", "op", "step", "kernel", "runtime"})
    EXPECT_NE(r.out.find(word), std::string::npos) << word;
  EXPECT_EQ(r.err, "");
}

// The step numbers on the report's step chart (each bar's tooltip starts with its label).
std::set<int> ChartSteps(const std::string& html) {
  size_t b = html.find("<section id=\"steps\">");
  std::string section = html.substr(b, html.find("</section>", b) - b);
  std::set<int> out;
  std::regex title("<title>([0-9]+) ");
  for (auto it = std::sregex_iterator(section.begin(), section.end(), title);
       it != std::sregex_iterator(); ++it)
    out.insert(std::stoi((*it)[1]));
  return out;
}

std::string Report(const std::string& trace, const std::string& out,
                   std::vector<std::string> opts) {
  std::vector<std::string> argv = {TT_CLI, "report", trace, "-o", out};
  argv.insert(argv.end(), opts.begin(), opts.end());
  auto r = RunCmd(argv);
  EXPECT_EQ(r.status, 0) << r.err;
  return ReadFile(out);
}

TEST(ReportOptions, SkipWarmupLeavesTheFirstStepsOut) {
  TempDir d;
  TempDir out;
  auto r = RunCmd({TT_SYNTHETIC, "6"}, {{"TENSORTRACE_DIR", d.path()}});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string all = Report(d.path(), out / "all.html", {});
  std::string skipped = Report(d.path(), out / "skip.html", {"--skip-warmup", "2"});
  EXPECT_EQ(ChartSteps(all), (std::set<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(ChartSteps(skipped), (std::set<int>{2, 3, 4, 5}));
  EXPECT_NE(skipped.find("<dt>steps</dt><dd>6 (4 selected"), std::string::npos);
  EXPECT_NE(skipped.find("<table id=\"step-averages\"><thead>"), std::string::npos);
}

// --step-name: a program's own repeated range becomes the step.
TEST(ReportOptions, StepNameFindsStepsByThatName) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "--quiet", "-o", d / "t", "--", TT_PROGRAM, "leaf", "7"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string none = Report(d / "t", d / "none.html", {});
  std::string named = Report(d / "t", d / "named.html", {"--step-name", "leaf"});
  EXPECT_NE(none.find("<dt>steps</dt><dd>0</dd>"), std::string::npos);
  EXPECT_NE(named.find("<dt>steps</dt><dd>7</dd>"), std::string::npos);
  // (Not the chart's bars: a "leaf" range lasts nanoseconds, and a step of 0 ns draws none.)
}

// --include-warmup: the step that compiles is a warm-up step, left out of the chart unless asked.
TEST(ReportOptions, IncludeWarmupKeepsTheWarmupStep) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "--quiet", "-o", d / "t", "--", "python3",
                   std::string(TT_SOURCE_DIR) + "/tests/programs/warmup_job.py", TT_LIB});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string out = Report(d / "t", d / "out.html", {"--step-name", "train_step"});
  std::string in =
      Report(d / "t", d / "in.html", {"--step-name", "train_step", "--include-warmup"});
  EXPECT_NE(out.find("id=\"warmup-note\">1 warm-up step"), std::string::npos);
  EXPECT_EQ(ChartSteps(out), (std::set<int>{1, 2, 3, 4}));
  EXPECT_EQ(in.find("id=\"warmup-note\""), std::string::npos);
  EXPECT_EQ(ChartSteps(in), (std::set<int>{0, 1, 2, 3, 4}));
}

// ---------------------------------------------------------------------------------------------
// The shared option groups (cli/option_groups.h).

// The command names the overview lists (as BadInput.EveryCommandHasHelp reads them).
std::vector<std::string> CommandNames() {
  auto all = RunCmd({TT_CLI, "--help"});
  EXPECT_EQ(all.status, 0);
  std::vector<std::string> names;
  std::istringstream lines(all.out.substr(all.out.find("commands:\n") + 10));
  for (std::string line; std::getline(lines, line) && !line.empty();)
    if (line.size() > 2 && line[2] != ' ') names.push_back(line.substr(2, line.find(' ', 2) - 2));
  return names;
}

// RFC 4180: records of fields, quoted fields may hold commas, doubled quotes and line breaks.
// A test failure where a quote is left open.
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        field += text[++i];
      else if (c == '"')
        quoted = false;
      else
        field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      row.push_back(std::move(field));
      field.clear();
      rows.push_back(std::move(row));
      row.clear();
    } else {
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << text;
  EXPECT_TRUE(field.empty() && row.empty()) << "no newline at the end:\n" << text;
  return rows;
}

class OptionGroups : public ::testing::Test {
 protected:
  // Two small synthetic jobs (6 steps each, allocations in two allocators).
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    for (const char* side : {"a", "b"}) {
      ASSERT_TRUE(MakeDirectory(*dir_ / side));
      auto r =
          RunCmd({TT_SYNTHETIC, "6", "100", "1", "varied"}, {{"TENSORTRACE_DIR", *dir_ / side}});
      ASSERT_EQ(r.status, 0) << r.err;
    }
  }
  static void TearDownTestSuite() { delete dir_; }
  static TempDir* dir_;
};
TempDir* OptionGroups::dir_ = nullptr;

// How a command that prints a table is run on the jobs, and the rows of its JSON that its CSV
// (default section) lists.
struct TableCommand {
  std::vector<std::string> args;
  std::function<size_t(const json&)> rows;
};

// Every command the overview lists either prints no table (record, capture, repair: they make
// recordings; export, report: a file) or accepts --json and --csv, and its CSV is a header and as
// many rows, each of as many fields, as its JSON's table.
TEST_F(OptionGroups, EveryCommandThatPrintsATableTakesJsonAndCsv) {
  std::string a = *dir_ / "a", b = *dir_ / "b";
  auto count = [](const char* key) { return [key](const json& j) { return j.at(key).size(); }; };
  std::map<std::string, TableCommand> tables = {
      {"info", {{a}, count("processes")}},
      {"stats", {{a, "--view", "op"}, count("rows")}},
      {"memory", {{a}, count("allocators")}},
      {"comm",
       {{a},
        [](const json& j) {
          size_t n = 0;  // one row per instance and rank
          for (const auto& in : j.at("instances")) n += in.at("arrivals").size();
          return n;
        }}},
      {"diff", {{a, b}, count("rows")}},
      {"replay", {{a}, count("ranks")}},
      {"optimize", {{a}, count("plan")}},
      {"top", {{a, "--once"}, count("ops")}},
      {"sql", {{a, "SELECT op_type, count(*) AS n FROM ops GROUP BY 1"}, count("rows")}},
  };
  std::set<std::string> no_table = {"record", "capture", "repair", "export", "report"};
  // sql runs DuckDB over the Parquet tables: where either is missing, it prints nothing here.
  if (RunCmd({TT_CLI, "export", "--help"}).out.find("parquet  unavailable") != std::string::npos ||
      !test::HaveModule("duckdb")) {
    tables.erase("sql");
    no_table.insert("sql");
  }
  std::vector<std::string> names = CommandNames();
  EXPECT_EQ(names.size(), tables.size() + no_table.size());
  for (const auto& cmd : names) {
    if (no_table.count(cmd)) continue;
    ASSERT_TRUE(tables.count(cmd)) << cmd << ": a new command; say how it prints its table";
    const TableCommand& t = tables[cmd];
    std::vector<std::string> argv = {TT_CLI, cmd};
    argv.insert(argv.end(), t.args.begin(), t.args.end());
    std::vector<std::string> as_json = argv, as_csv = argv;
    as_json.push_back("--json");
    as_csv.push_back("--csv");
    auto j = RunCmd(as_json);
    ASSERT_EQ(j.status, 0) << cmd << ": " << j.err;
    size_t rows = t.rows(json::parse(j.out));
    auto c = RunCmd(as_csv);
    ASSERT_EQ(c.status, 0) << cmd << ": " << c.err;
    auto csv = ParseCsv(c.out);
    ASSERT_GE(csv.size(), 1u) << cmd;
    EXPECT_FALSE(csv[0].empty() || csv[0][0].empty()) << cmd << ": no header\n" << c.out;
    EXPECT_EQ(csv.size() - 1, rows) << cmd << ":\n" << c.out;
    for (const auto& r : csv) EXPECT_EQ(r.size(), csv[0].size()) << cmd << ":\n" << c.out;
    if (cmd != "comm" && cmd != "optimize") {
      EXPECT_GT(rows, 0u) << cmd;
    }
  }
}

// Each option of the groups reads the same in every command's help that lists it: the option
// and the start of its text, at the same column. The commands that make recordings (record,
// capture, repair) take none of the groups: record's --steps, the profiler's window, is its own.
TEST_F(OptionGroups, EverySharedOptionIsWordedOnce) {
  const std::vector<std::string> lines = {
      "  --steps A:B       only steps A to B (inclusive; A:, :B and A also work), by step number",
      "  --skip-warmup N   leave out each process's first N steps",
      "  --include-warmup  keep the warm-up steps (those holding tracing or compilation)",
      "  --step-name NAME  an annotation that marks one step (repeatable); framework step",
      "  --pid P           only process P (each of its exec images); repeat for several",
      "  --json            machine-readable output, every field in its unit (schema:",
      "  --csv             the table as CSV: a header of the JSON's field names (units in",
      "  --section S       with --csv, another table:",
      "  --top N           at most N ",
      "  -h, --help        this help",
  };
  size_t checked = 0;
  for (const auto& cmd : CommandNames()) {
    if (cmd == "record" || cmd == "capture" || cmd == "repair") continue;
    auto h = RunCmd({TT_CLI, cmd, "--help"});
    ASSERT_EQ(h.status, 0) << cmd;
    EXPECT_NE(h.out.find("\n  -h, --help        this help\n"), std::string::npos) << cmd;
    std::istringstream in(h.out);
    for (std::string line; std::getline(in, line);) {
      for (const auto& want : lines) {
        std::string option = want.substr(0, want.find("  ", 2));
        if (!line.starts_with(option + " ")) continue;
        EXPECT_TRUE(line.starts_with(want)) << cmd << " --help:\n" << line << "\nwanted:\n" << want;
        ++checked;
      }
    }
    // Every option the usage line names is described.
    for (const auto& want : lines) {
      std::string option = want.substr(2, want.find(' ', 3) - 2);
      std::string usage = h.out.substr(0, h.out.find("\n\n"));
      if (usage.find("[" + option) != std::string::npos ||
          usage.find("| " + option) != std::string::npos) {
        EXPECT_NE(h.out.find("\n  " + option), std::string::npos) << cmd << ": " << option;
      }
    }
  }
  EXPECT_GT(checked, 40u);
}

// stats --include-warmup: accepted, and the default (every step counts); with --skip-warmup N
// the first N are left out all the same. Replay leaves each process's first step out unless
// --include-warmup.
TEST(StatsOptions, IncludeWarmupIsTheDefault) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "--quiet", "-o", d / "t", "--", "python3",
                   std::string(TT_SOURCE_DIR) + "/tests/programs/warmup_job.py", TT_LIB});
  ASSERT_EQ(r.status, 0) << r.err;
  auto steps = [&](std::vector<std::string> opts) {
    std::vector<std::string> argv = {TT_CLI, "stats",       d / "t",      "--view",
                                     "step", "--step-name", "train_step", "--json"};
    argv.insert(argv.end(), opts.begin(), opts.end());
    auto s = RunCmd(argv);
    EXPECT_EQ(s.status, 0) << s.err;
    return json::parse(s.out)["rows"];
  };
  json all = steps({}), kept = steps({"--include-warmup"});
  ASSERT_EQ(all.size(), 5u) << all;
  EXPECT_EQ(all, kept);
  EXPECT_EQ(all[0]["warmup"], true) << all[0];
  EXPECT_EQ(steps({"--include-warmup", "--skip-warmup", "1"}).size(), 4u);
  auto replayed = [&](std::vector<std::string> opts) {
    std::vector<std::string> argv = {TT_CLI,        "replay",     d / "t",
                                     "--step-name", "train_step", "--json"};
    argv.insert(argv.end(), opts.begin(), opts.end());
    auto s = RunCmd(argv);
    EXPECT_EQ(s.status, 0) << s.err;
    return json::parse(s.out)["steps_replayed"].get<int>();
  };
  EXPECT_EQ(replayed({}), 4);
  EXPECT_EQ(replayed({"--include-warmup"}), 5);
}

// The groups' errors are one line (exit 2) in every command: --json with --csv, --section
// without --csv or naming no table, --top out of range, a bad --pid, --rank or --skip-warmup, a
// --rank of a job without ranks.
TEST_F(OptionGroups, BadOptionsAreOneLine) {
  std::string a = *dir_ / "a";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"memory", a, "--json", "--csv"}, "--json and --csv exclude each other"},
      {{"info", a, "--csv", "--json"}, "--json and --csv exclude each other"},
      {{"memory", a, "--section", "ops"}, "--section goes with --csv"},
      {{"replay", a, "--csv", "--section", "nope"}, "--section: 'nope' is not ranks, steps,"},
      {{"optimize", a, "--csv", "--section", "plans"}, "is not plan, tried or suggestions"},
      {{"top", a, "--csv"}, "--csv goes with --once"},
      {{"memory", a, "--top", "0"}, "--top: must be at least 1"},
      {{"top", a, "--once", "--top", "1001"}, "too large (at most 1000)"},
      {{"replay", a, "--pid", "x"}, "--pid: 'x' is not a non-negative whole number"},
      {{"comm", a, "--rank", "1"}, "--rank 1: " + a + " holds no ranks (no launcher gave"},
      {{"stats", a, "--rank", "0,"}, "--rank: '0,' is not a list of ranks"},
      {{"stats", a, "--skip-warmup", "-1"}, "--skip-warmup: '-1' is not"},
      {{"diff", a, a, "--steps", "1:2"}, "unknown option '--steps'"},
      {{"info", a, "--top", "3"}, "unknown option '--top'"},
  };
  for (const auto& [args, says] : cases) {
    std::vector<std::string> argv = {TT_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = RunCmd(argv);
    EXPECT_EQ(r.status, 2) << args[0] << " " << args.back() << ": " << r.err;
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << r.out;
  }
}

// `stats --view step` with its default columns fits a 120-character terminal: the table and
// the lines under it (links, notes).
TEST_F(OptionGroups, StatsStepViewFits120Columns) {
  auto r = RunCmd({TT_CLI, "stats", *dir_ / "a", "--view", "step"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream in(r.out);
  size_t table = 0, lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    EXPECT_LE(line.size(), 120u) << line;
    if (table == lines && !line.empty()) ++table;
  }
  EXPECT_EQ(table, 7u) << r.out;         // the header and 6 steps
  EXPECT_GT(lines, table + 2) << r.out;  // links and notes under it
}

}  // namespace
}  // namespace tt
