// The XSpace exporter (export/xspace.h): the walk's events become XEvents on each host's planes
// (XSpaceWriter). The planes, lines and their encoding are in xspace_plane.h; the files are
// written by xspace_files.cc.
#include "export/xspace.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>
#include <unordered_map>

#include "analysis/pass/correlate.h"
#include "core/error.h"
#include "core/files.h"
#include "export/proto_wire.h"
#include "export/xspace_files.h"
#include "export/xspace_plane.h"
#include "format/keys.h"

namespace tt::exporter {

using layout::ArgType;
using layout::Category;
using layout::TrackKind;

namespace xspace {
namespace {

// Plane ids as TensorFlow numbers them (host 49, GPU n at 1 + n); names are what xprof matches.
constexpr int64_t kHostPlaneId = 49;
constexpr char kHostPlaneName[] = "/host:CPU";

// "128x1x1" (how the CUPTI source writes dimensions) -> "128,1,1" (how kernel_details has them).
std::string Dims(std::string_view s) {
  std::string o(s);
  std::replace(o.begin(), o.end(), 'x', ',');
  return o;
}

// "HtoD" (the copy kind as the CUPTI source writes it) -> "MemcpyHToD", TensorFlow's name.
std::string CopyName(std::string kind) {
  size_t to = kind.find("to");
  if (kind.empty() || to == std::string::npos) return "";
  kind[to] = 'T';
  return "Memcpy" + kind;
}

std::string_view OpType(std::string_view name) {
  size_t colon = name.rfind(':');
  return colon == std::string_view::npos ? std::string_view() : name.substr(colon + 1);
}

uint64_t Load64(std::string_view s, size_t at) {
  uint64_t v;
  std::memcpy(&v, s.data() + at, 8);
  return v;
}

// The walk's events become XEvents, encoded at once and sorted on disk (SpillSorter) per line;
// planes, lines and metadata stay in memory. Write() then writes each host's file in one pass
// over the sorted events, its lengths known from a first pass that sizes every line
// (WriteFiles).
class XSpaceWriter : public EventVisitor {
 public:
  // `steps`: the trace's steps as `stats` finds them (step events, or --step-name annotations).
  XSpaceWriter(const model::TraceModel& m, const std::vector<analysis::Step>& steps,
               const std::string& run_dir, const XSpaceOptions& o, XSpaceResult* r)
      : m_(m), steps_(m.processes.size()), r_(r), events_(run_dir, o.sort), launches_(run_dir, [&] {
          SpillOptions half = o.sort;  // device work waiting for its launching op: less
          half.budget = std::max<size_t>(1, o.sort.budget / 2);
          return half;
        }()) {
    // A step's event is its own slice: a JAX step's call, not through its execution.
    for (const analysis::Step& s : steps)
      steps_[s.process].push_back({s.start, s.slice_end ? s.slice_end : s.end, s.number});
    for (auto& v : steps_) v.shrink_to_fit();
  }

  void BeginProcess(const model::Process& p) override {
    std::string host = p.meta.hostname.empty() ? "localhost" : p.meta.hostname;
    host_ = SIZE_MAX;
    for (size_t i = 0; i < hosts_.size(); ++i)
      if (hosts_[i].name == host) host_ = i;
    if (host_ == SIZE_MAX) {
      host_ = hosts_.size();
      hosts_.push_back({});
      hosts_.back().name = host;
      hosts_.back().planes.push_back(std::make_unique<Plane>(kHostPlaneId, kHostPlaneName));
    }
    offset_ = p.meta.clock_offset_ns ? p.meta.clock_offset_ns : p.meta.offset_start_ns;
    if (!m_.clocks.empty()) offset_ = m_.realtime_offset_ns;  // several recordings, aligned
    keys_.clear();
    for (uint32_t i = 1; i < p.names.size(); ++i) keys_.emplace(p.names[i], i);
    link_keys_ = analysis::LinkKeysOf(p);
    live_.clear();
    in_use_ = peak_ = 0;
    process_ = static_cast<size_t>(&p - m_.processes.data());
  }

