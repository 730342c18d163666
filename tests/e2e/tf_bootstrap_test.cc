// The Python bootstrap (python/tensortrace/) under `tensortrace record`: TensorFlow's and JAX's
// own profilers started in unchanged programs, stopped at exit, on SIGTERM and on an uncaught
// exception, stepping aside for the program's own profiler; record's options for it, and the
// framework lines of `tensortrace info`. TensorFlow takes seconds to import: few runs.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/files.h"
#include "format/proto/xplane.pb.h"
#include "test_util.h"
#include "trace_view.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using test::Program;
using test::HaveModule;
using test::Python;
using test::RunCmd;
using test::TempDir;

// What TensorFlow does by default depends on the CPU (oneDNN is on by default only with
// AVX-512): the TensorFlow recordings here pin it off, so every machine runs the same code
// (tf_workloads_test and tf_memory_test record with it on).
const std::map<std::string, std::string> kOneDnnOff = {{"TF_ENABLE_ONEDNN_OPTS", "0"}};

std::vector<std::string> Record(const std::string& dir, std::vector<std::string> opts,
                                std::vector<std::string> cmd) {
  std::vector<std::string> a{TT_CLI, "record", "-o", dir};
  a.insert(a.end(), opts.begin(), opts.end());
  a.push_back("--");
  a.insert(a.end(), cmd.begin(), cmd.end());
  return a;
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

// The one xspace/<pid>/ directory of a trace.
std::string OnlyCaptureDir(const std::string& trace) {
  std::vector<std::string> dirs;
  for (const auto& e : fs::directory_iterator(trace + "/xspace")) dirs.push_back(e.path());
  EXPECT_EQ(dirs.size(), 1u);
  return dirs.empty() ? "" : dirs[0];
}

std::vector<std::string> XplaneFiles(const std::string& dir) {
  std::vector<std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().string().ends_with(".xplane.pb")) files.push_back(e.path());
  return files;
}

struct XSpaceCounts {
  bool host_plane = false;
  size_t op_events = 0;  // events whose name is "node:OpType"
  std::set<std::string> op_types;
};

XSpaceCounts Decode(const std::string& file) {
  tensorflow::profiler::XSpace space;
  std::ifstream in(file, std::ios::binary);
  EXPECT_TRUE(space.ParseFromIstream(&in)) << file;
  XSpaceCounts c;
  for (const auto& plane : space.planes()) {
    if (plane.name() == "/host:CPU") c.host_plane = true;
    for (const auto& line : plane.lines())
      for (const auto& ev : line.events()) {
        auto it = plane.event_metadata().find(ev.metadata_id());
        if (it == plane.event_metadata().end()) continue;
        const std::string& name = it->second.name();
        size_t colon = name.rfind(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == name.size()) continue;
        std::string type = name.substr(colon + 1);
        // An op type is an identifier ("MatMul", oneDNN's "_MklMatMul"); "Iterator::Map" is not.
        if (!std::all_of(type.begin(), type.end(),
                         [](unsigned char ch) { return std::isalnum(ch) || ch == '_'; }))
          continue;
        ++c.op_events;
        c.op_types.insert(type);
      }
  }
  return c;
}

