#include "export/parquet_job.h"

#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "analysis/comm/comm.h"
#include "analysis/comm/comm_collect.h"
#include "analysis/views/stats.h"
#include "export/parquet_slices.h"
#include "export/parquet_table.h"

namespace tt::exporter {

namespace {

const std::vector<ColumnDef> kStepColumns = {{"step", ColType::kInt},
                                             {"pid", ColType::kInt},
                                             {"source", ColType::kText},
                                             {"warmup", ColType::kBool},
                                             {"start_ns", ColType::kInt},
                                             {"duration_ns", ColType::kInt},
                                             {"input_ns", ColType::kInt},
                                             {"compile_ns", ColType::kInt},
                                             {"host_compute_ns", ColType::kInt},
                                             {"runtime_ns", ColType::kInt},
                                             {"host_idle_ns", ColType::kInt},
                                             {"device_compute_ns", ColType::kInt},
                                             {"copies_ns", ColType::kInt},
                                             {"communication_ns", ColType::kInt},
                                             {"device_idle_host_bound_ns", ColType::kInt},
                                             {"device_idle_waiting_ns", ColType::kInt}};

const std::vector<ColumnDef> kCollectiveColumns = {
    {"instance", ColType::kInt},   {"collective", ColType::kText},
    {"group", ColType::kText},     {"seq", ColType::kInt},
    {"key", ColType::kInt},        {"nranks", ColType::kInt},
    {"bytes", ColType::kInt},      {"matched", ColType::kBool},
    {"pid", ColType::kInt},        {"enter_ns", ColType::kInt},
    {"exit_ns", ColType::kInt},    {"wait_ns", ColType::kInt},
    {"straggler", ColType::kBool}, {"straggler_rank", ColType::kInt},
    {"skew_ns", ColType::kInt},    {"duration_ns", ColType::kInt}};

const std::vector<ColumnDef> kProcessColumns = {
    {"pid", ColType::kInt},        {"ppid", ColType::kInt},
    {"local_rank", ColType::kInt}, {"world_size", ColType::kInt},
    {"host", ColType::kText},      {"cmdline", ColType::kText},
    {"job", ColType::kText},       {"recording", ColType::kText},
    {"shift_ns", ColType::kInt},   {"realtime_offset_ns", ColType::kInt},
    {"end_state", ColType::kText}, {"tracks", ColType::kInt}};

const std::vector<ColumnDef> kClockColumns = {
    {"recording", ColType::kText},     {"host", ColType::kText},
    {"offset_ns", ColType::kInt},      {"recorded_ns", ColType::kInt},
    {"uncertainty_ns", ColType::kInt}, {"constraints", ColType::kInt},
    {"method", ColType::kText}};

// The step view holds the intervals of every step it breaks down (1.6 GB for 475,000 steps of
// 21 events); past kStepChunk steps it runs on chunks of the selected steps, one pass each, each
// given only its own steps (the pass copies those it is given), so that memory stays bounded.
// At most kMaxPasses passes: each scans the whole trace. A step's breakdown reads only its own
// window, the same in a chunk.
constexpr size_t kStepChunk = 50000, kMaxPasses = 16;

// The ranges of step numbers each pass breaks down; none: one pass over them all.
std::vector<analysis::StepRange> StepChunks(const std::vector<model::Step>& steps,
                                            const std::vector<bool>& keep) {
  if (steps.size() <= kStepChunk) return {};
  std::vector<int64_t> numbers;
  for (size_t i = 0; i < steps.size(); ++i)
    if (keep[i]) numbers.push_back(steps[i].number);
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  size_t per = std::max(kStepChunk, (numbers.size() + kMaxPasses - 1) / kMaxPasses);
  std::vector<analysis::StepRange> chunks;
  for (size_t i = 0; i < numbers.size(); i += per) {
    size_t next = i + per;
    chunks.push_back({numbers[i], next < numbers.size() ? numbers[next] - 1 : numbers.back()});
  }
  return chunks;
}

using StepFiles = std::map<size_t, std::unique_ptr<ParquetTable>>;  // per process

// How each step given to a pass was found, by (process, number): the pass keeps no rows
// (Options::breakdowns_only), which would say it.
class StepSources {
 public:
  explicit StepSources(const std::vector<model::Step>& steps) {
    for (const model::Step& s : steps) v_.push_back({s.process, s.number, s.source});
    std::sort(v_.begin(), v_.end(), [](const At& x, const At& y) { return x.Key() < y.Key(); });
  }
  const char* Of(size_t process, int64_t number) const {
    auto it = std::lower_bound(v_.begin(), v_.end(), std::pair(process, number),
                               [](const At& x, const auto& k) { return x.Key() < k; });
    return it != v_.end() && it->Key() == std::pair(process, number)
               ? model::StepSourceName(it->source)
               : "";
  }