  void BeginTrack(const model::Process&, const model::Track& t) override {
    Host& h = hosts_[host_];
    size_t pi = 0;
    if (t.kind == TrackKind::kDevice) {
      uint64_t device = t.id >> 32, queue = t.id & 0xffffffff;
      auto [it, added] = h.gpu.try_emplace(device, h.planes.size());
      if (added)
        h.planes.push_back(std::make_unique<Plane>(1 + static_cast<int64_t>(device),
                                                   "/device:GPU:" + std::to_string(device)));
      pi = it->second;
      plane_ = h.planes[pi].get();
      line_key_ = LineKey(
          host_, pi,
          plane_->FindLine(static_cast<int64_t>(queue), "Stream #" + std::to_string(queue)));
      device_ = device;
      queue_ = queue;
    } else {
      plane_ = h.planes[0].get();
      line_key_ =
          LineKey(host_, 0,
                  plane_->FindLine(static_cast<int64_t>(t.id),
                                   t.name.empty() ? "thread " + std::to_string(t.id) : t.name));
    }
    on_device_ = t.kind == TrackKind::kDevice;
  }

  void OnSlice(const model::Process& p, const model::Track&, const model::Slice& s) override {
    std::string_view name = p.Name(s.name);
    std::string_view display = s.category == Category::kFrameworkOp ? OpType(name) : "";
    std::string copy_name;
    if (on_device_ && s.category == Category::kMemcpy) {
      // xprof tells copies apart by name ("MemcpyHToD" counts as input in the step breakdown).
      copy_name = CopyName(ArgText(p, s.args, keys::kKind));
      if (!copy_name.empty()) {
        display = name;
        name = copy_name;
      }
    }
    StartEvent(name, display, Unix(s.start), s.Duration());
    CopyArgs(p, s.args);
    analysis::LinkIds ids = analysis::IdsOf(link_keys_, s.args);
    if (on_device_) {
      Int("device_id", static_cast<int64_t>(device_));
      Int("stream_id", static_cast<int64_t>(queue_));
      if (s.category == Category::kGpuKernel) {
        Str("kernel_details", KernelDetails(p, s.args));
        r_->kernel_events++;
      } else if (s.category == Category::kMemcpy) {
        Str("memcpy_details", MemcpyDetails(p, s.args));
        r_->memcpy_events++;
      }
      Arg own;
      // Its "tf_op" is the op around its launch, known once the process's threads are seen
      // (a device queue may come before the launching thread): it waits in launches_.
      EndEvent(ids.corr >= 0 && !Find(s.args, keys::kTfOp, &own), ids.corr);
      return;
    }
    if (s.category == Category::kFrameworkOp) r_->op_events++;
    int64_t step;
    if (StepNumber(s.start, s.end, &step)) {
      // A user-defined root event with a step number: xprof groups each one into a step
      // ("_r" is its root-level stat, as tf.profiler.experimental.Trace(..., _r=1) writes).
      Int(keys::xstat::kStepNum, step);
      Int(keys::xstat::kRootLevel, 1);
      r_->steps++;
    }
    EndEvent(false, 0);
    // A launch (analysis::IsLaunch): its device work gets the op around it as "tf_op".
    if (analysis::IsLaunch(s, ids)) {
      std::string op;
      uint32_t id = s.op;
      op.append(reinterpret_cast<const char*>(&id), 4);
      launches_.Add({static_cast<uint64_t>(ids.corr), 0, 0}, op);
    }
  }

  void OnPoint(const model::Process& p, const model::Track&, const model::Point& pt) override {
    std::string_view name = p.Name(pt.name);
    StartEvent(name, "", Unix(pt.ts), 0);
    if (pt.counter) {
      Stat("value", stat::kDouble, 0, pt.value);
    } else {
      CopyArgs(p, pt.args);
      if (pt.category == Category::kAllocation && !on_device_) Memory(p, pt, name);
    }
    EndEvent(false, 0);
  }

