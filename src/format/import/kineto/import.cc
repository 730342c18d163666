#include "format/import/kineto/import.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "core/files.h"
#include "format/import/kineto/classify.h"
#include "format/import/untrusted.h"
#include "format/keys.h"
#include "format/slice_order.h"

namespace tt {

using layout::ArgType;
using layout::Category;
using nlohmann::json;

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

namespace {

// One timeline: a host thread (tid) or a GPU stream (device, stream).
struct Timeline {
  bool device = false;
  uint64_t id = 0;
  std::string name;
  std::vector<LineEvent> items;
  std::vector<Arg> args;
  std::vector<uint64_t> fetches;         // starts of DataLoader fetches
  std::vector<uint64_t> zero_grads;      // starts of optimizer zero_grads
  std::map<uint32_t, uint32_t> modules;  // "nn.Module: <path>" range name -> <path>
};

// A member of a JSON object, or null.
const json& Field(const json& o, const char* key) {
  static const json kNull;
  if (!o.is_object()) return kNull;
  auto it = o.find(key);
  return it == o.end() ? kNull : *it;
}

std::string FieldStr(const json& o, const char* key) {
  const json& v = Field(o, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

int64_t JsonInt(const json& v, int64_t dflt = -1) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float() && std::isfinite(v.get<double>())) return std::llround(v.get<double>());
  return dflt;
}

// Bytes of one element: record_param_comms' dtype names ("Float") and Kineto's input types
// (C++ names: "float", "long int", "c10::BFloat16").
size_t DtypeBytes(std::string_view t) {
  if (t.starts_with("c10::")) t.remove_prefix(5);
  for (auto [names, bytes] : std::initializer_list<std::pair<std::string_view, size_t>>{
           {"|Double|double|Long|long int|long|int64_t|ComplexFloat|", 8},
           {"|Float|float|Int|int|int32_t|unsigned int|", 4},
           {"|Half|BFloat16|Short|short int|short|", 2},
           {"|Byte|Char|Bool|bool|unsigned char|signed char|", 1}})
    if (!t.empty() && names.find("|" + std::string(t) + "|") != std::string_view::npos)
      return bytes;
  return 0;
}

// The bytes of an op's tensor inputs, from Kineto's "Input Dims" and "Input type" (0 when an
// input's element size is unknown).
int64_t InputBytes(const json& dims, const json& types) {
  if (!dims.is_array() || !types.is_array() || dims.size() != types.size()) return 0;
  int64_t total = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!dims[i].is_array() || dims[i].empty() || !types[i].is_string()) continue;
    size_t eb = DtypeBytes(types[i].get<std::string>());
    if (!eb) return 0;
    int64_t n = 1;
    for (const auto& d : dims[i])
      n = d.is_number_integer() && d.get<int64_t>() >= 0 ? n * d.get<int64_t>() : 0;
    total += n * static_cast<int64_t>(eb);
  }
  return total;
}

// The elements of an op's first tensor input, or of the tensors of its first TensorList input
// (c10d's ops take one: [[[2212]]]); -1 when unknown.
int64_t Nelems(const json& dims) {
  if (!dims.is_array() || dims.empty() || !dims[0].is_array() || dims[0].empty()) return -1;
  auto count = [](const json& shape) {
    int64_t n = 1;
    for (const auto& d : shape)
      n = d.is_number_integer() && d.get<int64_t>() >= 0 ? n * d.get<int64_t>() : -1;
    return n;
  };
  if (!dims[0][0].is_array()) return count(dims[0]);
  int64_t total = 0;
  for (const auto& t : dims[0]) {
    if (!t.is_array() || count(t) < 0) return -1;
    total += count(t);
  }
  return total;
}

std::string FirstType(const json& types) {
  return types.is_array() && !types.empty() && types[0].is_string() ? types[0].get<std::string>()
                                                                    : std::string();
}

// c10d's send and recv_ take (tensors, group, peer, tag): the peer's rank in the group is their
// third input, which Kineto records as a string among "Concrete Inputs" ("1"); -1 otherwise.
int64_t PeerRank(std::string_view collective, const json& args) {
  if (collective != "send" && collective != "recv") return -1;
  const json& in = Field(args, "Concrete Inputs");
  if (!in.is_array() || in.size() < 3 || !in[2].is_string()) return -1;
  const std::string& v = in[2].get_ref<const std::string&>();
  int64_t n = -1;
  auto r = std::from_chars(v.data(), v.data() + v.size(), n);
  return r.ec == std::errc() && r.ptr == v.data() + v.size() ? n : -1;
}