 private:
  struct At {
    size_t process;
    int64_t number;
    model::StepSource source;
    std::pair<size_t, int64_t> Key() const { return {process, number}; }
  };
  std::vector<At> v_;
};

void StepRows(const model::TraceModel& m, const analysis::Result& r, const StepSources& sources,
              const std::string& root, StepFiles* files) {
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const analysis::StepBreakdown& b = r.steps[i];
    const model::Process& p = m.processes[b.process];
    auto& f = (*files)[b.process];
    if (!f)
      f = std::make_unique<ParquetTable>(
          PartPath(root, "steps", p.meta.rank,
                   std::to_string(p.meta.pid) + "-" + std::to_string(b.process)),
          "steps", kStepColumns);
    f->Int(b.number).Int(p.meta.pid).Text(sources.Of(b.process, b.number)).Bool(b.warmup);
    f->Int(static_cast<int64_t>(b.start)).Int(static_cast<int64_t>(b.Duration()));
    for (uint64_t v : {b.input, b.compile, b.host_compute, b.runtime, b.host_idle, b.device_compute,
                       b.copies, b.communication, b.device_idle_host_bound, b.device_idle_waiting})
      f->Int(static_cast<int64_t>(v));
    f->EndRow();
  }
}

void Steps(const model::TraceModel& m, const Selection& sel, const std::vector<model::Step>& steps,
           const std::string& root, std::vector<Problem>* problems, JobTablesCounts* counts) {
  analysis::Options o;
  o.step_names = sel.step_names;
  o.breakdowns_only = true;
  StepFiles files;
  std::vector<bool> keep = analysis::SelectSteps(steps, sel.steps, sel.skip_warmup);
  std::vector<analysis::StepRange> chunks = StepChunks(steps, keep);
  if (chunks.empty()) {
    o.steps = sel.steps;
    o.skip_warmup = sel.skip_warmup;
    StepRows(m, analysis::ComputeViews(m, {"step"}, o, &steps, problems)[0], StepSources(steps),
             root, &files);
  }
  for (const analysis::StepRange& r : chunks) {
    std::vector<model::Step> mine;  // the chunk's steps alone, chosen here (so no warm-up skip)
    for (size_t k = 0; k < steps.size(); ++k)
      if (keep[k] && steps[k].number >= r.first && steps[k].number <= r.last)
        mine.push_back(steps[k]);
    o.steps = r;
    StepRows(m, analysis::ComputeViews(m, {"step"}, o, &mine, problems)[0], StepSources(mine), root,
             &files);
    malloc_trim(0);  // the pass's intervals back to the system before the next one's
  }
  // No steps: an empty file, so that the table is there to query.
  if (files.empty())
    files[SIZE_MAX] =
        std::make_unique<ParquetTable>(PartPath(root, "steps", -1, "empty"), "steps", kStepColumns);
  for (auto& [p, f] : files) {
    counts->steps += f->rows();
    f->Close();
  }
}

void Collectives(const model::TraceModel& m, const std::string& root,
                 std::vector<Problem>* problems, JobTablesCounts* counts) {
  analysis::CommView v =
      analysis::MatchCollectives(analysis::CollectCollectives({&m}, 0, problems, false));
  std::map<int64_t, std::unique_ptr<ParquetTable>> files;  // per rank
  for (size_t k = 0; k < v.instances.size(); ++k) {
    const analysis::CommInstance& in = v.instances[k];
    for (const analysis::CommArrival& a : in.arrivals) {
      const analysis::CommRank& rank = v.ranks[a.rank];
      auto& f = files[rank.rank < 0 ? -1 : rank.rank];
      if (!f)
        f = std::make_unique<ParquetTable>(PartPath(root, "collectives", rank.rank, "0"),
                                           "collectives", kCollectiveColumns);
      f->Int(static_cast<int64_t>(k)).Text(in.collective).Text(in.group);
      f->Int(static_cast<int64_t>(in.seq));
      in.key >= 0 ? f->Int(in.key) : f->Null();
      f->Int(in.nranks);
      in.bytes >= 0 ? f->Int(in.bytes) : f->Null();
      f->Bool(in.matched).Int(rank.pid).Int(static_cast<int64_t>(a.enter));
      f->Int(static_cast<int64_t>(a.exit)).Int(static_cast<int64_t>(a.wait));
      f->Bool(in.straggler == a.rank).Int(v.ranks[in.straggler].rank);
      f->Int(static_cast<int64_t>(in.skew)).Int(static_cast<int64_t>(in.duration)).EndRow();
    }
  }
  if (files.empty())  // no collectives: an empty file, so that the table is there to query
    files[-1] = std::make_unique<ParquetTable>(PartPath(root, "collectives", -1, "empty"),
                                               "collectives", kCollectiveColumns);
  for (auto& [r, f] : files) {
    counts->collectives += f->rows();
    f->Close();
  }
}

void Processes(const model::TraceModel& m, const std::string& root, JobTablesCounts* counts) {
  for (size_t i = 0; i < m.processes.size(); ++i) {
    const model::Process& p = m.processes[i];
    ParquetTable f(PartPath(root, "processes", p.meta.rank,
                            std::to_string(p.meta.pid) + "-" + std::to_string(i)),
                   "processes", kProcessColumns);
    f.Int(p.meta.pid).Int(p.meta.ppid).Int(p.meta.local_rank).Int(p.meta.world_size);
    f.Text(p.meta.hostname).Text(p.meta.cmdline).Text(p.meta.job).Text(p.recording);
    f.Int(p.shift_ns).Int(p.meta.clock_offset_ns).Text(p.meta.end_state);
    f.Int(static_cast<int64_t>(p.tracks.size())).EndRow();
    f.Close();
    counts->processes++;
  }
}

void Clocks(const model::TraceModel& m, const std::string& root, JobTablesCounts* counts) {
  std::filesystem::create_directories(root + "/clocks");
  ParquetTable f(root + "/clocks/part-0.parquet", "clocks", kClockColumns);
  if (m.clocks.empty() && !m.processes.empty())  // one recording: its times as recorded
    f.Text(m.path)
        .Text(m.processes[0].meta.hostname)
        .Int(0)
        .Int(0)
        .Int(0)
        .Int(0)
        .Text("reference")
        .EndRow();
  for (const model::RecordingClock& c : m.clocks)
    f.Text(c.recording)
        .Text(c.host)
        .Int(c.offset_ns)
        .Int(c.recorded_ns)
        .Int(c.uncertainty_ns)
        .Int(static_cast<int64_t>(c.constraints))
        .Text(c.method)
        .EndRow();
  counts->clocks += f.rows();
  f.Close();
}

}  // namespace

void WriteJobTables(const model::TraceModel& m, const Selection& sel,
                    const std::vector<model::Step>& steps, const std::string& root,
                    std::vector<Problem>* problems, JobTablesCounts* counts) {
  Steps(m, sel, steps, root, problems, counts);
  WriteJobWideTables(m, root, problems, counts);
}

void WriteJobWideTables(const model::TraceModel& m, const std::string& root,
                        std::vector<Problem>* problems, JobTablesCounts* counts) {
  Collectives(m, root, problems, counts);
  Processes(m, root, counts);
  Clocks(m, root, counts);
}

}  // namespace tt::exporter