  // The process's device work that waits for its launch's op: joined with the launches by
  // correlation id (both sorted by it, on disk past the budget), then sorted with the other
  // events. The join is analysis::LinkTables' lookup of a launch (the last launch with an id
  // wins; DeviceLink::launch_op), made on sorted runs so that memory stays the sort's budget.
  void EndProcess(const model::Process& p, size_t, const Chosen&) override {
    if (launches_.records() == 0) return;
    SpillSorter::Cursor c = launches_.Sorted();
    SpillKey k;
    std::string_view rec;
    uint64_t corr = 0;
    uint32_t op = 0;
    bool any = false;
    while (c.Next(&k, &rec)) {
      if (!any || k.a != corr) {
        any = true;
        corr = k.a;
        op = 0;
      }
      if (k.b == 0) {  // a launch: the last one with this id wins
        std::memcpy(&op, rec.data(), 4);
        continue;
      }
      SpillKey ek{Load64(rec, 0), Load64(rec, 8), Load64(rec, 16)};
      std::string_view body = rec.substr(24);
      std::string_view op_name = p.Name(op);
      if (op_name.empty()) {
        events_.Add(ek, body);
        continue;
      }
      Plane& pl = *hosts_[HostOf(ek.a)].planes[PlaneOf(ek.a)];
      joined_.assign(body);
      EncodeStat(joined_, pl.StatMeta(keys::xstat::kTfOp), stat::kRef, pl.StatMeta(op_name), 0);
      events_.Add(ek, joined_);
    }
    launches_.Clear();
  }

  // Writes each host's file in `run_dir` (WriteFiles); `start_ns`: the trace's start.
  void Write(int64_t start_ns, const std::string& run_dir) {
    WriteFiles(hosts_, events_, start_ns, run_dir, r_);
  }

 private:
  uint64_t Unix(uint64_t ts) const {
    return static_cast<uint64_t>(static_cast<int64_t>(ts) + offset_);
  }

  bool StepNumber(uint64_t start, uint64_t end, int64_t* number) const {
    const std::vector<StepAt>& steps = steps_[process_];
    auto it = std::lower_bound(steps.begin(), steps.end(), start,
                               [](const StepAt& s, uint64_t t) { return s.start < t; });
    bool found = false;
    for (; it != steps.end() && it->start == start; ++it)
      if (it->end == end) {  // the last of equal steps, as a map filled in order keeps it
        *number = it->number;
        found = true;
      }
    return found;
  }

  void StartEvent(std::string_view name, std::string_view display, uint64_t unix_ns,
                  uint64_t duration_ns) {
    cur_.assign(8 * 3, '\0');  // room for the sort key, when it waits for its launch
    cur_start_ = static_cast<int64_t>(unix_ns);
    cur_duration_ = duration_ns;
    wire::Varint(cur_, static_cast<uint64_t>(plane_->EventMeta(name, display)));
  }
  void EndEvent(bool needs_op, int64_t corr) {
    Line& l = plane_->lines()[LineOf(line_key_)];
    l.first = std::min(l.first, cur_start_);
    l.end = std::max(l.end, cur_start_ + static_cast<int64_t>(cur_duration_));
    l.events++;
    SpillKey k = EventKey(line_key_, cur_start_, cur_duration_);
    if (!needs_op) {
      events_.Add(k, std::string_view(cur_).substr(24));
      return;
    }
    std::memcpy(cur_.data(), &k.a, 8);
    std::memcpy(cur_.data() + 8, &k.b, 8);
    std::memcpy(cur_.data() + 16, &k.c, 8);
    launches_.Add({static_cast<uint64_t>(corr), 1, 0}, cur_);
  }

  void Stat(std::string_view name, uint32_t kind, uint64_t u, double d) {
    EncodeStat(cur_, plane_->StatMeta(name), kind, u, d);
  }
  void Int(std::string_view k, int64_t v) { Stat(k, stat::kInt64, static_cast<uint64_t>(v), 0); }
  // A text value is stored once, as the name of a stat metadata the stat refers to (what
  // TensorFlow does; xprof reads both forms): kernel details and op names repeat per event.
  void Str(std::string_view k, std::string_view v) {
    int64_t key = plane_->StatMeta(k);
    EncodeStat(cur_, key, stat::kRef, static_cast<uint64_t>(plane_->StatMeta(v)), 0);
  }