// "c10d::allreduce_" and "gloo:all_reduce" -> "allreduce": one collective's two names.
std::string CollectiveKey(std::string_view name) {
  name.remove_prefix(name.rfind(':') == std::string_view::npos ? 0 : name.rfind(':') + 1);
  std::string key;
  for (char c : name)
    if (c != '_') key.push_back(c);
  return key;
}

class KinetoImporter {
 public:
  KinetoImporter(ImportTarget* t, const std::optional<ImportStepFilter>& steps, ImportResult* out)
      : t_(t), steps_(steps), out_(out) {}

  // `first_step`: the optimizer steps the program had done when this window started.
  void ImportFile(const json& doc, int64_t first_step) {
    window_ = window_first_step_.size();
    window_first_step_.push_back(first_step);
    window_start_.push_back(UINT64_MAX);
    base_ns_ = 0;
    if (auto b = doc.find("baseTimeNanoseconds"); b != doc.end() && b->is_number_unsigned())
      base_ns_ = b->get<uint64_t>();
    auto evs = doc.find("traceEvents");
    if (evs == doc.end() || !evs->is_array()) throw Error("no traceEvents array");
    ReadDistributedInfo(Field(doc, "distributedInfo"));
    flow_ends_.clear();
    profile_ = {UINT64_MAX, 0};
    extent_ = {UINT64_MAX, 0};
    for (const auto& e : *evs)
      if (e.is_object()) ImportEvent(e);
    WriteFlows();
    // The window this file covers: Kineto's own span of the profile, else its events' extent.
    auto w = profile_.first < profile_.second ? profile_ : extent_;
    out_->windows.push_back(w.first < w.second ? w : std::pair<uint64_t, uint64_t>{0, 0});
  }

  void Finish() {
    SynthesizeSteps();
    InheritParamComms();
    PairCollectives();
    for (auto& [key, tl] : timelines_) WriteTimeline(&tl);
    WriteAllocatorCounters(t_, "ka", &allocators_, out_);
  }

  uint64_t out_of_time = 0;
  uint64_t foreign = 0;  // events of other processes or of no numeric thread

 private:
  // Kineto's times: microseconds (with nanosecond decimals) after baseTimeNanoseconds, on the
  // Unix epoch (CLOCK_REALTIME).
  bool Time(const json& us, uint64_t* out) {
    if (!us.is_number()) return false;
    double v = us.get<double>();
    if (!std::isfinite(v) || std::fabs(v) > 1e15) return false;
    __int128 ns = static_cast<__int128>(base_ns_) + static_cast<__int128>(std::llround(v * 1e3));
    ns = std::clamp<__int128>(ns, 0, INT64_MAX);
    *out = t_->clock.Convert(static_cast<int64_t>(ns));
    return *out >= t_->earliest && *out <= t_->latest;
  }

  Timeline* TimelineOf(const json& e, bool device) {
    int64_t pid = JsonInt(Field(e, "pid"));
    int64_t tid = JsonInt(Field(e, "tid"));
    if (tid < 0 || pid < 0 || (!device && pid != t_->proc.meta.pid)) return nullptr;
    uint64_t id = device ? (static_cast<uint64_t>(pid) << 32) | static_cast<uint32_t>(tid)
                         : static_cast<uint64_t>(tid);
    Timeline& tl = timelines_[{device, id}];
    tl.device = device;
    tl.id = id;
    return &tl;
  }