size_t CountSubstr(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(TfBootstrap, KerasFitIsCapturedWithTheFrameworksOwnProfiler) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  auto r = RunCmd(Record(d / "t", {"--steps", "2:5", "--tf-host-level", "2"},
                         {Python(), Program("keras_job.py")}),
                  kOneDnnOff, 110);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "done\n");
  EXPECT_EQ(r.err.find("tensortrace: warning"), std::string::npos) << r.err;
  std::string cap = OnlyCaptureDir(d / "t");
  auto j = ReadJson(cap + "/capture.json");
  EXPECT_EQ(j["status"], "captured") << j.dump();
  EXPECT_EQ(j["framework"], "tensorflow");
  auto version = RunCmd({Python(), "-c",
                         "import importlib.metadata as m\n"
                         "for d in ('tensorflow', 'tensorflow-cpu'):\n"
                         "  try: print(m.version(d)); break\n"
                         "  except m.PackageNotFoundError: pass"});
  std::string v = version.out.substr(0, version.out.find('\n'));
  EXPECT_EQ(j["version"], v);
  EXPECT_EQ(j["pid"], std::stoll(fs::path(cap).filename().string()));
  EXPECT_EQ(j["steps"], "2:5");
  EXPECT_EQ(j["host_tracer_level"], 2);
  EXPECT_EQ(j["python_tracer"], false);
  EXPECT_EQ(j["windows"], 1);
  auto files = XplaneFiles(cap);
  ASSERT_EQ(files.size(), 1u);
  auto c = Decode(files[0]);
  EXPECT_TRUE(c.host_plane);
  EXPECT_GT(c.op_events, 0u);
  // The Dense layers' MatMul (oneDNN builds rename it _MklMatMul, _MklNativeFusedMatMul).
  EXPECT_TRUE(
      std::any_of(c.op_types.begin(), c.op_types.end(),
                  [](const std::string& t) { return t.find("MatMul") != std::string::npos; }))
      << "no MatMul op among " << c.op_types.size() << " op types";

  // info shows the framework of that process.
  auto info = RunCmd({TT_CLI, "info", d / "t", "--json"});
  ASSERT_EQ(info.status, 0) << info.err;
  auto ij = nlohmann::json::parse(info.out);
  size_t found = 0;
  for (const auto& p : ij["processes"])
    for (const auto& f : p["frameworks"]) {
      ++found;
      EXPECT_EQ(p["pid"], j["pid"]);
      EXPECT_EQ(f["framework"], "tensorflow");
      EXPECT_EQ(f["version"], v);
      EXPECT_EQ(f["status"], "captured");
      EXPECT_EQ(f["xplane_files"], 1);
    }
  EXPECT_EQ(found, 1u);
  auto text = RunCmd({TT_CLI, "info", d / "t"});
  EXPECT_NE(text.out.find("framework  tensorflow " + v + ": captured, 1 window"), std::string::npos)
      << text.out;
}

TEST(TfBootstrap, ProgramsOwnProfilerWinsWithOneWarning) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  auto r =
      RunCmd(Record(d / "t", {}, {Python(), Program("keras_job.py"), "--own-profile", d / "own"}),
             kOneDnnOff, 110);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(CountSubstr(r.err, "tensortrace: warning"), 1u) << r.err;
  EXPECT_NE(r.err.find("tf.profiler.experimental.start"), std::string::npos) << r.err;
  auto own = XplaneFiles(d / "own");
  ASSERT_EQ(own.size(), 1u) << "the program's own profile is missing";
  EXPECT_GT(Decode(own[0]).op_events, 0u);
  std::string cap = OnlyCaptureDir(d / "t");
  auto j = ReadJson(cap + "/capture.json");
  EXPECT_EQ(j["status"], "stepped_aside") << j.dump();
  EXPECT_EQ(j["windows"], 1);
  EXPECT_EQ(XplaneFiles(cap).size(), 1u);  // what ours captured before stepping aside
}

TEST(TfBootstrap, UncaughtExceptionKeepsExitStatusAndCapture) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  auto r =
      RunCmd(Record(d / "t", {}, {Python(), Program("keras_job.py"), "--raise"}), kOneDnnOff, 110);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("RuntimeError: keras_job: raising as asked"), std::string::npos) << r.err;
  std::string cap = OnlyCaptureDir(d / "t");
  auto j = ReadJson(cap + "/capture.json");
  EXPECT_EQ(j["status"], "captured") << j.dump();
  EXPECT_NE(j["message"].get<std::string>().find("RuntimeError"), std::string::npos);
  auto files = XplaneFiles(cap);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_GT(Decode(files[0]).op_events, 0u);
}

