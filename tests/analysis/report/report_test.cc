// `tensortrace report` on a synthetic job's trace: the numbers in the page match the statistics
// views and the job's known allocations, the page is self-contained, and headless Chromium
// loads it without error and draws it.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "analysis/report/findings.h"
#include "analysis/report/report_data.h"
#include "core/files.h"
#include "format/reader.h"
#include "model/inventory.h"
#include "model/model.h"
#include "test_util.h"

namespace tt {
namespace {

using nlohmann::json;
using test::RunCmd;
using test::TempDir;

constexpr int kSteps = 6;

class Report : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    auto r = RunCmd({TT_SYNTHETIC, std::to_string(kSteps), "100", "1", "varied"},
                    {{"TENSORTRACE_DIR", dir_->path()}});
    ASSERT_EQ(r.status, 0) << r.err;
    out_ = new TempDir();
    r = RunCmd({TT_CLI, "report", dir_->path(), "-o", *out_ / "r.html", "--title", "Job <1>"});
    ASSERT_EQ(r.status, 0) << r.err;
    html_ = new std::string(ReadFile(*out_ / "r.html"));
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete out_;
    delete html_;
  }
  static json Stats(const std::string& view) {
    auto r = RunCmd({TT_CLI, "stats", dir_->path(), "--view", view, "--json"});
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(r.out);
  }
  // The cells of each row of the table with this id: name -> cell texts.
  static std::map<std::string, std::vector<std::string>> Table(const std::string& id) {
    std::map<std::string, std::vector<std::string>> rows;
    size_t at = html_->find("<table id=\"" + id + "\">");
    EXPECT_NE(at, std::string::npos) << id;
    if (at == std::string::npos) return rows;
    std::string t = html_->substr(at, html_->find("</table>", at) - at);
    std::regex row("<tr>(.*?)</tr>"), cell("<td[^>]*>(.*?)</td>");
    for (auto it = std::sregex_iterator(t.begin(), t.end(), row); it != std::sregex_iterator();
         ++it) {
      std::string r = (*it)[1];
      std::vector<std::string> cells;
      for (auto c = std::sregex_iterator(r.begin(), r.end(), cell); c != std::sregex_iterator();
           ++c)
        cells.push_back((*c)[1]);
      if (!cells.empty()) rows[cells[0]] = cells;
    }
    return rows;
  }
  static TempDir* dir_;
  static TempDir* out_;
  static std::string* html_;
};
TempDir* Report::dir_ = nullptr;
TempDir* Report::out_ = nullptr;
std::string* Report::html_ = nullptr;

std::string F3(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

TEST_F(Report, TopOpsHoldTheOpViewsExactNumbers) {
  json j = Stats("op");
  auto rows = Table("top-ops");
  ASSERT_EQ(rows.size(), j["rows"].size());
  for (const auto& r : j["rows"]) {
    std::string name = r["name"];
    ASSERT_TRUE(rows.count(name)) << name;
    const auto& c = rows[name];
    // op type, occurrence, micros, self_micros, cpu_micros, accelerator_micros, avg, median
    ASSERT_GE(c.size(), 8u);
    EXPECT_EQ(c[1], std::to_string(r["occurrence"].get<int>())) << name;
    EXPECT_EQ(c[2], F3(r["micros"].get<double>())) << name;
    EXPECT_EQ(c[3], F3(r["self_micros"].get<double>())) << name;
    EXPECT_EQ(c[4], F3(r["cpu_micros"].get<double>())) << name;
    EXPECT_EQ(c[5], F3(r["accelerator_micros"].get<double>())) << name;
    EXPECT_EQ(c[7], F3(r["median_micros"].get<double>())) << name;
  }
  // The job's device work, exactly: sgemm 30 us per step, linked to MatMul.
  EXPECT_EQ(rows["MatMul"][1], std::to_string(kSteps));
  EXPECT_EQ(rows["MatMul"][5], F3(30.0 * kSteps));
  // Ordered by inclusive time.
  size_t body = html_->find("<tbody>", html_->find("<table id=\"top-ops\">"));
  ASSERT_NE(body, std::string::npos);
  std::regex first("^<tbody>\\s*<tr><td class=\"name\">([^<]*)<");
  std::smatch m;
  std::string rest = html_->substr(body, 400);
  ASSERT_TRUE(std::regex_search(rest, m, first)) << rest;
  std::string top;
  double best = -1;
  for (const auto& r : j["rows"])
    if (r["micros"].get<double>() > best) {
      best = r["micros"].get<double>();
      top = r["name"];
    }
  EXPECT_EQ(m[1], top);
}

TEST_F(Report, KernelsAndCopiesTables) {
  auto k = Table("top-kernels");
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k["volta_sgemm_128x64_nn"][1], std::to_string(kSteps));
  EXPECT_EQ(k["volta_sgemm_128x64_nn"][2], F3(30.0 * kSteps));
  EXPECT_EQ(k["bias_add_kernel"][2], F3(10.0 * kSteps));
  auto c = Table("copies-table");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c["HtoD"][1], std::to_string(kSteps));
  EXPECT_EQ(c["HtoD"][2], std::to_string(4096 * kSteps));
  // 4096 bytes in 10 us: 0.4096 GB/s.
  EXPECT_EQ(c["HtoD"][5], F3(0.4096));
}