  void ImportEvent(const json& e) {
    std::string ph = FieldStr(e, "ph");
    std::string name = FieldStr(e, "name");
    if (ph == "M") {
      if (name == "thread_name") NameThread(e);
      return;
    }
    if (ph == "i" && name == "[memory]") return Memory(e);
    std::string cat = FieldStr(e, "cat");
    if ((ph == "s" || ph == "f") && cat == "fwdbwd") return FlowEnd(e, ph == "s");
    if (ph != "X") return;
    if (cat == "Trace") return ProfileSpan(e);
    KinetoKind k = ClassifyKineto(cat, name);
    if (k.skip) return;
    if (k.step && steps_ && k.step_number >= 0 &&
        (k.step_number < steps_->first || k.step_number > steps_->last))
      return;
    Timeline* tl = TimelineOf(e, k.device);
    if (!tl) {
      foreign++;
      return;
    }
    LineEvent ev;
    uint64_t dur_ns = 0;
    if (auto d = e.find("dur"); d != e.end() && d->is_number() && d->get<double>() > 0)
      dur_ns = static_cast<uint64_t>(std::llround(std::min(d->get<double>(), 1e12) * 1e3));
    if (!Time(Field(e, "ts"), &ev.start)) {
      out_of_time++;
      return;
    }
    ev.end = std::min(ev.start + dur_ns, t_->latest);
    extent_ = {std::min(extent_.first, ev.start), std::max(extent_.second, ev.end)};
    ev.name = t_->Name(name);
    if (!ev.name) return;
    ev.category = k.category;
    ev.args = tl->args.size();
    AddArgs(tl, k, name, Field(e, "args"));
    ev.nargs = static_cast<uint32_t>(tl->args.size() - ev.args);
    if (k.step) out_->steps++;
    if (k.optimizer_step) optimizer_steps_.push_back({tl, ev.start, ev.end, window_});
    window_start_[window_] = std::min(window_start_[window_], ev.start);
    if (name.starts_with("enumerate(DataLoader)")) tl->fetches.push_back(ev.start);
    if (name.starts_with("Optimizer.zero_grad#")) tl->zero_grads.push_back(ev.start);
    if (k.category == Category::kStep) has_step_markers_ = true;
    if (k.module && name.size() > 11) tl->modules.emplace(ev.name, t_->Name(name.substr(11)));
    if (k.comm || name.starts_with("c10d::"))
      comms_.push_back(
          {tl, tl->items.size(), name, Nelems(Field(Field(e, "args"), "Input Dims")),
           FirstType(Field(Field(e, "args"), "Input type")),
           name.starts_with("c10d::") ? PeerRank(CollectiveKey(name), Field(e, "args")) : -1});
    tl->items.push_back(ev);
  }

  // Kineto's "PyTorch Profiler (N)" span: from the profile's start to its stop.
  void ProfileSpan(const json& e) {
    uint64_t start;
    const json& d = Field(e, "dur");
    if (!Time(Field(e, "ts"), &start) || !d.is_number() || !(d.get<double>() > 0)) return;
    profile_ = {start,
                start + static_cast<uint64_t>(std::llround(std::min(d.get<double>(), 1e12) * 1e3))};
  }

  void NameThread(const json& e) {
    Timeline* tl = TimelineOf(e, false);
    std::string name = FieldStr(Field(e, "args"), "name");
    if (tl && !name.empty()) tl->name = name;
  }

  void Str(Timeline* tl, std::string_view key, std::string_view v) {
    Arg a;
    a.key = t_->Name(key);
    a.type = ArgType::kString;
    a.v.str = t_->Name(v);
    if (a.key && a.v.str) tl->args.push_back(a);
  }
  void Int(Timeline* tl, std::string_view key, int64_t v) {
    Arg a;
    a.key = t_->Name(key);
    a.type = ArgType::kInt;
    a.v.i = v;
    if (a.key) tl->args.push_back(a);
  }

  void AddArgs(Timeline* tl, const KinetoKind& k, const std::string& name, const json& a) {
    if (k.op) {
      Str(tl, keys::kOpName, name);
      Str(tl, keys::kOpType, name);
    }
    if (k.step && k.step_number >= 0) Int(tl, keys::kStep, k.step_number);
    if (!a.is_object()) return;
    auto num = [&](const char* from, std::string_view key) {
      if (auto it = a.find(from); it != a.end() && JsonInt(*it, INT64_MIN) != INT64_MIN)
        Int(tl, key, JsonInt(*it));
    };
    auto dump = [&](const char* from, std::string_view key) {
      if (auto it = a.find(from); it != a.end() && it->is_array() && !it->empty())
        Str(tl, key, it->dump());
    };
    dump("Input Dims", keys::kInputDims);
    dump("Input type", keys::kInputTypes);
    num("Sequence number", keys::kSeq);
    num("Fwd thread id", keys::kFwdTid);
    num("External id", keys::kExternalId);
    num("correlation", keys::kCorrelationId);
    num("stream", keys::kStream);
    num("bytes", keys::kBytes);
    if (k.comm) CommArgs(tl, name, a);
    if (name.starts_with("c10d::")) {
      std::string coll = name.substr(6);
      if (coll.ends_with('_')) coll.pop_back();
      Str(tl, keys::kCollective, coll);
      if (int64_t n = Nelems(Field(a, "Input Dims")); n >= 0) Int(tl, keys::kInNelems, n);
      if (int64_t peer = PeerRank(coll, a); peer >= 0) Int(tl, keys::kPeerRank, peer);
      GroupArgs(tl);
    }
  }