TEST(TfBootstrap, SigtermWritesTheCaptureInWindows) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  int out = -1;
  int pid = test::Spawn(
      Record(d / "t", {"--window-s", "1"}, {Python(), Program("keras_job.py"), "--sleep", "30"}),
      &out, kOneDnnOff);
  std::string line = test::ReadLine(out, 100);
  EXPECT_EQ(line.substr(0, 8), "training");
  // Two windows written while the program runs (the test waits for their files, whatever the
  // time they take), then SIGTERM writes the third.
  for (int i = 0; i < 1200 && XplaneFiles(d / "t/xspace").size() < 2; ++i) usleep(50000);
  ASSERT_GE(XplaneFiles(d / "t/xspace").size(), 2u);
  kill(pid, SIGTERM);
  EXPECT_EQ(test::Wait(pid), 128 + SIGTERM);
  close(out);
  std::string cap = OnlyCaptureDir(d / "t");
  auto j = ReadJson(cap + "/capture.json");
  EXPECT_EQ(j["status"], "captured") << j.dump();
  EXPECT_EQ(j["message"], "stopped by signal SIGTERM");
  EXPECT_EQ(j["window_s"], 1.0);
  int64_t windows = j["windows"];
  EXPECT_GE(windows, 3);  // the two waited for, and the one SIGTERM ended
  // One run directory per window, each with its XSpace.
  EXPECT_EQ(XplaneFiles(cap).size(), static_cast<size_t>(windows));
}

TEST(TfBootstrap, NonFrameworkProgramIsLeftAloneAndUserSitecustomizeRuns) {
  REQUIRE_MODULE("tensorflow");  // only to say the bootstrap is meant to work here
  TempDir d;
  fs::create_directories(d / "user");
  std::ofstream(d / "user/sitecustomize.py") << "print('user sitecustomize ran')\n";
  const std::string prog = "import sys; print(sorted(sys.modules))";
  std::map<std::string, std::string> env{{"PYTHONPATH", d / "user"}};
  auto plain = RunCmd({Python(), "-c", prog}, env);
  auto r = RunCmd(Record(d / "t", {}, {Python(), "-c", prog}), env);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(r.out.rfind("user sitecustomize ran\n", 0), 0u) << r.out;
  EXPECT_FALSE(PathExists(d / "t/xspace"));
  // The bootstrap imports nothing but itself before a framework is imported, and ctypes: the
  // Python sampler (sampler.py) reaches the preloaded runtime through it.
  auto modules = [](const std::string& out) {
    std::string line = out.substr(out.find('\n') + 1);
    std::set<std::string> s;
    for (size_t p = line.find('\''); p != std::string::npos; p = line.find('\'', p + 1)) {
      size_t q = line.find('\'', p + 1);
      s.insert(line.substr(p + 1, q - p - 1));
      p = q;
    }
    return s;
  };
  auto with = modules(r.out), without = modules(plain.out);
  EXPECT_TRUE(without.count("sitecustomize"));
  for (const auto& m : with) {
    if (!without.count(m) && m.rfind("ctypes", 0) != 0 && m != "_ctypes") {
      EXPECT_EQ(m.rfind("_tensortrace", 0), 0u) << m << " was imported";
    }
  }
}

TEST(TfBootstrap, JaxIsCapturedAndStepsAsideForItsOwnTrace) {
  REQUIRE_MODULE("jax");
  TempDir d;
  auto r = RunCmd(Record(d / "t", {}, {Python(), Program("jax_job.py"), "--own-trace", d / "own"}),
                  {}, 110);
  ASSERT_EQ(r.status, 0) << r.err;
  // Ours starts only once the program has set up JAX's backends itself.
  EXPECT_EQ(r.out.rfind("backends before first use: False\ndone ", 0), 0u) << r.out;
  EXPECT_EQ(CountSubstr(r.err, "tensortrace: warning"), 1u) << r.err;
  EXPECT_NE(r.err.find("jax.profiler.start_trace"), std::string::npos) << r.err;
  EXPECT_EQ(XplaneFiles(d / "own").size(), 1u);
  std::string cap = OnlyCaptureDir(d / "t");
  auto j = ReadJson(cap + "/capture.json");
  EXPECT_EQ(j["framework"], "jax");
  EXPECT_EQ(j["status"], "stepped_aside") << j.dump();
  EXPECT_EQ(j["windows"], 1);
  auto files = XplaneFiles(cap);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(Decode(files[0]).host_plane);
}