TEST_F(Report, SummaryCountsStepsAndTheTitleIsEscaped) {
  EXPECT_NE(html_->find("<dt>steps</dt><dd>" + std::to_string(kSteps) + "</dd>"),
            std::string::npos);
  EXPECT_NE(html_->find("<dt>processes</dt><dd>1</dd>"), std::string::npos);
  EXPECT_NE(html_->find("<dt>devices</dt><dd>1 (2 streams or queues)</dd>"), std::string::npos);
  EXPECT_NE(html_->find("<h1>Job &lt;1&gt;</h1>"), std::string::npos);
  auto steps = Table("step-averages");
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps.begin()->first, std::to_string(kSteps));
}

TEST_F(Report, MemoryPeakPerAllocatorAndTheOpAtIt) {
  auto mem = Table("memory-peaks");
  ASSERT_EQ(mem.size(), 2u);
  // GPU_0_bfc: step i allocates (i + 1) KiB and the next step frees it after allocating its
  // own, so the peak is the last two together: (6 + 5) KiB, reached in the last MatMul.
  const auto& g = mem["GPU_0_bfc"];
  ASSERT_GE(g.size(), 9u);
  EXPECT_EQ(g[1], std::to_string(kSteps));
  EXPECT_EQ(g[2], std::to_string(kSteps - 1));
  EXPECT_EQ(g[4], std::to_string((2 * kSteps - 1) * 1024));
  EXPECT_EQ(g[6], "model/dense/MatMul:MatMul");
  EXPECT_EQ(g[8], "6.0 KiB");  // the last step's allocation is never freed
  // cpu: 512 (i + 1) bytes, freed at once inside Relu.
  const auto& c = mem["cpu"];
  EXPECT_EQ(c[4], std::to_string(512 * kSteps));
  EXPECT_EQ(c[6], "model/relu:Relu");
  EXPECT_EQ(c[8], "0 B");
  EXPECT_NE(html_->find("memory peak 11.0 KiB in allocator GPU_0_bfc reached during op "
                        "model/dense/MatMul:MatMul"),
            std::string::npos);
  EXPECT_NE(html_->find("peak 11.0 KiB in model/dense/MatMul:MatMul</text>"), std::string::npos);
}

TEST_F(Report, FindingsCarryTheStepViewsNumbers) {
  // The job's device is busy 50 us of each step and the host runs no op while it waits: the
  // waiting share, computed here from the step view, is in the finding.
  json j = Stats("step");
  double wait = 0, total = 0;
  for (const auto& r : j["rows"]) {
    wait += r["device_idle_waiting_micros"].get<double>();
    total += r["duration_micros"].get<double>();
  }
  ASSERT_GT(total, 0);
  char pct[160];
  std::snprintf(pct, sizeof pct, "device idle %.0f%% of step time while the host runs no op",
                100 * wait / total);
  EXPECT_NE(html_->find(pct), std::string::npos) << pct;
  EXPECT_EQ(html_->find("data-finding=\"dropped\""), std::string::npos);
  EXPECT_EQ(html_->find("data-finding=\"sync_copies\""), std::string::npos);
}