  // torch.profiler's "distributedInfo" (the bootstrap adds it too): the process's rank and
  // world size, and its process groups.
  void ReadDistributedInfo(const json& d) {
    if (!d.is_object()) return;
    dist_ = Dist{};
    dist_.rank = JsonInt(Field(d, "rank"));
    dist_.world = JsonInt(Field(d, "world_size"));
    const json& groups = Field(d, "pg_config");
    if (groups.is_array() && groups.size() == 1) {
      dist_.group = FieldStr(groups[0], "pg_name");
      if (int64_t n = JsonInt(Field(groups[0], "pg_size")); n > 0) dist_.world = n;
    }
    dist_.known = true;
  }

  // The group, rank and group size of a collective that names none itself: known only when
  // the process has one process group (gloo's ranges and c10d's ops do not say which).
  void GroupArgs(Timeline* tl) {
    if (!dist_.known || dist_.group.empty()) return;
    Str(tl, keys::kProcessGroup, dist_.group);
    if (dist_.rank >= 0) Int(tl, keys::kRank, dist_.rank);
    if (dist_.world > 0) Int(tl, keys::kNranks, dist_.world);
  }

  // record_param_comms (the collective, its sizes and its group), or a backend's range
  // ("gloo:all_reduce": the collective after the colon, bytes from its input).
  void CommArgs(Timeline* tl, const std::string& name, const json& a) {
    auto str = [&](const char* from) { return FieldStr(a, from); };
    if (name != "record_param_comms") {
      Str(tl, keys::kCollective, name.substr(name.find(':') + 1));
      if (int64_t b = InputBytes(Field(a, "Input Dims"), Field(a, "Input type")); b > 0)
        Int(tl, keys::kBytes, b);
      if (std::string t = FirstType(Field(a, "Input type")); !t.empty()) Str(tl, keys::kDtype, t);
      GroupArgs(tl);
      return;
    }
    std::string coll = str("Collective name"), dtype = str("dtype");
    // ProcessGroupNCCL also reports the program's wait on a collective ("wait") and the
    // communicator's creation ("init") so: communication, but not collectives.
    if (!coll.empty() && coll != "wait" && coll != "init") Str(tl, keys::kCollective, coll);
    if (!dtype.empty()) Str(tl, keys::kDtype, dtype);
    std::string group = str("Process Group Name");
    if (group.empty()) group = str("Process Group Description");
    if (!group.empty()) Str(tl, keys::kProcessGroup, group);
    int64_t in = JsonInt(Field(a, "In msg nelems"));
    int64_t out = JsonInt(Field(a, "Out msg nelems"));
    if (in >= 0) Int(tl, keys::kInNelems, in);
    if (out >= 0) Int(tl, keys::kOutNelems, out);
    int64_t elems = std::max(in, out);
    if (size_t eb = DtypeBytes(dtype); eb && elems > 0)
      Int(tl, keys::kBytes, elems * static_cast<int64_t>(eb));
    int64_t rank = JsonInt(Field(a, "Rank"));
    if (rank >= 0) Int(tl, keys::kRank, rank);
    int64_t n = JsonInt(Field(a, "Group size"));
    if (n > 0) Int(tl, keys::kNranks, n);
  }

