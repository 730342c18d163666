// A PyTorch profile read as a stream (format/import/kineto/stream.h): the header around the
// events, each event in order, damage as one line; and record's import of a large one, whole
// or stopped at its memory budget (--import-max-memory) with the program's status and the trace
// kept (issue 40: a 500 MB Kineto JSON once took 5.18 GB).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "core/error.h"
#include "core/files.h"
#include "format/import/kineto/header_scan.h"
#include "format/import/kineto/read_ahead.h"
#include "format/import/kineto/stream.h"
#include "test_util.h"

namespace tt {
namespace {

using test::RunCmd;
using test::TempDir;

std::vector<kineto::json> Events(const std::string& path, kineto::json* header) {
  std::vector<kineto::json> out;
  kineto::EventFn each = [&](const kineto::json& e) { out.push_back(e); };
  kineto::ReadKinetoFile(path, 1 << 20, header, &each);
  return out;
}

TEST(KinetoStream, HeaderAroundTheEventsAndEachEventInOrder) {
  TempDir d;
  WriteFileAtomic(d / "a.json",
                  R"({"schemaVersion": 1, "distributedInfo": {"rank": 1, "pg": [1, {"x": null}]},
                      "traceEvents": [{"name": "a", "args": {"dims": [[1, 2], []]}}, 7, [1],
                                      {"name": "b", "ts": 1.5}],
                      "baseTimeNanoseconds": 123456789012})",
                  false);
  kineto::json header;
  auto ev = Events(d / "a.json", &header);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0]["name"], "a");
  EXPECT_EQ(ev[0]["args"]["dims"], kineto::json::parse("[[1, 2], []]"));
  EXPECT_EQ(ev[1]["ts"], 1.5);
  EXPECT_EQ(header["baseTimeNanoseconds"], 123456789012u);
  EXPECT_EQ(header["distributedInfo"]["pg"], kineto::json::parse(R"([1, {"x": null}])"));
  EXPECT_EQ(header.count("traceEvents"), 0u);
  // The header alone: no event built.
  kineto::json only;
  kineto::ReadKinetoFile(d / "a.json", 1 << 20, &only, nullptr);
  EXPECT_EQ(only, header);
}

// The header found by a scan of the bytes (header_scan.h) is the full parser's: strings with
// brackets, quotes and escapes inside and outside the events, a key "traceEvents" inside an
// event, fields before and after; where the scan cannot tell (two traceEvents arrays, the
// array open at the end), it says so and the full parser decides.
TEST(KinetoStream, HeaderScanAgreesWithTheFullParse) {
  TempDir d;
  const std::string texts[] = {
      R"({"a": "x]\"[{", "traceEvents": [{"name": "]\\\"}", "traceEvents": [1]}, "[["],
         "b": {"c": ["]"]}, "baseTimeNanoseconds": 5})",
      R"( {"traceEvents":[],"z":[{"traceEvents":{}}]} )",
      R"({"traceEvents": [{"name": "a"}], "traceEvents": [], "k": 1})",
      R"({"traceEvents": [{"name": "a"}, )",
  };
  const bool scanned[] = {true, true, false, false};
  for (size_t i = 0; i < std::size(texts); ++i) {
    SCOPED_TRACE(texts[i]);
    WriteFileAtomic(d / "h.json", texts[i], false);
    kineto::json scan;
    int fd = open((d / "h.json").c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(kineto::ScanKinetoHeader(fd, 1 << 20, &scan), scanned[i]);
    close(fd);
    if (!scanned[i]) continue;
    kineto::json full;
    kineto::EventFn none = [](const kineto::json&) {};
    kineto::ReadKinetoFile(d / "h.json", 1 << 20, &full, &none);  // the full parser's header
    EXPECT_EQ(scan, full);
  }
}

