#include "format/import/kineto/import.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/error.h"
#include "core/files.h"
#include "format/import/kineto/importer_state.h"
#include "format/import/kineto/json_args.h"
#include "format/import/kineto/read_ahead.h"
#include "format/import/kineto/stream.h"
#include "format/import/memory_budget.h"
#include "format/import/untrusted.h"

namespace tt {

std::vector<std::string> FindKinetoFiles(const std::string& logdir,
                                         std::vector<std::string>* skipped) {
  std::vector<std::pair<int64_t, std::string>> found;
  std::string dir = logdir + "/torch";
  if (!IsRealDirectory(dir)) {
    if (skipped && EntryExists(dir))
      skipped->push_back(ValidUtf8(dir) + ": not a directory (a symbolic link?); not entered");
    return {};
  }
  const std::string suffix = ".pt.trace.json";
  for (const auto& f : ListDirectory(dir)) {
    if (f.size() <= suffix.size() || !f.ends_with(suffix)) continue;
    int64_t window = INT64_MAX;  // "<window>-s<first step>" (older: "<window>")
    std::from_chars(f.data(), f.data() + f.size(), window);
    found.emplace_back(window, dir + "/" + f);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [w, f] : found) out.push_back(std::move(f));
  return out;
}

int64_t KinetoFirstStep(const std::string& path) {
  std::string base = BaseName(path);
  size_t s = base.find("-s");
  int64_t first = 0;
  if (s != std::string::npos)
    std::from_chars(base.data() + s + 2, base.data() + base.size(), first);
  return std::max<int64_t>(first, 0);
}

namespace kineto {

void KinetoImporter::BeginFile(const json& header, int64_t first_step) {
  window_ = window_first_step_.size();
  window_first_step_.push_back(first_step);
  window_start_.push_back(UINT64_MAX);
  base_ns_ = 0;
  if (auto b = header.find("baseTimeNanoseconds"); b != header.end() && b->is_number_unsigned())
    base_ns_ = b->get<uint64_t>();
  ReadDistributedInfo(Field(header, "distributedInfo"));
  flow_ends_.clear();
  file_comms_ = comms_.size();
  profile_ = {UINT64_MAX, 0};
  extent_ = {UINT64_MAX, 0};
}

void KinetoImporter::EndFile() {
  GlooGroups();
  WriteFlows();
  // The window this file covers: Kineto's own span of the profile, else its events' extent.
  auto w = profile_.first < profile_.second ? profile_ : extent_;
  out_->windows.push_back(w.first < w.second ? w : std::pair<uint64_t, uint64_t>{0, 0});
}

void KinetoImporter::Finish() {
  SynthesizeSteps();
  InheritParamComms();
  PairCollectives();
  for (auto& [key, tl] : timelines_) WriteTimeline(&tl);
  WriteAllocatorCounters(t_, "ka", &allocators_, out_);
}

// Kineto's times: microseconds (with nanosecond decimals) after baseTimeNanoseconds, on the
// Unix epoch (CLOCK_REALTIME).
bool KinetoImporter::Time(const json& us, uint64_t* out) {
  if (!us.is_number()) return false;
  double v = us.get<double>();
  if (!std::isfinite(v) || std::fabs(v) > 1e15) return false;
  __int128 ns = static_cast<__int128>(base_ns_) + static_cast<__int128>(std::llround(v * 1e3));
  ns = std::clamp<__int128>(ns, 0, INT64_MAX);
  *out = t_->clock.Convert(static_cast<int64_t>(ns));
  return *out >= t_->earliest && *out <= t_->latest;
}

Timeline* KinetoImporter::TimelineOf(const KinetoEvent& e, bool device) {
  int64_t pid = JsonInt(e.pid);
  int64_t tid = JsonInt(e.tid);
  if (tid < 0 || pid < 0 || (!device && pid != t_->proc.meta.pid)) return nullptr;
  uint64_t id = device ? (static_cast<uint64_t>(pid) << 32) | static_cast<uint32_t>(tid)
                       : static_cast<uint64_t>(tid);
  Timeline& tl = timelines_[{device, id}];
  tl.device = device;
  tl.id = id;
  return &tl;
}

}  // namespace kineto

namespace {

struct BudgetReached {};

// One file: the header first (some of it follows the events), then each event as it is read.
// Throws BudgetReached (the file's events so far kept and closed) once `budget` is spent.
void ImportKinetoFile(const std::string& f, uint64_t max_file_bytes, MemoryBudget* budget,
                      kineto::KinetoImporter* imp, uint64_t* events) {
  kineto::json header;
  kineto::ReadKinetoFile(f, max_file_bytes, &header, kineto::EventSink{});
  imp->BeginFile(header, KinetoFirstStep(f));
  bool over = false;
  kineto::KinetoEventFn each = [&](kineto::KinetoEvent& e) {
    if (over || (over = budget->Over())) return;  // the rest of the file is read, not kept
    imp->ImportEvent(e);
    ++*events;
  };
  kineto::ReadKinetoFileAhead(f, max_file_bytes, &header, each);
  imp->EndFile();
  if (over) throw BudgetReached{};
}

}  // namespace

ImportResult ImportKineto(const std::string& trace_dir, int64_t pid,
                          const std::vector<std::string>& files,
                          const std::optional<ImportStepFilter>& steps, uint64_t max_file_bytes,
                          uint64_t max_memory) {
  ImportTarget t;
  LoadImportTarget(trace_dir, pid, "PyTorch profile", &t);
  ImportResult out;
  out.format = "PyTorch profile";
  kineto::KinetoImporter imp(&t, steps, &out);
  std::vector<std::string> imported;
  MemoryBudget budget(max_memory);
  for (size_t i = 0; i < files.size(); ++i) {
    uint64_t events = 0;
    try {
      ImportKinetoFile(files[i], max_file_bytes, &budget, &imp, &events);
    } catch (const BudgetReached&) {
      out.errors.push_back(ValidUtf8(files[i]) + ": import stopped after " +
                           std::to_string(events) + " events, at record's memory budget of " +
                           BudgetText(budget.limit()) + " (record --import-max-memory); " +
                           std::to_string(files.size() - i - 1) + " later file(s) not read");
      imported.push_back(ValidUtf8(BaseName(files[i])) + " (in part)");
      out.files++;
      break;
    } catch (const std::exception& e) {
      out.errors.push_back(e.what());
      continue;
    }
    out.files++;
    imported.push_back(ValidUtf8(BaseName(files[i])));
  }
  imp.Finish();
  FinishImport(&t, "kineto", imported, imp.out_of_time, &out);
  return out;
}

}  // namespace tt