  // "[memory]": an allocation (Bytes > 0) or a free, with the allocator's totals after it.
  void Memory(const json& e) {
    Timeline* tl = TimelineOf(e, false);
    uint64_t ts;
    const json& a = Field(e, "args");
    if (!tl || !a.is_object()) {
      foreign++;
      return;
    }
    if (!Time(Field(e, "ts"), &ts)) {
      out_of_time++;
      return;
    }
    int64_t bytes = JsonInt(Field(a, "Bytes"), 0);
    int64_t type = JsonInt(Field(a, "Device Type"), 0);
    int64_t dev = JsonInt(Field(a, "Device Id"), -1);
    std::string alloc = type == 0 ? "cpu" : (type == 1 ? "cuda:" : "device:") + std::to_string(dev);
    int64_t addr = JsonInt(Field(a, "Addr"), -1);
    int64_t total = JsonInt(Field(a, "Total Allocated"), -1);
    // Tensors a DataLoader worker sent through shared memory are reported with totals of their
    // own (Total Allocated stays 0): another allocator, so that "cpu" is torch's own total.
    bool shared = bytes > 0 ? total >= 0 && total < bytes : shared_addrs_.erase(addr) > 0;
    if (shared && bytes > 0) shared_addrs_.insert(addr);
    if (shared) alloc += " shared memory";
    LineEvent ev;
    ev.start = ev.end = ts;
    ev.instant = true;
    ev.category = Category::kAllocation;
    ev.name = t_->Name(bytes > 0 ? keys::kMemoryAllocation : keys::kMemoryDeallocation);
    if (!ev.name) return;
    ev.args = tl->args.size();
    Int(tl, keys::kBytes, bytes < 0 ? -bytes : bytes);
    if (addr >= 0) {
      Arg x;
      x.key = t_->Name(keys::kAddr);
      x.type = ArgType::kUint;
      x.v.u = static_cast<uint64_t>(addr);
      if (x.key) tl->args.push_back(x);
    }
    Str(tl, keys::kAllocatorName, alloc);
    if (total >= 0 && !shared) {
      Int(tl, keys::kBytesAllocated, total);
      allocators_[alloc].emplace_back(ts, static_cast<double>(total));
    }
    if (int64_t r = JsonInt(Field(a, "Total Reserved"), -1); r >= 0)
      Int(tl, keys::kBytesReserved, r);
    ev.nargs = static_cast<uint32_t>(tl->args.size() - ev.args);
    tl->items.push_back(ev);
  }

  struct Comm {  // a collective's op or backend range
    Timeline* tl;
    size_t item;
    std::string name;
    int64_t nelems;
    std::string dtype;
    int64_t peer = -1;  // a c10d send's or recv's peer rank
  };

  // One end of a forward-to-backward flow ("fwdbwd": "s" at the forward op, "f" at its
  // autograd node; Kineto's id pairs them within one file).
  void FlowEnd(const json& e, bool out) {
    Timeline* tl = TimelineOf(e, false);
    int64_t id = JsonInt(Field(e, "id"));
    uint64_t ts;
    if (!tl || id < 0 || !Time(Field(e, "ts"), &ts)) return;
    (out ? flow_ends_[id].out : flow_ends_[id].in) = {tl, ts};
  }

  // The file's whole pairs as flow events, each with an id of its own in the process.
  void WriteFlows() {
    for (auto& [id, f] : flow_ends_) {
      if (!f.out.tl || !f.in.tl) continue;
      ++flows_;
      for (auto [end, phase] :
           {std::pair{f.out, layout::FlowPhase::kOut}, std::pair{f.in, layout::FlowPhase::kIn}}) {
        LineEvent ev;
        ev.start = ev.end = end.ts;
        ev.instant = ev.flow = true;
        ev.flow_id = flows_;
        ev.flow_phase = static_cast<uint8_t>(phase);
        ev.args = end.tl->args.size();
        end.tl->items.push_back(ev);
      }
    }
    out_->flows = flows_;
  }