TEST(TfBootstrap, JaxSigintEndsAsBeforeAndSigkillLeavesAnErrorStatus) {
  REQUIRE_MODULE("jax");
  TempDir d;
  // SIGINT: Python's own handler raises KeyboardInterrupt; the capture is written on the way
  // out and the process still ends by SIGINT.
  int out = -1;
  int pid =
      test::Spawn(Record(d / "int", {}, {Python(), Program("jax_job.py"), "--sleep", "60"}), &out);
  EXPECT_EQ(test::ReadLine(out, 100).substr(0, 26), "backends before first use:");
  EXPECT_EQ(test::ReadLine(out, 100).substr(0, 8), "running ");
  kill(pid, SIGINT);
  EXPECT_EQ(test::Wait(pid), 128 + SIGINT);
  close(out);
  auto j = ReadJson(OnlyCaptureDir(d / "int") + "/capture.json");
  EXPECT_EQ(j["status"], "captured") << j.dump();
  EXPECT_EQ(j["message"], "stopped by an uncaught KeyboardInterrupt");
  EXPECT_EQ(XplaneFiles(d / "int/xspace").size(), 1u);

  // SIGKILL: nothing can be written; capture.json says so.
  pid =
      test::Spawn(Record(d / "kill", {}, {Python(), Program("jax_job.py"), "--sleep", "60"}), &out);
  test::ReadLine(out, 100);  // backends before first use: ...
  std::string line = test::ReadLine(out, 100);
  ASSERT_EQ(line.substr(0, 8), "running ");
  kill(std::stoi(line.substr(8)), SIGKILL);
  EXPECT_EQ(test::Wait(pid), 128 + SIGKILL);
  close(out);
  j = ReadJson(OnlyCaptureDir(d / "kill") + "/capture.json");
  EXPECT_EQ(j["status"], "error") << j.dump();
  EXPECT_NE(j["message"].get<std::string>().find("SIGKILL"), std::string::npos);
  EXPECT_EQ(XplaneFiles(d / "kill/xspace").size(), 0u);
}

// Run without record (the environment record would set, made bad on purpose): the program
// runs as it would without us, and the bootstrap says what went wrong in one line.
TEST(TfBootstrap, BootstrapErrorsAreOneLineAndNeverFailTheProgram) {
  REQUIRE_MODULE("jax");
  TempDir d;
  std::ofstream(d / "file") << "not a directory";
  const std::string boot = fs::path(TT_CLI).parent_path() / "python/tensortrace/boot";
  ASSERT_TRUE(PathExists(boot + "/sitecustomize.py"));
  for (const auto& env : std::vector<std::map<std::string, std::string>>{
           {{"TENSORTRACE_DIR", d / "file"}, {"PYTHONPATH", boot}},
           {{"TENSORTRACE_DIR", d / "t"}, {"TENSORTRACE_WINDOW_S", "0.1"}, {"PYTHONPATH", boot}}}) {
    auto r = RunCmd({Python(), Program("jax_job.py")}, env, 110);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\ndone "), std::string::npos) << r.out;
    EXPECT_EQ(CountSubstr(r.err, "tensortrace: warning"), 1u) << r.err;
  }
  EXPECT_FALSE(PathExists(d / "t/xspace"));
}

TEST(TfBootstrap, BadOptionValuesGiveOneLine) {
  TempDir d;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--tf-host-level", "4"}, "--tf-host-level"},
      {{"--tf-host-level", "two"}, "--tf-host-level"},
      {{"--tf-host-level"}, "--tf-host-level"},
      {{"--steps", "5:2"}, "--steps"},
      {{"--steps", "a:b"}, "--steps"},
      {{"--window-s", "0.5"}, "--window-s"},
      {{"--window-s", "-3"}, "--window-s"},
      {{"--window-s", "x"}, "--window-s"},
      {{"--tf-cpu-allocator", "pool"}, "--tf-cpu-allocator"},
      {{"--tf-cpu-allocator"}, "--tf-cpu-allocator"},
  };
  for (const auto& [opts, name] : cases) {
    auto r = RunCmd(Record(d / "t", opts, {TT_PROGRAM, "exit", "0"}));
    EXPECT_NE(r.status, 0) << opts[0];
    EXPECT_EQ(test::CountLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
    EXPECT_FALSE(PathExists(d / "t/tensortrace.json"));
  }
  auto help = RunCmd({TT_CLI, "record", "--help"});
  EXPECT_EQ(help.status, 0);
  for (const char* o :
       {"--tf-host-level", "--python-tracer", "--steps", "--window-s", "--tf-cpu-allocator"})
    EXPECT_NE(help.out.find(o), std::string::npos) << o;
}

