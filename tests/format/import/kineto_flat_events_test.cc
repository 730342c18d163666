// The Kineto importer reads each event as a KinetoEvent (format/import/kineto/event.h), built
// from the event's bytes without a JSON object per event and into the storage of events read
// before, on the reader's thread (read_ahead.h). It must give exactly the events that
// nlohmann's values gave (the old path: a json per event, then the fields the importer reads),
// on torch.profiler's own output and on damaged files: the same events in the same order, the
// same header and the same one-line error.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/files.h"
#include "format/import/kineto/event.h"
#include "format/import/kineto/read_ahead.h"
#include "format/import/kineto/stream.h"
#include "test_util.h"

namespace tt {
namespace {

using kineto::json;
using kineto::KinetoEvent;
using test::RunCmd;
using test::TempDir;

// What one way of reading a file handed over.
struct Read {
  std::vector<KinetoEvent> events;
  json header;
  std::string error;
};

// The old path: nlohmann's value of each event, then the fields the importer reads.
Read ByJson(const std::string& path) {
  Read r;
  kineto::EventFn each = [&](json& e) { r.events.push_back(kineto::ToKinetoEvent(std::move(e))); };
  try {
    kineto::ReadKinetoFile(path, 1 << 30, &r.header, &each);
  } catch (const Error& e) {
    r.error = e.what();
  }
  return r;
}

// The importer's path: each event read into reused storage on the reader's thread.
Read Flat(const std::string& path, bool ahead) {
  Read r;
  kineto::KinetoEventFn each = [&](KinetoEvent& e) { r.events.push_back(e); };
  try {
    if (ahead)
      kineto::ReadKinetoFileAhead(path, 1 << 30, &r.header, each);
    else
      kineto::ReadKinetoFile(path, 1 << 30, &r.header, kineto::EventSink{nullptr, &each});
  } catch (const Error& e) {
    r.error = e.what();
  }
  return r;
}

// The three ways agree on `path`; returns the old path's reading.
Read ExpectSame(const std::string& path) {
  Read want = ByJson(path);
  for (bool ahead : {false, true}) {
    SCOPED_TRACE(ahead ? "read ahead" : "read in line");
    Read got = Flat(path, ahead);
    EXPECT_EQ(got.events.size(), want.events.size());
    for (size_t i = 0; i < std::min(got.events.size(), want.events.size()); ++i) {
      if (got.events[i] == want.events[i]) continue;
      ADD_FAILURE() << "event " << i << ": " << want.events[i].name << " args "
                    << want.events[i].args.dump(-1, ' ', false, json::error_handler_t::replace)
                    << " read as " << got.events[i].name << " args "
                    << got.events[i].args.dump(-1, ' ', false, json::error_handler_t::replace);
      break;
    }
    EXPECT_EQ(got.header, want.header);
    EXPECT_EQ(got.error, want.error);
  }
  return want;
}

// torch.profiler's own trace of a small training loop: ops with shapes and concrete inputs,
// memory events, python functions, flows, record_function ranges (Kineto writes no escape in
// a name: it writes "unknown" for one that would need it).
const char* kProfile = R"(
import sys, torch
from torch.profiler import profile, ProfilerActivity
model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                            torch.nn.Linear(8 * 14 * 14, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
with profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True,
             with_stack=True) as p:
    for _ in range(3):
        with torch.profiler.record_function("batch 'one'"):
            loss = model(torch.randn(16, 3, 16, 16)).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
        p.step()
p.export_chrome_trace(sys.argv[1])
)";

TEST(KinetoFlatEvents, SameAsNlohmannsOnTorchProfilerOutput) {
  REQUIRE_MODULE("torch");
  TempDir d;
  auto r = RunCmd({test::Python(), "-c", kProfile, d / "p.json"}, {}, 240);
  ASSERT_EQ(r.status, 0) << r.err;
  Read want = ExpectSame(d / "p.json");
  EXPECT_TRUE(want.error.empty()) << want.error;
  // What the importer reads is there: ops with shapes, memory, python functions, annotations.
  size_t dims = 0, memory = 0, python = 0, batches = 0;
  for (const auto& e : want.events) {
    dims += e.args.is_object() && e.args.contains("Input Dims");
    memory += e.name == "[memory]" && e.args.contains("Total Allocated");
    python += e.cat == "python_function";
    batches += e.name == "batch 'one'";
  }
  EXPECT_GT(dims, 50u);
  EXPECT_GT(memory, 10u);
  EXPECT_GT(python, 10u);
  EXPECT_EQ(batches, 3u);
  EXPECT_GT(want.header.count("baseTimeNanoseconds"), 0u);

  // The same file damaged: cut inside it at many places (inside strings, numbers, between
  // events, in the header after the array), and with an event whose bytes hold what the span
  // parser declines (escapes, UTF-8, deep nesting) among the others.
  std::string text = ReadFile(d / "p.json");
  for (size_t cut : {text.size() / 7, text.size() / 3, text.size() / 2 + 17, text.size() - 40,
                     text.size() - 2}) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    WriteFileAtomic(d / "cut.json", text.substr(0, cut), false);
    Read cut_read = ExpectSame(d / "cut.json");
    EXPECT_NE(cut_read.error.find("not JSON at byte"), std::string::npos) << cut_read.error;
  }
  size_t mid = text.rfind('{', text.find("\"ph\"", text.size() / 2));  // an event's start
  ASSERT_NE(mid, std::string::npos);
  std::string odd = R"({"ph": "X", "name": "a\"b\u00e9", "args": {"Input Dims": [[[[1]]]],
      "Input type": ["\u0066loat"], "dtype": "é", "Python id": "x\\y"}, "ts": 1e-400}, )";
  WriteFileAtomic(d / "odd.json", text.substr(0, mid) + odd + text.substr(mid), false);
  Read odd_read = ExpectSame(d / "odd.json");
  EXPECT_EQ(odd_read.events.size(), want.events.size() + 1);
}