TEST(KinetoStream, DamageIsOneLine) {
  TempDir d;
  auto error = [&](const std::string& text) {
    WriteFileAtomic(d / "b.json", text, false);
    kineto::json h;
    try {
      Events(d / "b.json", &h);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("").find("empty file; skipped"), std::string::npos);
  EXPECT_NE(error(R"({"traceEvents": [{"name": "a"}, {"na)").find("not JSON at byte"),
            std::string::npos);
  EXPECT_NE(error("[1, 2]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(error(R"({"traceEvents": 5})").find("no traceEvents array"), std::string::npos);
  EXPECT_NE(error(R"({"x": 1})").find("no traceEvents array"), std::string::npos);
}

// The scan's own parse of each event (header_scan.cc) gives nlohmann's value for what it
// reads itself (ASCII strings, numbers of every kind, literals) and hands the rest to nlohmann
// (escapes, \u sequences and surrogate pairs, UTF-8, deep nesting); events straddling the
// 1 MiB read buffer (a 3 MB string) are whole.
TEST(KinetoStream, EventsParsedFromTheirBytesAreTheParsersValues) {
  TempDir d;
  std::string text = R"({"schemaVersion": 1, "traceEvents": [)";
  const std::string events[] = {
      R"({"name": "a\"b\\\u00e9\ud83d\ude00\n", "ts": 1.5e3, "dur": -0, "n": -12, "z": 0})",
      R"({"u": 18446744073709551615, "big": 123456789012345678901234, "f": 0.1, "e": 1E-7})",
      R"({"i": 999999999999999999, "j": -999999999999999999, "k": 9223372036854775808})",
      R"({"x": -9223372036854775809, "y": 1e-400, "t": true, "f": false, "n": null, "k": 1})",
      R"({"utf8": "é漢", "args": {"d": [[1, 2], []], "e": {}}, "dup": 1, "dup": [2]})",
      "{\"deep\": " + std::string(200, '[') + std::string(200, ']') + "}",
      "{\"huge\": \"" + std::string(3 << 20, 'x') + "\"}",
      " \n{ \"ws\" : [ 1 , 2 ] }\r\n",
  };
  for (size_t i = 0; i < std::size(events); ++i) text += (i ? "," : "") + events[i];
  for (int i = 0; i < 20000; ++i)
    text += R"(, {"name": "aten::mm", "ts": )" + std::to_string(i) + "}";
  text += R"(], "baseTimeNanoseconds": 1795889480054736826})";
  WriteFileAtomic(d / "e.json", text, false);
  kineto::json header;
  std::vector<kineto::json> ev;
  kineto::EventFn each = [&](const kineto::json& e) { ev.push_back(e); };
  kineto::ReadKinetoFile(d / "e.json", 16 << 20, &header, &each);
  auto want = kineto::json::parse(text);
  ASSERT_EQ(ev.size(), want["traceEvents"].size());
  for (size_t i = 0; i < ev.size(); ++i) {
    ASSERT_EQ(ev[i], want["traceEvents"][i]) << i;
    ASSERT_EQ(ev[i].dump(), want["traceEvents"][i].dump()) << i;  // number kinds too
  }
  EXPECT_EQ(header["baseTimeNanoseconds"], 1795889480054736826u);
}

// Damage inside an event: the events before it handed over once each, then one line.
TEST(KinetoStream, DamageInAnEventAfterGoodOnes) {
  TempDir d;
  const std::string good = R"({"traceEvents": [{"a": 1}, {"b": "x"}, )";
  const std::string damaged[] = {
      R"({"c": "trunc)",
      R"({"c": 12)",
      R"({"c": [1, 2})",
      R"({"c": "\x"})",
      R"({"c": "\ud83d"})",
      R"({"c": 01})",
      R"({"c": "a)"
      "\x01"
      R"("})",
      "{\"c\": \"\xff\"}",
      R"({"c": 1}}]})",
      R"({"c": 1} {"d": 2}]})",
      R"({"c": tru})",
      R"({"c": 1e400})",
  };
  for (const auto& bad : damaged) {
    SCOPED_TRACE(bad);
    WriteFileAtomic(d / "t.json", good + bad, false);
    std::vector<kineto::json> seen;
    kineto::EventFn each = [&](const kineto::json& e) { seen.push_back(e); };
    kineto::json h;
    std::string err;
    try {
      kineto::ReadKinetoFile(d / "t.json", 1 << 20, &h, &each);
    } catch (const Error& e) {
      err = e.what();
    }
    EXPECT_NE(err.find("not JSON at byte"), std::string::npos) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos);
    ASSERT_GE(seen.size(), 2u);
    EXPECT_LE(seen.size(), 3u);  // "{"c": 1}" is whole where the damage follows it
    EXPECT_EQ(seen[0], kineto::json::parse(R"({"a": 1})"));
    EXPECT_EQ(seen[1], kineto::json::parse(R"({"b": "x"})"));
  }
}

