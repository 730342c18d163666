#include "export/parquet_slices.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <unordered_map>

#include "analysis/pass/op_names.h"
#include "export/parquet_table.h"
#include "export/slice_lines.h"
#include "export/slice_meaning.h"
#include "format/keys.h"

namespace tt::exporter {

namespace {

const std::vector<ColumnDef> kSliceColumns = {
    {"pid", ColType::kInt},         {"tid", ColType::kInt},       {"thread", ColType::kText},
    {"track_kind", ColType::kText}, {"category", ColType::kText}, {"meaning", ColType::kText},
    {"name", ColType::kText},       {"op_type", ColType::kText},  {"scope", ColType::kText},
    {"line", ColType::kText},       {"stack", ColType::kText},    {"is_op", ColType::kBool},
    {"step", ColType::kInt},        {"depth", ColType::kInt},     {"parent", ColType::kText},
    {"start_ns", ColType::kInt},    {"end_ns", ColType::kInt},    {"dur_ns", ColType::kInt},
    {"self_ns", ColType::kInt},     {"args", ColType::kText}};

const std::vector<ColumnDef> kAllocationColumns = {
    {"pid", ColType::kInt},   {"tid", ColType::kInt},   {"ts_ns", ColType::kInt},
    {"name", ColType::kText}, {"bytes", ColType::kInt}, {"addr", ColType::kInt},
    {"free", ColType::kBool}, {"op", ColType::kText}};

const std::vector<ColumnDef> kThreadColumns = {{"pid", ColType::kInt},
                                               {"tid", ColType::kInt},
                                               {"track_kind", ColType::kText},
                                               {"name", ColType::kText},
                                               {"stream_bytes", ColType::kInt}};

const char* const kTrackKinds[] = {"thread", "process", "device", "imported"};

// Per process: the op type and scope of each name id, worked out once.
struct NameParts {
  std::vector<std::optional<std::pair<std::string, std::string>>> parts;
  const std::pair<std::string, std::string>& Of(const model::Process& p, uint32_t id) {
    if (id >= parts.size()) parts.resize(std::max<size_t>(id + 1, parts.size() * 2));
    if (!parts[id]) {
      std::string name(p.Name(id));
      std::vector<std::string> path = analysis::ScopePath(name);
      std::string scope;
      for (size_t i = 0; i + 1 < path.size(); ++i) scope += (i ? "/" : "") + path[i];
      parts[id].emplace(analysis::OpType(name), scope);
    }
    return *parts[id];
  }
};

// A closed slice's row, held while the framework op around it is open: its line is known when
// that op closes (slice_lines.h).
struct SliceRow {
  model::Slice s;  // without its arguments (their view ends with the event)
  SliceMeaning::Closed c;
  std::string args;
};

class TablesVisitor : public EventVisitor {
 public:
  TablesVisitor(const model::TraceModel& m, const std::vector<model::Step>& steps,
                const analysis::CodeIndex& code, const std::string& root, SliceTablesCounts* counts)
      : m_(m), code_(code), root_(root), counts_(counts), steps_(m.processes.size()) {
    for (const model::Step& s : steps) steps_[s.process].push_back(&s);
    for (auto& v : steps_)
      std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->start < b->start; });
  }
  void BeginProcess(const model::Process& p) override;
  void EndProcess(const model::Process&, size_t, const Chosen&) override;
  void BeginTrack(const model::Process& p, const model::Track& t) override;
  void OnBegin(const model::Process&, const model::Track&, const model::Slice& s) override {
    meaning_->Begin(s);
    lines_->Begin(s);
  }
  void OnSlice(const model::Process& p, const model::Track& t, const model::Slice& s) override;
  void OnPoint(const model::Process& p, const model::Track& t, const model::Point& pt) override;