  // c10d's op on the program's thread and the backend's range that ran it (gloo:all_reduce,
  // on gloo's thread) are one collective: the k-th op of a collective and size with the k-th
  // range of the same (a process group runs its work in the order it was issued). The op gets
  // the range's element type and the bytes.
  void PairCollectives() {
    std::map<std::pair<std::string, int64_t>, std::vector<Comm*>> ops, ranges;
    for (auto& c : comms_) {
      if (c.nelems < 0) continue;
      bool op = c.name.starts_with("c10d::");
      if (!op && c.dtype.empty()) continue;
      (op ? ops : ranges)[{CollectiveKey(c.name), c.nelems}].push_back(&c);
    }
    auto by_start = [](const Comm* a, const Comm* b) {
      return a->tl->items[a->item].start < b->tl->items[b->item].start;
    };
    for (auto& [key, list] : ops) {
      auto it = ranges.find(key);
      if (it == ranges.end()) continue;
      std::stable_sort(list.begin(), list.end(), by_start);
      std::stable_sort(it->second.begin(), it->second.end(), by_start);
      for (size_t i = 0; i < std::min(list.size(), it->second.size()); ++i) {
        const std::string& dtype = it->second[i]->dtype;
        int64_t bytes = key.second * static_cast<int64_t>(DtypeBytes(dtype));
        AppendArgs(list[i], dtype, bytes);
        if (list[i]->peer >= 0) AppendPeer(it->second[i], list[i]->peer);
      }
    }
  }

  // A backend's range inside a record_param_comms of its thread (NCCL's "nccl:all_reduce"
  // within the collective's call) is that collective: where the range gives no bytes, it takes
  // the sizes, element type, group and rank that record_param_comms gives, so that comm, which
  // prefers backend ranges, still has them.
  void InheritParamComms() {
    std::map<Timeline*, std::vector<const Comm*>> params;
    for (const auto& c : comms_)
      if (c.name == "record_param_comms") params[c.tl].push_back(&c);
    const uint32_t bytes = t_->Name(keys::kBytes);
    for (const auto& c : comms_) {
      auto p = params.find(c.tl);
      if (p == params.end() || !(c.name.starts_with("nccl:") || c.name.starts_with("gloo:")))
        continue;
      LineEvent& ev = c.tl->items[c.item];
      const LineEvent* outer = nullptr;  // the innermost record_param_comms around the range
      for (const Comm* q : p->second) {
        const LineEvent& o = c.tl->items[q->item];
        if (o.start <= ev.start && ev.end <= o.end && (!outer || outer->start <= o.start))
          outer = &o;
      }
      if (!outer || HasArg(*c.tl, ev, bytes)) continue;
      Reopen(c.tl, &ev);
      for (uint32_t i = 0; i < outer->nargs; ++i) {
        Arg a = c.tl->args[outer->args + i];
        if (a.key == t_->Name(keys::kCollective) || HasArg(*c.tl, ev, a.key)) continue;
        c.tl->args.push_back(a);
        ev.nargs++;
      }
    }
  }

  static bool HasArg(const Timeline& tl, const LineEvent& ev, uint32_t key) {
    for (uint32_t i = 0; i < ev.nargs; ++i)
      if (tl.args[ev.args + i].key == key) return true;
    return false;
  }

  void AppendArgs(const Comm* c, const std::string& dtype, int64_t bytes) {
    Timeline* tl = c->tl;
    LineEvent& ev = tl->items[c->item];
    Reopen(tl, &ev);
    Str(tl, keys::kDtype, dtype);
    if (bytes > 0) Int(tl, keys::kBytes, bytes);
    ev.nargs = static_cast<uint32_t>(tl->args.size() - ev.args);
  }

  // The backend's range of a send or receive gets the peer its c10d op named.
  void AppendPeer(const Comm* c, int64_t peer) {
    Timeline* tl = c->tl;
    LineEvent& ev = tl->items[c->item];
    Reopen(tl, &ev);
    Int(tl, keys::kPeerRank, peer);
    ev.nargs = static_cast<uint32_t>(tl->args.size() - ev.args);
  }

  // An event's arguments again at the end of its timeline's array, so that more can follow
  // (the caller sets nargs).
  static void Reopen(Timeline* tl, LineEvent* ev) {
    size_t first = tl->args.size();
    for (uint32_t i = 0; i < ev->nargs; ++i) tl->args.push_back(tl->args[ev->args + i]);
    ev->args = first;
  }

