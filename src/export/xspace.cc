#include "export/xspace.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "core/error.h"
#include "core/files.h"

namespace tt::exporter {

namespace tp = tensorflow::profiler;
using layout::ArgType;
using layout::Category;
using layout::TrackKind;

namespace {

// Plane ids as TensorFlow numbers them (host 49, GPU n at 1 + n); names are what xprof matches.
constexpr int64_t kHostPlaneId = 49;
constexpr char kHostPlaneName[] = "/host:CPU";

// One XPlane being filled: metadata interned by name, lines by id.
class PlaneBuilder {
 public:
  explicit PlaneBuilder(tp::XPlane* p) : p_(p) {}
  tp::XPlane* plane() { return p_; }

  int64_t EventMeta(std::string_view name, std::string_view display) {
    auto [it, added] = events_.try_emplace(std::string(name), events_.size() + 1);
    if (added) {
      tp::XEventMetadata& md = (*p_->mutable_event_metadata())[it->second];
      md.set_id(it->second);
      md.set_name(it->first);
      if (!display.empty() && display != name) md.set_display_name(std::string(display));
    }
    return it->second;
  }
  int64_t StatMeta(std::string_view name) {
    auto [it, added] = stats_.try_emplace(std::string(name), stats_.size() + 1);
    if (added) {
      tp::XStatMetadata& md = (*p_->mutable_stat_metadata())[it->second];
      md.set_id(it->second);
      md.set_name(it->first);
    }
    return it->second;
  }
  tp::XLine* Line(int64_t id, const std::string& name) {
    auto [it, added] = lines_.try_emplace(id, nullptr);
    if (added) {
      it->second = p_->add_lines();
      it->second->set_id(id);
    }
    if (!name.empty()) {  // the last name given wins, as for threads
      it->second->set_name(name);
      it->second->set_display_name(name);
    }
    return it->second;
  }
  // Events hold their absolute Unix time in offset_ps until Finish(); a line's start is only
  // known once all of its events are in.
  tp::XEvent* AddEvent(tp::XLine* line, std::string_view name, std::string_view display,
                       uint64_t unix_ns, uint64_t duration_ns) {
    tp::XEvent* e = line->add_events();
    e->set_metadata_id(EventMeta(name, display));
    e->set_offset_ps(static_cast<int64_t>(unix_ns));
    e->set_duration_ps(static_cast<int64_t>(duration_ns) * 1000);
    return e;
  }
  tp::XStat* Stat(tp::XEvent* e, std::string_view name) {
    tp::XStat* s = e->add_stats();
    s->set_metadata_id(StatMeta(name));
    return s;
  }
  // A text value is stored once, as the name of a stat metadata the stat refers to (what
  // TensorFlow does; xprof reads both forms): kernel details and op names repeat per event.
  void StrStat(tp::XEvent* e, std::string_view name, std::string_view value) {
    Stat(e, name)->set_ref_value(static_cast<uint64_t>(StatMeta(value)));
  }
  // Sorts each line (start, then longer first, so parents precede their children as xprof's
  // nesting pass expects) and turns absolute times into the line's timestamp and offsets.
  void Finish() {
    for (tp::XLine& l : *p_->mutable_lines()) {
      auto* ev = l.mutable_events();
      std::sort(ev->pointer_begin(), ev->pointer_end(),
                [](const tp::XEvent* a, const tp::XEvent* b) {
                  if (a->offset_ps() != b->offset_ps()) return a->offset_ps() < b->offset_ps();
                  return a->duration_ps() > b->duration_ps();
                });
      if (ev->empty()) continue;
      int64_t start = ev->begin()->offset_ps();
      int64_t end_ps = 0;
      for (tp::XEvent& e : *ev) {
        e.set_offset_ps((e.offset_ps() - start) * 1000);
        end_ps = std::max(end_ps, e.offset_ps() + e.duration_ps());
      }
      l.set_timestamp_ns(start);
      l.set_duration_ps(end_ps);
    }
  }
  // Unix time span of the finished lines, widening [*first, *last].
  void Span(int64_t* first, int64_t* last) const {
    for (const tp::XLine& l : p_->lines()) {
      if (l.events().empty()) continue;
      *first = std::min(*first, l.timestamp_ns());
      *last = std::max(*last, l.timestamp_ns() + l.duration_ps() / 1000);
    }
  }
  void Rebase(int64_t base) {
    for (tp::XLine& l : *p_->mutable_lines()) l.set_timestamp_ns(l.timestamp_ns() - base);
  }