 private:
  std::optional<int64_t> StepOf(uint64_t ts) const;
  void WriteHeld(const model::Process& p, const model::Track& t, SliceLines::Text text);
  void WriteRow(const model::Process& p, const model::Track& t, const SliceRow& r,
                SliceLines::Text text);
  const model::TraceModel& m_;
  const analysis::CodeIndex& code_;
  std::string root_;
  SliceTablesCounts* counts_;
  std::vector<std::vector<const model::Step*>> steps_;  // per process, by start
  size_t process_ = 0;
  std::unique_ptr<ParquetTable> slices_, allocs_, threads_;
  std::unique_ptr<SliceMeaning> meaning_;
  std::unique_ptr<SliceLines> lines_;
  std::vector<SliceRow> held_;  // closed inside the open framework op (slice_lines.h)
  const model::Track* held_track_ = nullptr;
  NameParts names_;
  uint32_t bytes_key_ = 0, addr_key_ = 0;
};

uint32_t KeyId(const model::Process& p, std::string_view key) {
  for (uint32_t i = 1; i < p.names.size(); ++i)
    if (p.names[i] == key) return i;
  return UINT32_MAX;
}

void TablesVisitor::BeginProcess(const model::Process& p) {
  process_ = static_cast<size_t>(&p - m_.processes.data());
  std::string part = std::to_string(p.meta.pid) + "-" + std::to_string(process_);
  slices_ = std::make_unique<ParquetTable>(PartPath(root_, "slices", p.meta.rank, part), "slices",
                                           kSliceColumns);
  allocs_ = std::make_unique<ParquetTable>(PartPath(root_, "allocations", p.meta.rank, part),
                                           "allocations", kAllocationColumns);
  threads_ = std::make_unique<ParquetTable>(PartPath(root_, "threads", p.meta.rank, part),
                                            "threads", kThreadColumns);
  names_ = NameParts{};
  lines_ = std::make_unique<SliceLines>(
      process_ < code_.processes.size() ? &code_.processes[process_] : nullptr, p);
  bytes_key_ = KeyId(p, keys::kBytes);
  addr_key_ = KeyId(p, keys::kAddr);
}

void TablesVisitor::EndProcess(const model::Process& p, size_t, const Chosen&) {
  if (held_track_) WriteHeld(p, *held_track_, {});  // a framework op its track left open
  counts_->slices += slices_->rows();
  counts_->allocations += allocs_->rows();
  counts_->threads += threads_->rows();
  for (auto* t : {&slices_, &allocs_, &threads_}) {
    (*t)->Close();
    t->reset();
  }
}

void TablesVisitor::BeginTrack(const model::Process& p, const model::Track& t) {
  if (held_track_) WriteHeld(p, *held_track_, {});
  held_track_ = &t;
  meaning_ = std::make_unique<SliceMeaning>(p);
  lines_->BeginTrack(t.id);
  threads_->Int(p.meta.pid).Int(static_cast<int64_t>(t.id));
  threads_->Text(kTrackKinds[static_cast<int>(t.kind) & 3]).Text(t.name);
  threads_->Int(static_cast<int64_t>(t.bytes)).EndRow();
}

std::optional<int64_t> TablesVisitor::StepOf(uint64_t ts) const {
  const auto& v = steps_[process_];
  auto it = std::upper_bound(v.begin(), v.end(), ts,
                             [](uint64_t t, const model::Step* s) { return t < s->start; });
  while (it != v.begin()) {
    --it;
    if (ts < (*it)->end) return (*it)->number;
    if (v.end() - it > 4) break;  // steps do not nest deeper than a few
  }
  return std::nullopt;
}