  // Each op inside a module call (the bootstrap's "nn.Module: <path>" ranges) gets the path of
  // the innermost one as its `module` argument.
  void ScopeOps(Timeline* tl) {
    if (tl->modules.empty()) return;
    std::vector<LineEvent>& v = tl->items;
    std::vector<size_t> order(v.size());
    for (size_t i = 0; i < v.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return v[a].start != v[b].start ? v[a].start < v[b].start : v[a].end > v[b].end;
    });
    std::vector<std::pair<uint64_t, uint32_t>> open;  // end, path of the open module calls
    Arg a;
    a.key = t_->Name(keys::kModule);
    a.type = ArgType::kString;
    for (size_t i : order) {
      LineEvent& ev = v[i];
      if (ev.instant) continue;
      while (!open.empty() && open.back().first <= ev.start) open.pop_back();
      if (auto m = tl->modules.find(ev.name); m != tl->modules.end() && m->second) {
        open.emplace_back(ev.end, m->second);
      } else if (ev.category == Category::kFrameworkOp && !open.empty() && a.key &&
                 ev.end <= open.back().first) {
        Reopen(tl, &ev);
        a.v.str = open.back().second;
        tl->args.push_back(a);
        ev.nargs++;
      }
    }
  }

  struct OptStep {
    Timeline* tl;
    uint64_t start, end;
    size_t window;
  };

  // Without ProfilerStep markers, the loop's steps end where optimizer.step() ends: in each
  // window (file), its k-th optimizer step ends step first + k (first: the steps the program
  // had done when the window started, from the file's name); a step runs from the end of the
  // window's previous one (the window's first: from its DataLoader fetch or zero_grad, else
  // one median step before its optimizer step) to the end of its own optimizer step.
  void SynthesizeSteps() {
    if (has_step_markers_ || optimizer_steps_.empty()) return;
    std::stable_sort(optimizer_steps_.begin(), optimizer_steps_.end(),
                     [](const OptStep& a, const OptStep& b) { return a.start < b.start; });
    Timeline* tl = optimizer_steps_.front().tl;
    uint32_t name = t_->Name("PyTorch step");
    if (!name) return;
    std::map<size_t, std::vector<uint64_t>> ends;  // per window, on the loop's thread
    for (const auto& s : optimizer_steps_) {
      auto& e = ends[s.window];
      if (s.tl == tl && (e.empty() || s.start >= e.back())) e.push_back(s.end);
    }
    for (const auto& [window, e] : ends) {
      uint64_t first = WindowFirstStepStart(tl, window, e);
      for (size_t k = 0; k < e.size(); ++k) {
        int64_t n = window_first_step_[window] + static_cast<int64_t>(k);
        if (steps_ && (n < steps_->first || n > steps_->last)) continue;
        LineEvent ev;
        ev.start = k == 0 ? first : e[k - 1];
        ev.end = e[k];
        ev.name = name;
        ev.category = Category::kStep;
        ev.args = tl->args.size();
        Int(tl, keys::kStep, n);
        ev.nargs = static_cast<uint32_t>(tl->args.size() - ev.args);
        tl->items.push_back(ev);
        out_->steps++;
      }
    }
  }

  uint64_t WindowFirstStepStart(Timeline* tl, size_t window, const std::vector<uint64_t>& ends) {
    uint64_t opt_start = UINT64_MAX;
    for (const auto& s : optimizer_steps_)
      if (s.window == window && s.tl == tl) opt_start = std::min(opt_start, s.start);
    uint64_t window_start = window_start_[window];
    for (const auto* marks : {&tl->fetches, &tl->zero_grads}) {
      uint64_t best = 0;
      for (uint64_t f : *marks)
        if (f < opt_start && f >= window_start) best = std::max(best, f);
      if (best) return best;
    }
    std::vector<uint64_t> lengths;
    for (size_t k = 1; k < ends.size(); ++k) lengths.push_back(ends[k] - ends[k - 1]);
    uint64_t median = 0;
    if (!lengths.empty()) {
      std::nth_element(lengths.begin(), lengths.begin() + lengths.size() / 2, lengths.end());
      median = lengths[lengths.size() / 2];
    }
    return std::max(window_start, opt_start > median ? opt_start - median : 0);
  }

  // An op whose one child is an op of its own name (a redispatch: aten::div_ calling
  // aten::div_) is one call, as torch.profiler's own tables count it: the child goes.
  static void MergeRedispatches(Timeline* tl) {
    std::vector<LineEvent>& v = tl->items;
    std::stable_sort(v.begin(), v.end(), [](const LineEvent& a, const LineEvent& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<size_t> parent(v.size(), SIZE_MAX), children(v.size(), 0), open;
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i].instant) continue;
      while (!open.empty() && v[open.back()].end <= v[i].start) open.pop_back();
      if (!open.empty() && v[i].end <= v[open.back()].end) {
        parent[i] = open.back();
        children[open.back()]++;
      }
      open.push_back(i);
    }
    std::vector<LineEvent> kept;
    kept.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      size_t p = parent[i];
      bool redispatch = p != SIZE_MAX && v[i].category == Category::kFrameworkOp &&
                        v[p].category == Category::kFrameworkOp && v[p].name == v[i].name &&
                        children[p] == 1;
      if (!redispatch) kept.push_back(v[i]);
    }
    v.swap(kept);
  }

  void WriteTimeline(Timeline* tl) {
    if (tl->items.empty()) return;
    ScopeOps(tl);
    MergeRedispatches(tl);
    uint64_t track = tl->id;
    if (!tl->device && (track == 0 || track > (1u << 22))) track = 0;  // no kernel tid
    StreamFileWriter w =
        t_->NewStream(tl->device ? "kd" : "k", track,
                      tl->device ? layout::TrackKind::kDevice : layout::TrackKind::kImported);
    uint64_t first = UINT64_MAX;
    for (const auto& it : tl->items) first = std::min(first, it.start);
    std::string name = tl->name;
    if (name.empty())
      name = tl->device ? "GPU " + std::to_string(tl->id >> 32) + " stream " +
                              std::to_string(tl->id & 0xffffffffu)
                        : "thread " + std::to_string(tl->id);
    PutThreadName(w, first, name);
    WriteLineEvents(w, tl->items, tl->args, &t_->classes);
    w.Finish();
    out_->events += std::count_if(tl->items.begin(), tl->items.end(),
                                  [](const LineEvent& e) { return !e.flow; });
    out_->tracks++;
  }

  ImportTarget* t_;
  const std::optional<ImportStepFilter>& steps_;
  ImportResult* out_;
  uint64_t base_ns_ = 0;
  std::map<std::pair<bool, uint64_t>, Timeline> timelines_;
  AllocatorSamples allocators_;
  std::vector<OptStep> optimizer_steps_;
  bool has_step_markers_ = false;
  size_t window_ = 0;                       // the file being imported
  std::vector<int64_t> window_first_step_;  // per file
  std::vector<uint64_t> window_start_;      // per file: its earliest slice
  std::set<int64_t> shared_addrs_;          // live allocations of "cpu shared memory"
  struct Dist {
    bool known = false;
    std::string group;  // the name of the process's one process group
    int64_t rank = -1, world = -1;
  } dist_;
  struct FlowPoint {
    Timeline* tl = nullptr;
    uint64_t ts = 0;
  };
  struct FlowEnds {
    FlowPoint out, in;
  };
  std::map<int64_t, FlowEnds> flow_ends_;  // of the file being imported, by Kineto's id
  uint64_t flows_ = 0;
  std::pair<uint64_t, uint64_t> profile_, extent_;  // of the file being imported
  std::vector<Comm> comms_;
};