 private:
  tp::XPlane* p_;
  std::unordered_map<std::string, int64_t> events_, stats_;
  std::unordered_map<int64_t, tp::XLine*> lines_;
};

// The XSpace of one host: its host plane and a plane per GPU.
struct HostSpace {
  std::string host;
  std::unique_ptr<tp::XSpace> space = std::make_unique<tp::XSpace>();
  std::unique_ptr<PlaneBuilder> cpu;
  std::map<uint64_t, std::unique_ptr<PlaneBuilder>> gpus;
  PlaneBuilder& Gpu(uint64_t device) {
    auto& b = gpus[device];
    if (!b) {
      tp::XPlane* p = space->add_planes();
      p->set_id(1 + static_cast<int64_t>(device));
      p->set_name("/device:GPU:" + std::to_string(device));
      b = std::make_unique<PlaneBuilder>(p);
    }
    return *b;
  }
};

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

class XSpaceVisitor : public EventVisitor {
 public:
  // `steps`: the trace's steps as `stats` finds them (step events, or --step-name annotations).
  XSpaceVisitor(const model::TraceModel& m, const std::vector<analysis::Step>& steps,
                XSpaceResult* r)
      : m_(m), r_(r) {
    for (const analysis::Step& s : steps) steps_[{s.process, s.start, s.end}] = s.number;
  }
  std::vector<std::unique_ptr<HostSpace>> hosts;

  void BeginProcess(const model::Process& p) override {
    ResolveKernelOps();
    std::string host = p.meta.hostname.empty() ? "localhost" : p.meta.hostname;
    host_ = nullptr;
    for (auto& h : hosts)
      if (h->host == host) host_ = h.get();
    if (!host_) {
      hosts.push_back(std::make_unique<HostSpace>());
      host_ = hosts.back().get();
      host_->host = host;
      host_->space->add_hostnames(host);
      tp::XPlane* cpu = host_->space->add_planes();
      cpu->set_id(kHostPlaneId);
      cpu->set_name(kHostPlaneName);
      host_->cpu = std::make_unique<PlaneBuilder>(cpu);
    }
    offset_ = p.meta.clock_offset_ns ? p.meta.clock_offset_ns : p.meta.offset_start_ns;
    keys_.clear();
    for (uint32_t i = 1; i < p.names.size(); ++i) keys_.emplace(p.names[i], i);
    op_of_corr_.clear();
    live_.clear();
    in_use_ = peak_ = 0;
    process_ = static_cast<size_t>(&p - m_.processes.data());
  }

  void BeginTrack(const model::Process&, const model::Track& t) override {
    if (t.kind == TrackKind::kDevice) {
      uint64_t device = t.id >> 32, queue = t.id & 0xffffffff;
      plane_ = &host_->Gpu(device);
      line_ = plane_->Line(static_cast<int64_t>(queue), "Stream #" + std::to_string(queue));
      device_ = device;
      queue_ = queue;
    } else {
      plane_ = host_->cpu.get();
      line_ = plane_->Line(static_cast<int64_t>(t.id),
                           t.name.empty() ? "thread " + std::to_string(t.id) : t.name);
    }
    on_device_ = t.kind == TrackKind::kDevice;
  }

  void OnSlice(const model::Process& p, const model::Track&, const model::Slice& s) override {
    std::string_view name = p.Name(s.name);
    std::string_view display = s.category == Category::kFrameworkOp ? OpType(name) : "";
    std::string copy_name;
    if (on_device_ && s.category == Category::kMemcpy) {
      // xprof tells copies apart by name ("MemcpyHToD" counts as input in the step breakdown).
      copy_name = CopyName(ArgText(p, s.args, "kind"));
      if (!copy_name.empty()) {
        display = name;
        name = copy_name;
      }
    }
    tp::XEvent* e = plane_->AddEvent(line_, name, display, Unix(s.start), s.Duration());
    CopyArgs(p, s.args, e);
    Arg corr;
    bool has_corr = Find(s.args, "correlation_id", &corr) && corr.type != ArgType::kString;
    if (on_device_) {
      Int(e, "device_id", static_cast<int64_t>(device_));
      Int(e, "stream_id", static_cast<int64_t>(queue_));
      if (s.category == Category::kGpuKernel) {
        Str(e, "kernel_details", KernelDetails(p, s.args));
        r_->kernel_events++;
      } else if (s.category == Category::kMemcpy) {
        Str(e, "memcpy_details", MemcpyDetails(p, s.args));
        r_->memcpy_events++;
      }
      Arg own;
      if (has_corr && !Find(s.args, "tf_op", &own)) pending_.push_back({e, plane_, corr.v.i});
      return;
    }
    if (s.category == Category::kFrameworkOp) r_->op_events++;
    auto step = steps_.find({process_, s.start, s.end});
    if (step != steps_.end()) {
      // A user-defined root event with a step number: xprof groups each one into a step
      // ("_r" is its root-level stat, as tf.profiler.experimental.Trace(..., _r=1) writes).
      Int(e, "step_num", step->second);
      Int(e, "_r", 1);
      r_->steps++;
    }
    // A launch: its device work gets the enclosing framework op as "tf_op".
    if (has_corr && s.op) op_of_corr_[corr.v.i] = std::string(p.Name(s.op));
  }

