// The Kineto importer's events (importer_state.h): ops, annotations, steps, GPU activity,
// memory events, the ends of flows and the profile's span, and the arguments each event gets.
#include <algorithm>
#include <cmath>

#include "format/import/kineto/importer_state.h"
#include "format/import/kineto/op_cost.h"
#include "format/keys.h"

namespace tt::kineto {

using layout::ArgType;
using layout::Category;

void KinetoImporter::ImportEvent(const KinetoEvent& e) {
  const std::string& ph = e.ph;
  const std::string& name = e.name;
  if (ph == "M") {
    if (name == "thread_name") NameThread(e);
    return;
  }
  if (ph == "i" && name == "[memory]") return Memory(e);
  if (ph == "i" || ph == "I") return Instant(e, name);
  const std::string& cat = e.cat;
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
  if (const json& d = e.dur; d.is_number() && d.get<double>() > 0)
    dur_ns = static_cast<uint64_t>(std::llround(std::min(d.get<double>(), 1e12) * 1e3));
  if (!Time(e.ts, &ev.start)) {
    out_of_time++;
    return;
  }
  ev.end = std::min(ev.start + dur_ns, t_->latest);
  extent_ = {std::min(extent_.first, ev.start), std::max(extent_.second, ev.end)};
  ev.name = t_->Name(name);
  if (!ev.name) return;
  ev.category = k.category;
  ev.args = tl->args.size();
  AddArgs(tl, k, name, e.args);
  ev.nargs = static_cast<uint32_t>(tl->args.size() - ev.args);
  if (k.step) out_->steps++;
  if (k.optimizer_step) optimizer_steps_.push_back({tl, ev.start, ev.end, window_});
  window_start_[window_] = std::min(window_start_[window_], ev.start);
  if (name.starts_with("enumerate(DataLoader)")) tl->fetches.push_back(ev.start);
  if (name.starts_with("Optimizer.zero_grad#")) tl->zero_grads.push_back(ev.start);
  if (k.category == Category::kStep) has_step_markers_ = true;
  if (k.module && name.size() > 11) tl->modules.emplace(ev.name, t_->Name(name.substr(11)));
  if (k.comm || name.starts_with("c10d::"))
    comms_.push_back({tl, tl->items.size(), name, Nelems(Field(e.args, "Input Dims")),
                      FirstType(Field(e.args, "Input type")),
                      name.starts_with("c10d::") ? PeerRank(CollectiveKey(name), e.args) : -1});
  tl->items.push_back(ev);
}

// Kineto's "PyTorch Profiler (N)" span: from the profile's start to its stop.
void KinetoImporter::ProfileSpan(const KinetoEvent& e) {
  uint64_t start;
  const json& d = e.dur;
  if (!Time(e.ts, &start) || !d.is_number() || !(d.get<double>() > 0)) return;
  profile_ = {start,
              start + static_cast<uint64_t>(std::llround(std::min(d.get<double>(), 1e12) * 1e3))};
}

void KinetoImporter::NameThread(const KinetoEvent& e) {
  Timeline* tl = TimelineOf(e, false);
  std::string name = FieldStr(e.args, "name");
  if (tl && !name.empty()) tl->name = name;
}

// "[memory]": an allocation (Bytes > 0) or a free, with the allocator's totals after it.
void KinetoImporter::Memory(const KinetoEvent& e) {
  Timeline* tl = TimelineOf(e, false);
  uint64_t ts;
  const json& a = e.args;
  if (!tl || !a.is_object()) {
    foreign++;
    return;
  }
  if (!Time(e.ts, &ts)) {
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
  if (int64_t r = JsonInt(Field(a, "Total Reserved"), -1); r >= 0) Int(tl, keys::kBytesReserved, r);
  ev.nargs = static_cast<uint32_t>(tl->args.size() - ev.args);
  tl->items.push_back(ev);
}

// Any other instant (torch.profiler's cpu_instant_event, "Iteration Start: ..."): an instant of
// its thread, with no argument.
void KinetoImporter::Instant(const KinetoEvent& e, const std::string& name) {
  Timeline* tl = TimelineOf(e, false);
  if (!tl) {
    foreign++;
    return;
  }
  LineEvent ev;
  if (!Time(e.ts, &ev.start)) {
    out_of_time++;
    return;
  }
  ev.end = ev.start;
  ev.instant = true;
  ev.category = Category::kUser;
  ev.name = t_->Name(name);
  if (!ev.name) return;
  ev.args = tl->args.size();
  tl->items.push_back(ev);
}

// One end of a forward-to-backward flow ("fwdbwd": "s" at the forward op, "f" at its
// autograd node; Kineto's id pairs them within one file).
void KinetoImporter::FlowEnd(const KinetoEvent& e, bool out) {
  Timeline* tl = TimelineOf(e, false);
  int64_t id = JsonInt(e.id);
  uint64_t ts;
  if (!tl || id < 0 || !Time(e.ts, &ts)) return;
  (out ? flow_ends_[id].out : flow_ends_[id].in) = {tl, ts};
}

void KinetoImporter::Str(Timeline* tl, std::string_view key, std::string_view v) {
  Arg a;
  a.key = t_->Name(key);
  a.type = ArgType::kString;
  a.v.str = t_->Name(v);
  if (a.key && a.v.str) tl->args.push_back(a);
}

void KinetoImporter::Int(Timeline* tl, std::string_view key, int64_t v) {
  Arg a;
  a.key = t_->Name(key);
  a.type = ArgType::kInt;
  a.v.i = v;
  if (a.key) tl->args.push_back(a);
}

void KinetoImporter::AddArgs(Timeline* tl, const KinetoKind& k, const std::string& name,
                             const json& a) {
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
      Str(tl, key, DumpJson(*it));
  };
  dump("Input Dims", keys::kInputDims);
  dump("Input type", keys::kInputTypes);
  num("Sequence number", keys::kSeq);
  num("Fwd thread id", keys::kFwdTid);
  num("External id", keys::kExternalId);
  num("correlation", keys::kCorrelationId);
  num("stream", keys::kStream);
  num("bytes", keys::kBytes);
  if (k.op) CostArgs(tl, name, a);
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

// The op's FLOPs and output bytes, where its shapes (or Kineto's "flops") tell them.
void KinetoImporter::CostArgs(Timeline* tl, const std::string& name, const json& a) {
  OpCost c = TorchOpCost(name, a);
  if (c.float_ops >= 0) {
    Int(tl, keys::kFloatOps, c.float_ops);
    Str(tl, keys::kFlopsMethod, c.from_framework ? keys::kFlopsFramework : keys::kFlopsShape);
  }
  if (c.output_bytes >= 0) Int(tl, keys::kOutputBytes, c.output_bytes);
  if (c.input_bytes >= 0) Int(tl, keys::kInputBytes, c.input_bytes);
}

bool KinetoImporter::HasArg(const Timeline& tl, const LineEvent& ev, uint32_t key) {
  for (uint32_t i = 0; i < ev.nargs; ++i)
    if (tl.args[ev.args + i].key == key) return true;
  return false;
}

// An event's arguments again at the end of its timeline's array, so that more can follow
// (the caller sets nargs).
void KinetoImporter::Reopen(Timeline* tl, LineEvent* ev) {
  size_t first = tl->args.size();
  for (uint32_t i = 0; i < ev->nargs; ++i) tl->args.push_back(tl->args[ev->args + i]);
  ev->args = first;
}

}  // namespace tt::kineto
