#include "export/chrome.h"

#include <cmath>
#include <cstdio>

#include "analysis/pass/correlate.h"
#include "model/job/process_names.h"

namespace tt::exporter {

using layout::TrackKind;

namespace {

// Chrome wants integer thread ids: device queues get ids far above real thread ids.
uint64_t ChromeTid(const model::Track& t) {
  if (t.kind != TrackKind::kDevice) return t.id;
  return 1000000000ull + (t.id >> 32) * 100000 + (t.id & 0xffffffff);
}

std::string Micros(uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%llu.%03llu", static_cast<unsigned long long>(ns / 1000),
                static_cast<unsigned long long>(ns % 1000));
  return b;
}

class ChromeVisitor : public EventVisitor {
 public:
  ChromeVisitor(const model::TraceModel& m, Sink& out)
      : out_(out), m_(m), pids_(model::ExportPids(m)) {}
  uint64_t flows = 0;

  void BeginProcess(const model::Process& p) override {
    pid_ = std::to_string(pids_[static_cast<size_t>(&p - m_.processes.data())]);
    Line("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + pid_ +
         ",\"tid\":0,\"args\":{\"name\":" + JsonString(model::ProcessLabel(p)) + "}}");
    keys_ = analysis::LinkKeysOf(p);
  }
  void BeginTrack(const model::Process&, const model::Track& t) override {
    head_ = "\"pid\":" + pid_ + ",\"tid\":" + std::to_string(ChromeTid(t));
    std::string name = t.name.empty() ? "thread " + std::to_string(t.id) : t.name;
    Line("{\"ph\":\"M\",\"name\":\"thread_name\"," + head_ +
         ",\"args\":{\"name\":" + JsonString(name) + "}}");
  }
  void OnSlice(const model::Process& p, const model::Track& t, const model::Slice& s) override {
    std::string e = "{\"ph\":\"X\"," + head_ + ",\"ts\":" + Micros(s.start) +
                    ",\"dur\":" + Micros(s.Duration()) + ",\"name\":" + JsonString(p.Name(s.name)) +
                    ",\"cat\":\"" + layout::CategoryName(s.category) + "\"" + Args(p, s.args) + "}";
    Line(e);
    // A flow from each launch to its device work, keyed by the correlation id
    // (analysis/pass/correlate.h: what a launch is, what an id is).
    analysis::LinkIds ids = analysis::IdsOf(keys_, s.args);
    bool device = t.kind == TrackKind::kDevice;
    if (device ? ids.corr >= 0 : analysis::IsLaunch(s, ids)) {
      std::string id = "\"" + pid_ + ":" + std::to_string(ids.corr) + "\"";
      Line(std::string("{\"ph\":\"") + (device ? "f\",\"bp\":\"e\"" : "s\"") + "," + head_ +
           ",\"ts\":" + Micros(s.start) + ",\"id\":" + id +
           ",\"name\":\"launch\",\"cat\":\"launch\"}");
      flows += device;
    }
  }
  void OnPoint(const model::Process& p, const model::Track&, const model::Point& pt) override {
    if (pt.counter) {
      char v[64];
      std::snprintf(v, sizeof v, "%.17g", pt.value);
      Line("{\"ph\":\"C\"," + head_ + ",\"ts\":" + Micros(pt.ts) +
           ",\"name\":" + JsonString(p.Name(pt.name)) + ",\"args\":{\"value\":" + v + "}}");
    } else {
      Line("{\"ph\":\"i\",\"s\":\"t\"," + head_ + ",\"ts\":" + Micros(pt.ts) +
           ",\"name\":" + JsonString(p.Name(pt.name)) + ",\"cat\":\"" +
           layout::CategoryName(pt.category) + "\"" + Args(p, pt.args) + "}");
    }
  }
  // A trace's own flow (a forward op to its backward node): "s" where it starts, "f" bound to
  // the slice it ends in; each whole flow counts once.
  void OnFlow(const model::Process&, const model::Track&, const model::Flow& f) override {
    bool in = f.phase == layout::FlowPhase::kIn;
    const char* ph = in ? "f\",\"bp\":\"e\"" : (f.phase == layout::FlowPhase::kOut ? "s\"" : "t\"");
    Line(std::string("{\"ph\":\"") + ph + "," + head_ + ",\"ts\":" + Micros(f.ts) + ",\"id\":\"" +
         pid_ + ":" + std::to_string(f.id) + "\",\"name\":\"flow\",\"cat\":\"flow\"}");
    flows += in;
  }
  void Start() { out_.Write("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"); }
  void End() { out_.Write("\n]}\n"); }

 private:
  void Line(const std::string& s) {
    if (!first_) out_.Write(",\n", 2);
    first_ = false;
    out_.Write(s);
  }
  std::string Args(const model::Process& p, const model::ArgsView& a) {
    if (a.count == 0) return "";
    std::string o = ",\"args\":{";
    bool first = true;
    for (const Arg& x : ArgList(a)) {
      o += (first ? "" : ",") + JsonString(p.Name(x.key)) + ":";
      first = false;
      if (x.type == layout::ArgType::kString) {
        o += JsonString(p.Name(x.v.str));
      } else if (x.type == layout::ArgType::kFloat && !std::isfinite(x.v.f)) {
        o += "null";
      } else {
        o += ArgValueText(p, x);
      }
    }
    return o + "}";
  }
  Sink& out_;
  const model::TraceModel& m_;
  std::vector<int64_t> pids_;  // model::ExportPids
  std::string pid_;            // the process's, as shown
  std::string head_;
  bool first_ = true;
  analysis::LinkKeys keys_;
};

}  // namespace

WalkResult WriteChrome(const model::TraceModel& m, const Selection& sel, Sink& out,
                       std::vector<Problem>* problems, uint64_t* flows) {
  ChromeVisitor v(m, out);
  v.Start();
  WalkResult r = Walk(m, sel, v, problems);
  v.End();
  *flows = v.flows;
  return r;
}

}  // namespace tt::exporter