  void OnPoint(const model::Process& p, const model::Track&, const model::Point& pt) override {
    std::string_view name = p.Name(pt.name);
    tp::XEvent* e = plane_->AddEvent(line_, name, "", Unix(pt.ts), 0);
    if (pt.counter) {
      plane_->Stat(e, "value")->set_double_value(pt.value);
      return;
    }
    CopyArgs(p, pt.args, e);
    if (pt.category == Category::kAllocation && !on_device_) Memory(p, pt, name, e);
  }

  // Device work gets its launching op once the whole process is seen (a device queue may come
  // before the launching thread).
  void ResolveKernelOps() {
    for (const Pending& k : pending_) {
      auto it = op_of_corr_.find(k.corr);
      if (it != op_of_corr_.end() && !it->second.empty())
        k.plane->StrStat(k.event, "tf_op", it->second);
    }
    pending_.clear();
  }

  // Lines start at their first event; their times become relative to the profile's start
  // (`start_ns`, or the first event if earlier), which the "Task Environment" plane records,
  // as TensorFlow writes it: xprof works in int64 picoseconds, which Unix nanoseconds overflow.
  void Finish(int64_t start_ns) {
    ResolveKernelOps();
    for (auto& h : hosts) {
      std::vector<PlaneBuilder*> planes{h->cpu.get()};
      for (auto& [d, g] : h->gpus) planes.push_back(g.get());
      int64_t first = start_ns ? start_ns : INT64_MAX, last = 0;
      for (PlaneBuilder* b : planes) {
        b->Finish();
        b->Span(&first, &last);
      }
      for (PlaneBuilder* b : planes) b->Rebase(first);
      tp::XPlane* env = h->space->add_planes();
      env->set_name("Task Environment");
      PlaneBuilder eb(env);
      auto stat = [&](const char* name, int64_t v) {
        tp::XStat* st = env->add_stats();
        st->set_metadata_id(eb.StatMeta(name));
        st->set_uint64_value(static_cast<uint64_t>(v));
      };
      stat("profile_start_time", first);
      stat("profile_stop_time", std::max(first, last));
    }
  }

 private:
  struct Pending {
    tp::XEvent* event;
    PlaneBuilder* plane;
    int64_t corr;
  };

  uint64_t Unix(uint64_t ts) const {
    return static_cast<uint64_t>(static_cast<int64_t>(ts) + offset_);
  }

  bool Find(const model::ArgsView& a, const char* key, Arg* out) const {
    auto it = keys_.find(key);
    return it != keys_.end() && a.Find(it->second, out);
  }
  void Int(tp::XEvent* e, std::string_view k, int64_t v) { plane_->Stat(e, k)->set_int64_value(v); }
  void Str(tp::XEvent* e, std::string_view k, const std::string& v) { plane_->StrStat(e, k, v); }