// Events of alternating shapes, so that each is read into the storage of another kind: an
// argument absent, an array shorter or longer, a string where an array was, duplicate keys,
// args not an object, a large event between small ones; whole and cut inside the last one.
TEST(KinetoFlatEvents, ReusedStorageLeavesNothingBehind) {
  TempDir d;
  const std::string kinds[] = {
      R"({"ph": "X", "name": "aten::addmm", "args": {"Input Dims": [[512], [64, 256], [256, 512]],
          "Input type": ["float", "float", "float"], "External id": 3, "Record function id": 0}})",
      R"({"ph": "X", "name": "aten::relu", "args": {"Input Dims": [[64, 512]], "Input type": [
          "float"]}, "tid": 7, "ts": 1.5})",
      R"({"ph": "i", "name": "[memory]", "args": {"Bytes": 512, "Total Allocated": 1024,
          "Input Dims": "not an array", "Addr": 99}, "pid": 1})",
      R"({"ph": "X", "name": "x", "args": [1, 2], "ph": 5, "dur": 2})",
      R"({"name": "y", "args": {"Input Dims": [[1, [2, [3]]], []], "name": "t"}, "args": {}})",
      R"({"cat": "python_function", "args": {"Python id": 1, "Python parent id": 2}})",
      R"({"ph": "X", "args": null, "id": 12, "tid": "main"})",
      "{\"name\": \"" + std::string(100000, 'n') + "\", \"args\": {\"Input Dims\": [" +
          std::string(2000, '[') + std::string(2000, ']') + "]}}",
  };
  std::string text = R"({"traceEvents": [)";
  for (int i = 0; i < 3000; ++i)
    text += (i ? ",\n" : "") + kinds[(i * 7 + i / 5) % std::size(kinds)];
  for (const std::string& t :
       {text + R"(], "baseTimeNanoseconds": 5})", text.substr(0, text.size() - 9)}) {
    WriteFileAtomic(d / "k.json", t, false);
    Read want = ExpectSame(d / "k.json");
    EXPECT_GE(want.events.size(), 2999u);
  }
}

}  // namespace
}  // namespace tt