void TablesVisitor::OnSlice(const model::Process& p, const model::Track& t, const model::Slice& s) {
  SliceRow r{s, meaning_->End(s), {}};
  lines_->End(s);
  r.s.args = {};
  for (const Arg& x : ArgList(s.args))
    r.args += (r.args.empty() ? "" : ";") + std::string(p.Name(x.key)) + "=" + ArgValueText(p, x);
  if (!lines_->Holding() && held_.empty()) {  // no op waits for its line: write it now
    WriteRow(p, t, r,
             r.c.is_op        ? lines_->Of(s)
             : r.c.eager_line ? lines_->OfEager(s)
                              : SliceLines::Text{});
    return;
  }
  held_.push_back(std::move(r));
  if (lines_->Holding()) return;
  bool ops = std::any_of(held_.begin(), held_.end(), [](const SliceRow& h) { return h.c.is_op; });
  WriteHeld(p, t, ops ? lines_->Of(s) : SliceLines::Text{});
}

void TablesVisitor::WriteHeld(const model::Process& p, const model::Track& t,
                              SliceLines::Text text) {
  for (const SliceRow& r : held_) WriteRow(p, t, r, r.c.is_op ? text : SliceLines::Text{});
  held_.clear();
}

void TablesVisitor::WriteRow(const model::Process& p, const model::Track& t, const SliceRow& r,
                             SliceLines::Text text) {
  const model::Slice& s = r.s;
  const auto& [op_type, scope] = names_.Of(p, s.name);
  ParquetTable& o = *slices_;
  o.Int(p.meta.pid).Int(static_cast<int64_t>(t.id)).Text(t.name);
  o.Text(kTrackKinds[static_cast<int>(t.kind) & 3]).Text(layout::CategoryName(s.category));
  o.Text(model::MeaningName(r.c.meaning)).Text(p.Name(s.name)).Text(op_type);
  scope.empty() ? o.Null() : o.Text(scope);
  text.line ? o.Text(*text.line) : o.Null();
  text.stack ? o.Text(*text.stack) : o.Null();
  o.Bool(r.c.is_op);
  std::optional<int64_t> step = StepOf(s.start);
  step ? o.Int(*step) : o.Null();
  o.Int(s.depth);
  s.depth ? o.Text(p.Name(s.parent)) : o.Null();
  o.Int(static_cast<int64_t>(s.start)).Int(static_cast<int64_t>(s.end));
  o.Int(static_cast<int64_t>(s.Duration())).Int(static_cast<int64_t>(r.c.self));
  r.args.empty() ? o.Null() : o.Text(r.args);
  o.EndRow();
}

void TablesVisitor::OnPoint(const model::Process& p, const model::Track& t,
                            const model::Point& pt) {
  if (pt.category != layout::Category::kAllocation || pt.counter) return;
  int64_t bytes = 0, addr = 0;
  for (const Arg& x : ArgList(pt.args)) {
    int64_t v = x.type == layout::ArgType::kUint  ? static_cast<int64_t>(x.v.u)
                : x.type == layout::ArgType::kInt ? x.v.i
                                                  : 0;
    if (x.key == bytes_key_) bytes = v;
    if (x.key == addr_key_) addr = v;
  }
  std::string_view name = p.Name(pt.name);
  ParquetTable& o = *allocs_;
  o.Int(p.meta.pid).Int(static_cast<int64_t>(t.id)).Int(static_cast<int64_t>(pt.ts));
  o.Text(name).Int(bytes).Int(addr).Bool(keys::IsFreeEvent(name));
  pt.op ? o.Text(p.Name(pt.op)) : o.Null();
  o.EndRow();
}

}  // namespace

std::string PartPath(const std::string& root, const char* table, int64_t rank,
                     const std::string& part) {
  std::string dir = root + "/" + table + "/rank=" + std::to_string(rank < 0 ? -1 : rank);
  std::filesystem::create_directories(dir);
  return dir + "/part-" + part + ".parquet";
}

WalkResult WriteSliceTables(const model::TraceModel& m, const Selection& sel,
                            const std::vector<model::Step>& steps, const analysis::CodeIndex& code,
                            const std::string& root, std::vector<Problem>* problems,
                            SliceTablesCounts* counts) {
  TablesVisitor v(m, steps, code, root, counts);
  return Walk(m, sel, v, problems);
}

}  // namespace tt::exporter