  bool Find(const model::ArgsView& a, const char* key, Arg* out) const {
    auto it = keys_.find(key);
    return it != keys_.end() && a.Find(it->second, out);
  }

  void CopyArgs(const model::Process& p, const model::ArgsView& args) {
    if (args.count == 0) return;
    for (const Arg& a : ArgList(args)) {
      switch (a.type) {
        case ArgType::kInt:
          Int(p.Name(a.key), a.v.i);
          break;
        case ArgType::kUint:
          Stat(p.Name(a.key), stat::kUint64, a.v.u, 0);
          break;
        case ArgType::kFloat:
          Stat(p.Name(a.key), stat::kDouble, 0, a.v.f);
          break;
        case ArgType::kString:
          Str(p.Name(a.key), p.Name(a.v.str));
          break;
      }
    }
  }

  std::string ArgText(const model::Process& p, const model::ArgsView& a, const char* key) {
    Arg x;
    return Find(a, key, &x) ? ArgValueText(p, x) : std::string();
  }

  // The launch parameters in the "key:value ..." form xprof's kernel stats parse.
  std::string KernelDetails(const model::Process& p, const model::ArgsView& a) {
    std::string o;
    auto add = [&](const char* out_key, const std::string& v) {
      if (v.empty()) return;
      o += (o.empty() ? "" : " ") + std::string(out_key) + ":" + v;
    };
    add("regs", ArgText(p, a, keys::kRegisters));
    add("static_shared", ArgText(p, a, keys::kStaticShared));
    add("dynamic_shared", ArgText(p, a, keys::kDynamicShared));
    add("grid", Dims(ArgText(p, a, keys::kGrid)));
    add("block", Dims(ArgText(p, a, keys::kBlock)));
    // Non-empty details are what mark a device event as a kernel for xprof.
    return o.empty() ? "grid:1,1,1 block:1,1,1" : o;
  }

  std::string MemcpyDetails(const model::Process& p, const model::ArgsView& a) {
    std::string kind = ArgText(p, a, keys::kKind), bytes = ArgText(p, a, keys::kBytes);
    return "kind:" + (kind.empty() ? std::string("unknown") : kind) +
           " size:" + (bytes.empty() ? std::string("0") : bytes) +
           " dest:" + std::to_string(device_);
  }

  // The stats xprof's memory profile reads from MemoryAllocation/MemoryDeallocation events;
  // the running total and peak are this process's, from the sizes the trace gives.
  void Memory(const model::Process& p, const model::Point& pt, std::string_view name) {
    Arg a;
    int64_t addr = Find(pt.args, keys::kAddr, &a) && a.type != ArgType::kString ? a.v.i : 0;
    int64_t bytes = Find(pt.args, keys::kBytes, &a) && a.type != ArgType::kString ? a.v.i : 0;
    if (name == keys::kMemoryAllocation) {
      live_[addr] = bytes;
      in_use_ += bytes;
    } else if (keys::IsFreeEvent(name)) {
      auto it = live_.find(addr);
      if (it != live_.end()) {
        if (bytes == 0) bytes = it->second;
        in_use_ -= it->second;
        live_.erase(it);
      }
    } else {
      return;
    }
    peak_ = std::max(peak_, in_use_);
    std::string allocator = ArgText(p, pt.args, keys::kAllocator);
    Str(keys::xstat::kAllocatorName, allocator.empty() ? "tensortrace" : allocator);
    Int(keys::xstat::kBytesAllocated, in_use_);
    Int(keys::xstat::kPeakBytesInUse, peak_);
    Int(keys::xstat::kRequestedBytes, bytes);
    Int(keys::xstat::kAllocationBytes, bytes);
    Int(keys::xstat::kBytesReserved, 0);
    Int(keys::xstat::kBytesAvailable, 0);
    // No "tf_op" here: xprof would count each allocation as one more run of its op.
  }