TEST_F(Report, ReferencesNothingOutside) {
  for (const char* bad : {"http:", "https:", "//", "src=", "<script", "<link", "url(", "@import"})
    EXPECT_EQ(html_->find(bad), std::string::npos) << bad;
  EXPECT_NE(html_->find("@media print"), std::string::npos);
}

TEST_F(Report, StepSelectionCountsOnlyTheChosenSteps) {
  TempDir out;
  auto r = RunCmd({TT_CLI, "report", dir_->path(), "-o", out / "r.html", "--steps", "2:3"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string html = ReadFile(out / "r.html");
  EXPECT_NE(html.find("<dt>steps</dt><dd>" + std::to_string(kSteps) + " (2 selected: steps 2:3)"),
            std::string::npos);
  EXPECT_NE(html.find("<table id=\"step-averages\"><thead>"), std::string::npos);
  EXPECT_NE(html.find("<tbody><tr><td class=\"n\">2</td>"), std::string::npos);
  // The ops table counts the two steps' ops only.
  EXPECT_NE(html.find("<td class=\"name\">MatMul</td><td class=\"n\">2</td>"), std::string::npos);
}

// `report` opens each stream file of the trace exactly once (one open(2) and one mapping per
// file, read by every pass through format::StreamFiles), with and without a step selection:
// in-process, the sequence cli::Report runs (OpenTrace, Summarise, LoadModel, BuildReport),
// counted by the reader's hooks. And how many decoders read each stream: the passes that need
// no steps share one scan, those that need them another.
TEST_F(Report, OpensEachStreamFileOnce) {
  std::mutex mu;
  std::map<std::string, int> opened, decoded;
  SetStreamReadHooks({[&](const std::string& p) {
                        std::lock_guard<std::mutex> l(mu);
                        opened[p]++;
                      },
                      [&](const std::string& p) {
                        std::lock_guard<std::mutex> l(mu);
                        decoded[p]++;
                      }});
  for (bool select : {false, true}) {
    opened.clear();
    decoded.clear();
    TraceDir trace = OpenTrace(dir_->path());
    model::TraceSummary sum;
    model::TraceModel m = model::LoadModel(trace, &sum);
    analysis::ReportOptions ro;
    ro.progress = [](const char*) {};
    if (select) ro.selection.steps = analysis::StepRange{2, 4};
    analysis::ReportData d = analysis::BuildReport(m, sum, ro);
    EXPECT_EQ(d.run.steps_found, static_cast<size_t>(kSteps));
    EXPECT_EQ(d.run.steps_selected, select ? 3u : static_cast<size_t>(kSteps));
    ASSERT_TRUE(d.timeline.has_value());
    std::set<std::string> streams;
    for (const auto& p : trace.processes) streams.insert(p.streams.begin(), p.streams.end());
    ASSERT_GE(streams.size(), 4u);  // a process stream, threads and GPU streams
    for (const auto& s : streams) EXPECT_EQ(opened[s], 1) << s << (select ? " (--steps)" : "");
    EXPECT_EQ(opened.size(), streams.size());
    // Decoders per stream: a host track, the model and inventory, the steps-and-memory scan,
    // the views' scan with the facts and timeline riding along (was 7); a device track, the
    // model and inventory, the views' scan (was 5); a process stream, OpenTrace's reading of
    // its event classes, the model and inventory (was 4). Then replay's own reading for "what
    // would help most" (analysis/replay: its steps, the graph's nodes, the collectives): three
    // more of a host track, two of a device track.
    std::set<std::string> tracks;
    for (const auto& t : m.tracks) {
      tracks.insert(t.file);
      int n = t.kind == layout::TrackKind::kDevice ? 2 + 2 : 3 + 3;
      EXPECT_EQ(decoded[t.file], n) << t.file << (select ? " (--steps)" : "");
    }
    for (const auto& s : streams) {
      if (tracks.count(s)) continue;
      EXPECT_EQ(decoded[s], 2) << s;
    }
  }
  SetStreamReadHooks({});
}

// LoadModel with an inventory reads each stream once for both and gives what LoadModel and
// Summarise give apart, damage included (a stream cut short).
TEST(ReportCli, ModelAndInventoryFromOneRead) {
  TempDir d;
  ASSERT_EQ(
      RunCmd({TT_SYNTHETIC, "4", "100", "2", "varied"}, {{"TENSORTRACE_DIR", d.path()}}).status, 0);
  TraceDir trace = OpenTrace(d.path());
  std::string cut;
  for (const auto& s : trace.processes[0].streams)
    if (s.find("/t") != std::string::npos) cut = s;
  ASSERT_FALSE(cut.empty());
  std::string bytes = ReadFile(cut);
  WriteFileAtomic(cut, bytes.substr(0, bytes.size() / 3 + 13));
  trace = OpenTrace(d.path());
  model::TraceSummary both;
  model::TraceModel m = model::LoadModel(trace, &both);
  model::TraceSummary sum = model::Summarise(OpenTrace(d.path()));
  model::TraceModel alone = model::LoadModel(OpenTrace(d.path()));
  auto texts = [](const std::vector<Problem>& v) {
    std::vector<std::string> o;
    for (const auto& p : v) o.push_back(p.ToString());
    return o;
  };
  EXPECT_FALSE(sum.problems.empty());
  EXPECT_EQ(texts(both.problems), texts(sum.problems));
  EXPECT_EQ(texts(m.problems), texts(alone.problems));
  EXPECT_EQ(both.events, sum.events);
  EXPECT_EQ(both.threads, sum.threads);
  EXPECT_EQ(both.bytes, sum.bytes);
  EXPECT_EQ(both.first_ns, sum.first_ns);
  EXPECT_EQ(both.last_ns, sum.last_ns);
  ASSERT_EQ(both.processes.size(), sum.processes.size());
  for (size_t i = 0; i < sum.processes.size(); ++i) {
    const auto &a = both.processes[i], &b = sum.processes[i];
    EXPECT_EQ(a.by_kind, b.by_kind);
    EXPECT_EQ(a.by_category, b.by_category);
    EXPECT_EQ(a.sources, b.sources);
    EXPECT_EQ(a.strings, b.strings);
    EXPECT_EQ(a.discarded, b.discarded);
    ASSERT_EQ(a.threads.size(), b.threads.size());
    for (size_t t = 0; t < a.threads.size(); ++t) {
      EXPECT_EQ(a.threads[t].name, b.threads[t].name);
      EXPECT_EQ(a.threads[t].events, b.threads[t].events);
      EXPECT_EQ(a.threads[t].last_ns, b.threads[t].last_ns);
    }
  }
  EXPECT_EQ(m.bytes, alone.bytes);
  ASSERT_EQ(m.tracks.size(), alone.tracks.size());
  for (size_t i = 0; i < m.tracks.size(); ++i) {
    EXPECT_EQ(m.tracks[i].file, alone.tracks[i].file);
    EXPECT_EQ(m.tracks[i].name, alone.tracks[i].name);
    EXPECT_EQ(m.tracks[i].id, alone.tracks[i].id);
    EXPECT_EQ(m.tracks[i].kind, alone.tracks[i].kind);
  }
  ASSERT_EQ(m.processes.size(), alone.processes.size());
  for (size_t i = 0; i < m.processes.size(); ++i)
    EXPECT_EQ(m.processes[i].names, alone.processes[i].names);
}

// The command itself, as strace sees it: each stream file is opened once.
TEST(ReportCli, OpensEachStreamFileOnce) {
  if (RunCmd({"sh", "-c", "command -v strace"}).status != 0) GTEST_SKIP() << "no strace";
  TempDir d;
  ASSERT_EQ(
      RunCmd({TT_SYNTHETIC, "4", "100", "2", "varied"}, {{"TENSORTRACE_DIR", d.path()}}).status, 0);
  std::string log = d / "strace.log";
  // LeakSanitizer cannot run under ptrace: the ASan build's leak check is off for this run.
  auto r = RunCmd({"strace", "-f", "-qq", "-e", "trace=open,openat", "-o", log, TT_CLI, "report",
                   d.path(), "-o", d / "r.html"},
                  {{"ASAN_OPTIONS", "detect_leaks=0"}});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string text = ReadFile(log);
  TraceDir trace = OpenTrace(d.path());
  size_t n = 0;
  for (const auto& p : trace.processes)
    for (const auto& s : p.streams) {
      size_t opens = 0;
      for (size_t at = 0; (at = text.find("\"" + s + "\"", at)) != std::string::npos; ++at) opens++;
      EXPECT_EQ(opens, 1u) << s;
      n++;
    }
  EXPECT_GE(n, 4u);
}

// A program with threads, fork and exec and no device, step, allocation or copy: each of those
// sections says so in words, and the timeline shows the first process's whole run.
TEST(ReportCli, SectionsWithoutDataSaySo) {
  TempDir d;
  auto r = RunCmd({TT_CLI, "record", "-o", d / "t", "--quiet", "--", TT_EXAMPLE, "50"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = RunCmd({TT_CLI, "report", d / "t", "-o", d / "r.html"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string html = ReadFile(d / "r.html");
  for (const char* none :
       {"No step-time breakdown: no steps in this trace", "No GPU kernels in this trace.",
        "No memory allocation events", "No memory copies or sets in this trace.",
        "No collectives in this trace"})
    EXPECT_NE(html.find(none), std::string::npos) << none;
  EXPECT_NE(html.find("<dt>devices</dt><dd>none traced</dd>"), std::string::npos);
  EXPECT_NE(html.find("<dt>processes</dt><dd>3</dd>"), std::string::npos);
  EXPECT_NE(html.find("Timeline of the first process"), std::string::npos);
  EXPECT_EQ(html.find("memory_peak"), std::string::npos);
  for (const char* f : {"straggler", "small_messages", "communication"})
    EXPECT_EQ(html.find("data-finding=\"" + std::string(f) + "\""), std::string::npos) << f;
  // Only the timeline is drawn: one chart.
  size_t charts = 0;
  for (size_t at = 0; (at = html.find("<svg", at)) != std::string::npos; ++at) charts++;
  EXPECT_EQ(charts, 1u);
}

// Each bad input: a non-zero exit, exactly one line on stderr, and no file left behind.
TEST(ReportCli, BadInputGivesOneLineAndNoFile) {
  TempDir tmp, empty, job;
  // An empty trace: a job of no step writes names and nothing else.
  ASSERT_EQ(RunCmd({TT_SYNTHETIC, "0"}, {{"TENSORTRACE_DIR", empty.path()}}).status, 0);
  ASSERT_EQ(RunCmd({TT_SYNTHETIC, "2"}, {{"TENSORTRACE_DIR", job.path()}}).status, 0);
  std::string out = tmp / "r.html";
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  std::vector<Case> cases = {
      {{tmp.path(), "-o", out}, "not a trace"},
      {{empty.path(), "-o", out}, "empty trace"},
      {{job.path(), "-o", tmp / "no/such/dir/r.html"}, "no/such/dir"},
      {{job.path(), "-o", tmp.path()}, "is a directory"},
      {{job.path()}, "-o PATH"},
      {{job.path(), "-o", out, "--steps", "50:60"}, "step"},
      {{job.path(), "-o", out, "--top", "x"}, "--top"},
      {{job.path(), "-o", out, "--bogus"}, "--bogus"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> a = {TT_CLI, "report"};
    a.insert(a.end(), c.args.begin(), c.args.end());
    auto r = RunCmd(a);
    EXPECT_NE(r.status, 0) << c.says;
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  // Nothing was left behind: no page, no temporary file.
  EXPECT_TRUE(ListDirectory(tmp.path()).empty());
  auto r = RunCmd({TT_CLI, "report", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("-o, --output PATH"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Findings from given numbers: each appears exactly when its condition holds.

analysis::StepBreakdown StepOf(uint64_t dur, uint64_t host_bound, uint64_t waiting) {
  analysis::StepBreakdown b;
  b.start = 1000;
  b.end = 1000 + dur;
  b.has_device = true;
  b.device_idle_host_bound = host_bound;
  b.device_idle_waiting = waiting;
  b.device_compute = dur - host_bound - waiting;
  return b;
}

std::map<std::string, std::string> ById(const std::vector<analysis::Finding>& f) {
  std::map<std::string, std::string> m;
  for (const auto& x : f) m[x.id] = x.text;
  return m;
}

TEST(Findings, HostBoundShortKernelsSyncCopiesAndDrops) {
  analysis::FindingInputs in;
  for (int i = 0; i < 4; ++i) in.steps.push_back(StepOf(1000000, 620000, 0));
  in.facts.kernels = 3010;
  in.facts.short_kernels = 1234;
  in.facts.sync_copies = 3;
  in.facts.sync_copy_ns = 4500;
  in.facts.in_steps = true;
  in.dropped = 17;
  auto f = ById(analysis::Findings(in));
  ASSERT_TRUE(f.count("host_bound"));
  EXPECT_NE(f["host_bound"].find("device idle 62% of step time"), std::string::npos)
      << f["host_bound"];
  EXPECT_NE(f["host_bound"].find("620.0 us of 1.00 ms per step"), std::string::npos);
  EXPECT_EQ(f.count("device_waiting"), 0u);
  ASSERT_TRUE(f.count("short_kernels"));
  EXPECT_NE(f["short_kernels"].find("1,234 kernels shorter than 10.0 us (41% of 3,010"),
            std::string::npos)
      << f["short_kernels"];
  EXPECT_NE(f["sync_copies"].find("3 synchronous copies inside steps (4.5 us"), std::string::npos)
      << f["sync_copies"];
  EXPECT_NE(f["dropped"].find("17 dropped events"), std::string::npos);
  EXPECT_EQ(f.count("slow_step"), 0u);  // all steps alike
}

TEST(Findings, NoneWhenNoConditionHolds) {
  analysis::FindingInputs in;
  for (int i = 0; i < 4; ++i) in.steps.push_back(StepOf(1000000, 100000, 100000));
  in.facts.kernels = 100;
  in.facts.short_kernels = 10;  // 10%: below the threshold
  EXPECT_TRUE(analysis::Findings(in).empty());
  in.steps[2] = StepOf(3000000, 100000, 100000);  // 3x the median
  auto f = ById(analysis::Findings(in));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f["slow_step"].find("took 3.00 ms, 3.0x the median step (1.00 ms)"), std::string::npos)
      << f["slow_step"];
}

// ---------------------------------------------------------------------------------------------
// Headless Chromium: the page loads with no console error, the DOM holds the tables, and the
// screenshot shows a drawn page.

// Debian's chromium, found in PATH.
bool HaveChromium() { return RunCmd({"chromium", "--version"}, {}, 60).status == 0; }

// Decodes an 8-bit RGB or RGBA PNG (what Chromium writes) into RGB triples.
std::vector<uint32_t> DecodePng(const std::string& png, uint32_t* w, uint32_t* h) {
  auto be32 = [&](size_t at) {
    return uint32_t(uint8_t(png[at])) << 24 | uint32_t(uint8_t(png[at + 1])) << 16 |
           uint32_t(uint8_t(png[at + 2])) << 8 | uint32_t(uint8_t(png[at + 3]));
  };
  if (png.size() < 33 || png.compare(1, 3, "PNG") != 0) return {};
  std::string idat;
  int bit_depth = 0, colour = 0;
  for (size_t at = 8; at + 8 <= png.size();) {
    uint32_t len = be32(at);
    std::string type = png.substr(at + 4, 4);
    if (type == "IHDR") {
      *w = be32(at + 8);
      *h = be32(at + 12);
      bit_depth = uint8_t(png[at + 16]);
      colour = uint8_t(png[at + 17]);
    } else if (type == "IDAT") {
      idat += png.substr(at + 8, len);
    }
    at += 12 + len;
  }
  if (bit_depth != 8 || (colour != 2 && colour != 6)) return {};
  size_t bpp = colour == 6 ? 4 : 3, stride = *w * bpp;
  std::vector<uint8_t> raw((stride + 1) * *h);
  uLongf n = raw.size();
  if (uncompress(raw.data(), &n, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK)
    return {};
  std::vector<uint8_t> img(stride * *h), prev(stride, 0);
  for (uint32_t y = 0; y < *h; ++y) {
    uint8_t f = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* out = &img[y * stride];
    for (size_t x = 0; x < stride; ++x) {
      int a = x >= bpp ? out[x - bpp] : 0, b = prev[x], c = x >= bpp ? prev[x - bpp] : 0;
      int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
      int pred = f == 0                   ? 0
                 : f == 1                 ? a
                 : f == 2                 ? b
                 : f == 3                 ? (a + b) / 2
                 : (pa <= pb && pa <= pc) ? a
                 : pb <= pc               ? b
                                          : c;
      out[x] = uint8_t(in[x] + pred);
    }
    std::copy(out, out + stride, prev.begin());
  }
  std::vector<uint32_t> px;
  for (size_t i = 0; i + bpp <= img.size(); i += bpp)
    px.push_back(uint32_t(img[i]) << 16 | uint32_t(img[i + 1]) << 8 | img[i + 2]);
  return px;
}

TEST_F(Report, ChromiumLoadsAndDrawsThePage) {
  if (!HaveChromium()) GTEST_SKIP() << "chromium is not installed";
  std::string url = "file://" + *out_ / "r.html";
  std::vector<std::string> base = {"chromium", "--headless", "--no-sandbox", "--disable-gpu",
                                   "--user-data-dir=" + *out_ / "profile"};
  auto dom_args = base;
  dom_args.insert(dom_args.end(), {"--enable-logging=stderr", "--v=0", "--dump-dom", url});
  auto dom = RunCmd(dom_args, {}, 90);
  ASSERT_EQ(dom.status, 0) << dom.err;
  EXPECT_EQ(dom.err.find("CONSOLE"), std::string::npos) << dom.err;
  EXPECT_EQ(dom.err.find("Uncaught"), std::string::npos) << dom.err;
  EXPECT_NE(dom.out.find("<table id=\"top-ops\">"), std::string::npos);
  EXPECT_NE(dom.out.find("MatMul"), std::string::npos);
  EXPECT_NE(dom.out.find("</footer>"), std::string::npos);  // the whole page was parsed
  auto shot_args = base;
  std::string png = *out_ / "shot.png";
  shot_args.insert(shot_args.end(), {"--screenshot=" + png, "--window-size=1200,2400", url});
  auto shot = RunCmd(shot_args, {}, 90);
  ASSERT_EQ(shot.status, 0) << shot.err;
  uint32_t w = 0, h = 0;
  std::vector<uint32_t> px = DecodePng(ReadFile(png), &w, &h);
  ASSERT_EQ(px.size(), size_t{1200} * 2400) << "could not decode " << png;
  std::set<uint32_t> colours(px.begin(), px.end());
  size_t ink = 0;
  for (uint32_t p : px) ink += p != 0xffffff;
  EXPECT_GE(colours.size(), 50u);
  EXPECT_GE(ink, px.size() / 50);  // text, tables and charts
}

}  // namespace
}  // namespace tt

namespace tt {
namespace {

// Records `sh -c script` into d/t and reports it; the report's HTML and its run summary's
// command lines (*commands).
std::string ReportOfShell(const test::TempDir& d, const std::string& script, size_t* commands) {
  auto r =
      test::RunCmd({TT_CLI, "record", "-o", d / "t", "--quiet", "--", "/bin/sh", "-c", script});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(test::RunCmd({TT_CLI, "report", d / "t", "-o", d / "r.html"}).status, 0);
  std::string html = ReadFile(d / "r.html");
  *commands = 0;
  for (size_t at = html.find("<dt>command</dt>"); at != std::string::npos;
       at = html.find("<dt>command</dt>", at + 1))
    ++*commands;
  return html;
}

// A shim that exec's into the program, and a helper that traces nothing: the run summary names
// the program once and counts the others.
TEST(ReportCli, ExecChainsAreTheProcessTheyBecame) {
  test::TempDir d;
  size_t commands = 0;
  std::string html =
      ReportOfShell(d, "/bin/true; exec " + std::string(TT_PROGRAM) + " leaf 200", &commands);
  EXPECT_EQ(commands, 1u) << html.substr(0, 3000);
  EXPECT_NE(html.find("leaf 200</dd>"), std::string::npos);
  EXPECT_NE(html.find("<dt>other processes</dt><dd>2 with no traced events"), std::string::npos)
      << html.substr(0, 3000);
}

// Many processes with events (torch.compile's workers, DataLoader's): the run summary lists
// the four busiest commands and counts the others.
TEST(ReportCli, ManyProcessesListTheBusiestAndCountTheRest) {
  test::TempDir d;
  std::string many;
  for (int i = 0; i < 6; ++i) many += std::string(TT_PROGRAM) + " leaf 100 & ";
  size_t commands = 0;
  std::string html = ReportOfShell(d, many + "wait", &commands);
  EXPECT_EQ(commands, 4u) << html.substr(0, 3000);
  EXPECT_NE(html.find("<dt>more processes</dt><dd>2 with fewer events"), std::string::npos)
      << html.substr(0, 3000);
}

}  // namespace
}  // namespace tt