json ParseKinetoFile(const std::string& f, uint64_t max_bytes) {
  std::string data = ReadUntrustedFile(f, max_bytes);
  if (data.empty()) throw Error(ValidUtf8(f) + ": empty file; skipped");
  json doc = json::parse(data, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    throw Error(ValidUtf8(f) + ": not a readable Kineto trace (" + std::to_string(data.size()) +
                " bytes; truncated or not JSON); skipped");
  return doc;
}

}  // namespace

ImportResult ImportKineto(const std::string& trace_dir, int64_t pid,
                          const std::vector<std::string>& files,
                          const std::optional<ImportStepFilter>& steps, uint64_t max_file_bytes) {
  ImportTarget t;
  LoadImportTarget(trace_dir, pid, "PyTorch profile", &t);
  ImportResult out;
  out.format = "PyTorch profile";
  KinetoImporter imp(&t, steps, &out);
  std::vector<std::string> imported;
  for (const auto& f : files) {
    try {
      json doc = ParseKinetoFile(f, max_file_bytes);
      imp.ImportFile(doc, KinetoFirstStep(f));
    } catch (const std::exception& e) {
      out.errors.push_back(e.what());
      continue;
    }
    out.files++;
    imported.push_back(ValidUtf8(BaseName(f)));
  }
  imp.Finish();
  FinishImport(&t, "kineto", imported, imp.out_of_time, &out);
  return out;
}

}  // namespace tt