// Read ahead on a thread of its own (read_ahead.h): the same events in the same order, the same
// header and, for damage after many good events, the same events then the same error; an error
// the importer throws stops the reader and comes out as it was thrown.
TEST(KinetoStream, ReadAheadHandsOverWhatTheReaderReads) {
  TempDir d;
  std::string text = R"({"schemaVersion": 1, "traceEvents": [)";
  for (int i = 0; i < 5000; ++i)
    text += (i ? ", " : "") + (R"({"name": "aten::mm", "ts": )" + std::to_string(i) + "}");
  const std::string whole = text + R"(], "baseTimeNanoseconds": 17})";
  const std::string damaged = text + R"(, {"c": tru})";
  for (const std::string& t : {whole, damaged}) {
    WriteFileAtomic(d / "t.json", t, false);
    std::vector<kineto::json> want, got;
    kineto::json want_header, got_header;
    std::string want_err, got_err;
    kineto::EventFn keep_want = [&](kineto::json& e) { want.push_back(e); };
    kineto::EventFn keep_got = [&](kineto::json& e) { got.push_back(std::move(e)); };
    try {
      kineto::ReadKinetoFile(d / "t.json", 16 << 20, &want_header, &keep_want);
    } catch (const Error& e) {
      want_err = e.what();
    }
    try {
      kineto::ReadKinetoFileAhead(d / "t.json", 16 << 20, &got_header, keep_got);
    } catch (const Error& e) {
      got_err = e.what();
    }
    EXPECT_EQ(got.size(), want.size());
    EXPECT_TRUE(got == want);
    EXPECT_EQ(got_header, want_header);
    EXPECT_EQ(got_err, want_err);
    EXPECT_EQ(got.size(), 5000u);
    EXPECT_EQ(want_err.empty(), t == whole) << want_err;
  }
  size_t seen = 0;
  kineto::EventFn fail = [&](kineto::json&) {
    if (++seen == 1000) throw std::runtime_error("importer's own error");
  };
  kineto::json h;
  WriteFileAtomic(d / "t.json", whole, false);
  EXPECT_THROW(
      {
        try {
          kineto::ReadKinetoFileAhead(d / "t.json", 16 << 20, &h, fail);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "importer's own error");
          throw;
        }
      },
      std::runtime_error);
  EXPECT_EQ(seen, 1000u);
}

// Records tests/programs/kineto_big.py leaving `n` events; returns record's result.
test::RunResult RecordBig(const std::string& trace, int n, std::vector<std::string> opts) {
  std::vector<std::string> cmd = {TT_CLI, "record", "-o", trace};
  cmd.insert(cmd.end(), opts.begin(), opts.end());
  std::vector<std::string> run = {"--", "python3",
                                  std::string(TT_SOURCE_DIR) + "/tests/programs/kineto_big.py",
                                  std::to_string(n)};
  cmd.insert(cmd.end(), run.begin(), run.end());
  return RunCmd(cmd, {}, 300);
}

uint64_t OpCount(const std::string& trace) {
  auto j = nlohmann::json::parse(RunCmd({TT_CLI, "stats", trace, "--view", "op", "--json"}).out);
  for (const auto& r : j["rows"])
    if (r["name"] == "aten::mm") return r["occurrence"];
  return 0;
}

TEST(KinetoStream, RecordImportsALargeProfileOrStopsAtItsBudget) {
  TempDir d;
  constexpr int kEvents = 200000;  // about 40 MB of JSON
  auto whole = RecordBig(d / "whole", kEvents, {});
  EXPECT_EQ(whole.status, 3) << whole.err;
  EXPECT_NE(whole.err.find(std::to_string(kEvents + 1) + " events on 1 tracks"), std::string::npos)
      << whole.err;  // and the instant
  EXPECT_EQ(OpCount(d / "whole"), static_cast<uint64_t>(kEvents));

  auto part = RecordBig(d / "part", kEvents, {"--import-max-memory", "16M"});
  EXPECT_EQ(part.status, 3) << part.err;  // the program's status, whatever the import did
  EXPECT_TRUE(PathExists(d / "part/tensortrace.json"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(part.err, m,
                                std::regex("import stopped after ([0-9]+) events, at record's "
                                           "memory budget of 16.0 MiB")))
      << part.err;
  uint64_t kept = std::stoull(m[1]);
  EXPECT_LT(kept, static_cast<uint64_t>(kEvents));
  EXPECT_EQ(OpCount(d / "part"), kept);  // what the line says was kept is there
}

}  // namespace
}  // namespace tt
