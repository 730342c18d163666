#include "export/csv.h"

#include <cstdio>

#include "core/csv.h"

namespace tt::exporter {

namespace {

std::string Quote(std::string_view s) { return CsvQuote(s); }

class CsvVisitor : public EventVisitor {
 public:
  explicit CsvVisitor(Sink& out) : out_(out) {
    out_.Write(
        "pid,track_kind,track_id,track_name,kind,category,name,start_ns,end_ns,"
        "duration_ns,self_ns,depth,parent,value,args\n");
  }
  void BeginTrack(const model::Process& p, const model::Track& t) override {
    static const char* const kKinds[] = {"thread", "process", "device", "imported"};
    head_ = std::to_string(p.meta.pid) + "," + kKinds[static_cast<int>(t.kind) & 3] + "," +
            std::to_string(t.id) + "," + Quote(t.name) + ",";
  }
  void OnSlice(const model::Process& p, const model::Track&, const model::Slice& s) override {
    out_.Write(head_ + "slice," + layout::CategoryName(s.category) + "," + Quote(p.Name(s.name)) +
               "," + std::to_string(s.start) + "," + std::to_string(s.end) + "," +
               std::to_string(s.Duration()) + "," + std::to_string(s.Self()) + "," +
               std::to_string(s.depth) + "," + Quote(p.Name(s.parent)) + ",," +
               Quote(ArgsText(p, s.args)) + "\n");
  }
  void OnPoint(const model::Process& p, const model::Track&, const model::Point& pt) override {
    char v[64] = "";
    if (pt.counter) std::snprintf(v, sizeof v, "%.17g", pt.value);
    std::string ts = std::to_string(pt.ts);
    out_.Write(head_ + (pt.counter ? "counter," : "instant,") + layout::CategoryName(pt.category) +
               "," + Quote(p.Name(pt.name)) + "," + ts + "," + ts + ",0,0," +
               std::to_string(pt.depth) + ",," + v + "," + Quote(ArgsText(p, pt.args)) + "\n");
  }

 private:
  static std::string ArgsText(const model::Process& p, const model::ArgsView& a) {
    std::string o;
    for (const Arg& x : ArgList(a))
      o += (o.empty() ? "" : ";") + std::string(p.Name(x.key)) + "=" + ArgValueText(p, x);
    return o;
  }
  Sink& out_;
  std::string head_;
};

}  // namespace

WalkResult WriteCsv(const model::TraceModel& m, const Selection& sel, Sink& out,
                    std::vector<Problem>* problems) {
  CsvVisitor v(out);
  return Walk(m, sel, v, problems);
}

}  // namespace tt::exporter