// info reads capture.json and import.json as they are; broken ones are named, not fatal.
// The step_num of every "train" step marker in an XSpace file.
std::set<int64_t> XSpaceStepNumbers(const std::string& file) {
  tensorflow::profiler::XSpace space;
  std::ifstream in(file, std::ios::binary);
  EXPECT_TRUE(space.ParseFromIstream(&in)) << file;
  std::set<int64_t> out;
  for (const auto& plane : space.planes())
    for (const auto& line : plane.lines())
      for (const auto& ev : line.events()) {
        auto md = plane.event_metadata().find(ev.metadata_id());
        if (md == plane.event_metadata().end() || md->second.name() != "train") continue;
        for (const auto& st : ev.stats())
          if (plane.stat_metadata().at(st.metadata_id()).name() == "step_num")
            out.insert(st.has_int64_value() ? st.int64_value()
                                            : static_cast<int64_t>(st.uint64_value()));
      }
  return out;
}

// --steps A:B in a real TensorFlow capture (steps marked with their numbers, 0 to 7): the
// profile holds every step, the trace only steps 2 to 5.
TEST(TfBootstrap, StepsKeepsOnlyThoseStepsOfARealCapture) {
  REQUIRE_MODULE("tensorflow");
  TempDir d;
  auto r =
      RunCmd(Record(d / "t", {"--steps", "2:5"}, {Python(), Program("tf_profile_job.py"), "8"}),
             {{"TF_ENABLE_ONEDNN_OPTS", "0"}}, 110);
  ASSERT_EQ(r.status, 0) << r.err;
  std::string cap = OnlyCaptureDir(d / "t");
  std::set<int64_t> in_profile;
  for (const auto& f : XplaneFiles(cap)) in_profile.merge(XSpaceStepNumbers(f));
  EXPECT_EQ(in_profile, (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(ReadJson(cap + "/import.json")["steps"], 4);
  auto steps = RunCmd({TT_CLI, "stats", d / "t", "--view", "step", "--json"});
  ASSERT_EQ(steps.status, 0) << steps.err;
  auto sj = nlohmann::json::parse(steps.out);
  std::set<int64_t> in_trace;
  for (const auto& row : sj["rows"]) in_trace.insert(row["step"].get<int64_t>());
  EXPECT_EQ(in_trace, (std::set<int64_t>{2, 3, 4, 5})) << steps.out;
}

// Events of the framework's Python tracer: named "$" and the function.
size_t PythonFunctionEvents(const std::string& file) {
  tensorflow::profiler::XSpace space;
  std::ifstream in(file, std::ios::binary);
  EXPECT_TRUE(space.ParseFromIstream(&in)) << file;
  size_t n = 0;
  for (const auto& plane : space.planes())
    for (const auto& line : plane.lines())
      for (const auto& ev : line.events()) {
        auto md = plane.event_metadata().find(ev.metadata_id());
        n += md != plane.event_metadata().end() && md->second.name().starts_with("$");
      }
  return n;
}

// --python-tracer: JAX applies it; the Python functions' events are in its profile and in the
// trace, and without the option in neither. (--tf-host-level has no visible effect in this JAX
// program: levels 1 and 3 give the same events, so only capture.json is checked for it.)
TEST(TfBootstrap, PythonTracerAddsPythonFunctionEvents) {
  REQUIRE_MODULE("jax");
  for (bool tracer : {false, true}) {
    SCOPED_TRACE(tracer ? "--python-tracer" : "without");
    TempDir d;
    std::vector<std::string> opts = {"--tf-host-level", "3"};
    if (tracer) opts.push_back("--python-tracer");
    auto r = RunCmd(Record(d / "t", opts, {Python(), Program("jax_job.py")}), {}, 110);
    ASSERT_EQ(r.status, 0) << r.err;
    std::string cap = OnlyCaptureDir(d / "t");
    auto j = ReadJson(cap + "/capture.json");
    EXPECT_EQ(j["python_tracer"], tracer);
    EXPECT_EQ(j["host_tracer_level"], 3);
    auto files = XplaneFiles(cap);
    ASSERT_EQ(files.size(), 1u);
    size_t in_profile = PythonFunctionEvents(files[0]);
    size_t in_trace = 0;
    for (const auto& p : test::LoadTrace(d / "t").procs)
      for (const auto& e : p.events)
        in_trace += (e.id == layout::kSliceBegin || e.id == layout::kSliceBeginArgs ||
                     e.id == layout::kComplete) &&
                    e.name.starts_with("$");
    if (tracer) {
      EXPECT_GT(in_profile, 10u);
      EXPECT_GT(in_trace, 10u);
    } else {
      EXPECT_EQ(in_profile, 0u);
      EXPECT_EQ(in_trace, 0u);
    }
  }
}

TEST(TfBootstrap, InfoShowsCaptureAndImportPerProcess) {
  TempDir d;
  ASSERT_EQ(RunCmd(Record(d / "t", {}, {TT_PROGRAM, "exit", "0"})).status, 0);
  auto ij = nlohmann::json::parse(RunCmd({TT_CLI, "info", d / "t", "--json"}).out);
  int64_t pid = ij["processes"][0]["pid"];
  std::string cap = d / ("t/xspace/" + std::to_string(pid));
  fs::create_directories(cap + "/plugins/profile/run1");
  std::ofstream(cap + "/plugins/profile/run1/h.xplane.pb") << "";
  std::ofstream(cap + "/capture.json")
      << R"({"pid": )" << pid
      << R"(, "framework": "jax", "version": "9.9", "host_tracer_level": 3, "python_tracer": true,
            "steps": "1:4", "window_s": null, "windows": 2, "status": "captured", "message": "m"})";
  std::ofstream(cap + "/import.json")
      << R"({"files": 2, "events": 1234, "tracks": 7, "steps": 4, "errors": ["bad thing"]})";
  fs::create_directories(d / "t/xspace/999999999");
  std::ofstream(d / "t/xspace/999999999/capture.json") << "{not json";

  auto r = RunCmd({TT_CLI, "info", d / "t", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["processes"][0]["frameworks"].size(), 1u);
  const auto& f = j["processes"][0]["frameworks"][0];
  EXPECT_EQ(f["framework"], "jax");
  EXPECT_EQ(f["version"], "9.9");
  EXPECT_EQ(f["windows"], 2);
  EXPECT_EQ(f["xplane_files"], 1);
  EXPECT_EQ(f["import"]["events"], 1234);
  EXPECT_EQ(f["import"]["errors"][0], "bad thing");
  ASSERT_EQ(j["frameworks_without_process"].size(), 1u);
  EXPECT_EQ(j["frameworks_without_process"][0]["status"], "unknown");
  EXPECT_EQ(j["frameworks_without_process"][0]["problems"].size(), 1u);

  auto t = RunCmd({TT_CLI, "info", d / "t"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("framework  jax 9.9: captured, 2 windows, 1 XSpace file(s), host level 3, "
                       "Python tracer, steps 1:4 (m)"),
            std::string::npos)
      << t.out;
  EXPECT_NE(t.out.find("imported   2 file(s), 1234 events, 7 tracks, 4 step events, 1 error(s)"),
            std::string::npos)
      << t.out;
  EXPECT_NE(t.out.find("import error: bad thing"), std::string::npos);
  EXPECT_NE(t.out.find("999999999/capture.json: not a JSON object"), std::string::npos) << t.out;
}

}  // namespace
}  // namespace tt