  struct StepAt {
    uint64_t start, end;
    int64_t number;
  };
  const model::TraceModel& m_;
  std::vector<std::vector<StepAt>> steps_;  // per process, by start
  size_t process_ = 0;
  XSpaceResult* r_;
  std::vector<Host> hosts_;
  size_t host_ = 0;
  Plane* plane_ = nullptr;
  uint64_t line_key_ = 0;
  bool on_device_ = false;
  uint64_t device_ = 0, queue_ = 0;
  int64_t offset_ = 0;
  std::unordered_map<std::string_view, uint32_t> keys_;
  std::unordered_map<int64_t, int64_t> live_;  // address -> bytes
  int64_t in_use_ = 0, peak_ = 0;
  // The event being built: room for a sort key, its metadata id, its stats.
  std::string cur_, joined_;
  int64_t cur_start_ = 0;
  uint64_t cur_duration_ = 0;
  SpillSorter events_;  // every event, by line, start, longer first
  analysis::LinkKeys link_keys_;
  SpillSorter launches_;  // this process's launches and the device work waiting for their op
};

// Creates the missing directories of `path`, recording them (outermost first) for clean-up.
void MakeDirs(const std::string& path, std::vector<std::string>* created) {
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/') continue;
    std::string dir = path.substr(0, pos);
    if (IsDirectory(dir)) continue;
    if (!MakeDirectory(dir))
      throw Error("cannot create directory " + dir + ": " + std::strerror(errno) +
                  " (give a writable log directory with -o)");
    created->push_back(dir);
  }
}

// Unix time the trace began: its earliest process start (0 when unknown).
uint64_t TraceStart(const model::TraceModel& m) {
  uint64_t start = UINT64_MAX;
  for (const auto& p : m.processes)
    if (p.meta.start_realtime_ns) start = std::min(start, p.meta.start_realtime_ns);
  return start == UINT64_MAX ? 0 : start;
}

}  // namespace
}  // namespace xspace

std::string XSpaceRunName(uint64_t unix_ns) {
  time_t secs = static_cast<time_t>(unix_ns / 1000000000);
  struct tm tm;
  localtime_r(&secs, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y_%m_%d_%H_%M_%S", &tm);
  return b;
}

XSpaceResult WriteXSpace(const model::TraceModel& m, const Selection& sel,
                         const std::string& logdir, std::vector<Problem>* problems,
                         const XSpaceOptions& options) {
  if (PathExists(logdir) && !IsDirectory(logdir))
    throw Error("-o: " + logdir + " is a file; xspace writes a log directory (give a directory)");
  XSpaceResult r;
  // The run is named after the trace's start, as TensorFlow names it after the profile's.
  uint64_t start = xspace::TraceStart(m);
  std::string root = logdir;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  r.run_dir = root + "/plugins/profile/" + XSpaceRunName(start);
  if (IsDirectory(r.run_dir) && !ListDirectory(r.run_dir).empty())
    throw Error("-o: the run directory " + r.run_dir +
                " exists and is not empty; give another log directory");
  std::vector<std::string> created;
  try {
    xspace::MakeDirs(r.run_dir, &created);
    // The events are sorted in temporary files in the run directory (unlinked at creation):
    // on the file system that takes the output.
    // The steps first (held as 24 bytes each), then the walk.
    xspace::XSpaceWriter w(m, analysis::FindSteps(m, sel.step_names, 0), r.run_dir, options, &r);
    r.walk = Walk(m, sel, w, problems);
    w.Write(static_cast<int64_t>(start), r.run_dir);
  } catch (...) {
    for (const auto& f : r.files) unlink(f.c_str());
    for (auto it = created.rbegin(); it != created.rend(); ++it) rmdir(it->c_str());
    throw;
  }
  return r;
}

}  // namespace tt::exporter