  void CopyArgs(const model::Process& p, const model::ArgsView& args, tp::XEvent* e) {
    if (args.count == 0) return;
    for (const Arg& a : ArgList(args)) {
      tp::XStat* st = plane_->Stat(e, p.Name(a.key));
      switch (a.type) {
        case ArgType::kInt:
          st->set_int64_value(a.v.i);
          break;
        case ArgType::kUint:
          st->set_uint64_value(a.v.u);
          break;
        case ArgType::kFloat:
          st->set_double_value(a.v.f);
          break;
        case ArgType::kString:
          st->set_ref_value(static_cast<uint64_t>(plane_->StatMeta(p.Name(a.v.str))));
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
    add("regs", ArgText(p, a, "registers"));
    add("static_shared", ArgText(p, a, "static_shared"));
    add("dynamic_shared", ArgText(p, a, "dynamic_shared"));
    add("grid", Dims(ArgText(p, a, "grid")));
    add("block", Dims(ArgText(p, a, "block")));
    // Non-empty details are what mark a device event as a kernel for xprof.
    return o.empty() ? "grid:1,1,1 block:1,1,1" : o;
  }

  std::string MemcpyDetails(const model::Process& p, const model::ArgsView& a) {
    std::string kind = ArgText(p, a, "kind"), bytes = ArgText(p, a, "bytes");
    return "kind:" + (kind.empty() ? std::string("unknown") : kind) +
           " size:" + (bytes.empty() ? std::string("0") : bytes) +
           " dest:" + std::to_string(device_);
  }

  // The stats xprof's memory profile reads from MemoryAllocation/MemoryDeallocation events;
  // the running total and peak are this process's, from the sizes the trace gives.
  void Memory(const model::Process& p, const model::Point& pt, std::string_view name,
              tp::XEvent* e) {
    Arg a;
    int64_t addr = Find(pt.args, "addr", &a) && a.type != ArgType::kString ? a.v.i : 0;
    int64_t bytes = Find(pt.args, "bytes", &a) && a.type != ArgType::kString ? a.v.i : 0;
    if (name == "MemoryAllocation") {
      live_[addr] = bytes;
      in_use_ += bytes;
    } else if (name == "MemoryDeallocation") {
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
    std::string allocator = ArgText(p, pt.args, "allocator");
    Str(e, "allocator_name", allocator.empty() ? "tensortrace" : allocator);
    Int(e, "bytes_allocated", in_use_);
    Int(e, "peak_bytes_in_use", peak_);
    Int(e, "requested_bytes", bytes);
    Int(e, "allocation_bytes", bytes);
    Int(e, "bytes_reserved", 0);
    Int(e, "bytes_available", 0);
    // No "tf_op" here: xprof would count each allocation as one more run of its op.
  }

  const model::TraceModel& m_;
  std::map<std::tuple<size_t, uint64_t, uint64_t>, int64_t> steps_;  // (process, start, end)
  size_t process_ = 0;
  XSpaceResult* r_;
  HostSpace* host_ = nullptr;
  PlaneBuilder* plane_ = nullptr;
  tp::XLine* line_ = nullptr;
  bool on_device_ = false;
  uint64_t device_ = 0, queue_ = 0;
  int64_t offset_ = 0;
  std::unordered_map<std::string_view, uint32_t> keys_;
  std::unordered_map<int64_t, std::string> op_of_corr_;
  std::vector<Pending> pending_;
  std::unordered_map<int64_t, int64_t> live_;  // address -> bytes
  int64_t in_use_ = 0, peak_ = 0;
};

// Creates the missing directories of `path`, recording them (outermost first) for clean-up.
void MakeDirs(const std::string& path, std::vector<std::string>* created) {
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/') continue;
    std::string dir = path.substr(0, pos);
    if (IsDirectory(dir)) continue;
    if (mkdir(dir.c_str(), 0755) != 0)
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

std::string XSpaceRunName(uint64_t unix_ns) {
  time_t secs = static_cast<time_t>(unix_ns / 1000000000);
  struct tm tm;
  localtime_r(&secs, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y_%m_%d_%H_%M_%S", &tm);
  return b;
}

std::vector<std::pair<std::string, tp::XSpace>> BuildXSpaces(const model::TraceModel& m,
                                                             const Selection& sel,
                                                             std::vector<Problem>* problems,
                                                             XSpaceResult* result) {
  XSpaceVisitor v(m, analysis::FindSteps(m, sel.step_names, 0), result);
  result->walk = Walk(m, sel, v, problems);
  v.Finish(static_cast<int64_t>(TraceStart(m)));
  std::vector<std::pair<std::string, tp::XSpace>> out;
  for (auto& h : v.hosts) out.emplace_back(h->host, std::move(*h->space));
  return out;
}

XSpaceResult WriteXSpace(const model::TraceModel& m, const Selection& sel,
                         const std::string& logdir, std::vector<Problem>* problems) {
  if (PathExists(logdir) && !IsDirectory(logdir))
    throw Error("-o: " + logdir + " is a file; xspace writes a log directory (give a directory)");
  XSpaceResult r;
  auto spaces = BuildXSpaces(m, sel, problems, &r);
  // The run is named after the trace's start, as TensorFlow names it after the profile's.
  uint64_t start = TraceStart(m);
  std::string root = logdir;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  r.run_dir = root + "/plugins/profile/" + XSpaceRunName(start);
  if (IsDirectory(r.run_dir) && !ListDirectory(r.run_dir).empty())
    throw Error("-o: the run directory " + r.run_dir +
                " exists and is not empty; give another log directory");
  std::vector<std::string> created;
  try {
    MakeDirs(r.run_dir, &created);
    for (auto& [host, space] : spaces) {
      std::string file = host;
      std::replace(file.begin(), file.end(), '/', '_');
      file = r.run_dir + "/" + file + ".xplane.pb";
      std::string data;
      if (!space.SerializeToString(&data))
        throw Error("cannot encode the XSpace for host " + host +
                    " (over 2 GiB? choose fewer "
                    "events with --steps A:B or --max-events N)");
      WriteFileAtomic(file, data);
      r.files.push_back(file);
      r.bytes += data.size();
    }
  } catch (...) {
    for (const auto& f : r.files) unlink(f.c_str());
    for (auto it = created.rbegin(); it != created.rend(); ++it) rmdir(it->c_str());
    throw;
  }
  return r;
}

}  // namespace tt::exporter
