#include "export/perfetto.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <queue>
#include <unordered_map>

#include "analysis/pass/correlate.h"
#include "export/proto_wire.h"
#include "format/keys.h"
#include "model/args.h"
#include "model/job/process_names.h"

namespace tt::exporter {

using layout::Category;
using layout::TrackKind;

namespace {

// Field numbers: see proto/perfetto_trace.proto (Perfetto's own numbers).
namespace trace {
constexpr uint32_t kPacket = 1;
}
namespace packet {
constexpr uint32_t kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11, kInternedData = 12,
                   kSequenceFlags = 13, kTrackDescriptor = 60;
constexpr uint64_t kStateCleared = 1, kNeedsState = 2;
}  // namespace packet
namespace desc {
constexpr uint32_t kUuid = 1, kName = 2, kProcess = 3, kThread = 4, kParent = 5, kCounter = 8;
constexpr uint32_t kPid = 1, kTid = 2, kProcessName = 6, kThreadName = 5, kUnit = 3;
constexpr uint64_t kUnitSizeBytes = 3;
}  // namespace desc
namespace event {
constexpr uint32_t kCategoryIids = 3, kAnnotations = 4, kType = 9, kNameIid = 10, kTrackUuid = 11,
                   kName = 23, kCounterValue = 30, kDoubleCounterValue = 44, kFlowIds = 47,
                   kTerminatingFlowIds = 48;
constexpr uint64_t kBegin = 1, kEnd = 2, kInstant = 3, kCounter = 4;
}  // namespace event
namespace annotation {
constexpr uint32_t kNameIid = 1, kUint = 3, kInt = 4, kDouble = 5, kString = 6, kName = 10;
}
namespace interned {
constexpr uint32_t kCategories = 1, kEventNames = 2, kAnnotationNames = 3, kIid = 1, kName = 2;
}

// Flow ids are global to the trace: a hash of what they stand for. (Track uuids are numbered in
// the order tracks are written: small varints, as every event names its track.)
uint64_t Mix(uint64_t kind, uint64_t a, uint64_t b) {
  uint64_t x = kind * 0x9e3779b97f4a7c15ull ^ a;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull ^ b;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x ? x : 1;
}
enum FlowKind : uint64_t { kLaunchFlow = 1, kExternalFlow, kNestedFlow, kTraceFlow };

// A framework op (or user range) whose BEGIN packet waits until it ends, so that it can carry
// the flows to the device work of the launches nested in it (only known then). Its subtree's
// packets wait with it; past kMaxDeferred bytes they are written and the flows go on its END.
struct Deferred {
  std::string head;   // the BEGIN packet's fields before its track event
  std::string event;  // the BEGIN track event (flow ids are appended)
  std::string body;   // framed packets of the subtree
  bool flushed = false;
};
constexpr size_t kMaxDeferred = 16u << 20;

// Per open slice on the current track (kept slices only; mirrors the scanner's stack).
struct Open {
  bool op = false;  // framework op or user range
  bool has_external = false;
  int deferred = -1;             // index in deferred_, or -1
  std::vector<uint64_t> nested;  // flows to start at the op (launches nested in it)
};

class PerfettoVisitor : public EventVisitor {
 public:
  PerfettoVisitor(const model::TraceModel& m, Sink& out)
      : m_(m), pids_(model::ExportPids(m)), out_(out) {}
  PerfettoCounts counts;

  void BeginProcess(const model::Process& p) override {
    pi_ = static_cast<size_t>(&p - m_.processes.data());
    proc_uuid_ = ++last_uuid_;
    links_ = analysis::LinkKeysOf(p);
    auto [bytes, addr, alloc] =
        model::KeyIds(p, {keys::kBytes, keys::kAddr, keys::kMemoryAllocation});
    keys_ = {bytes, addr, alloc};
    // The frees: every name the one rule calls a free (keys::IsFreeEvent).
    free_.assign(p.names.size(), false);
    for (uint32_t i = 1; i < p.names.size(); ++i) free_[i] = keys::IsFreeEvent(p.names[i]);
    counters_.clear();
    process_has_alloc_ = false;
    shared_.clear();
    for (auto [ext, count] : analysis::SharedExternalIds(m_, pi_))
      shared_.push_back({ext, count, 0});
    NewSequence(p);
    std::string& d = Scratch(0);
    wire::Uint(d, desc::kUuid, proc_uuid_);
    std::string& pd = Scratch(1);
    wire::Int(pd, desc::kPid, pids_[pi_]);
    wire::String(pd, desc::kProcessName, model::ProcessLabel(p));
    wire::Message(d, desc::kProcess, pd);
    Descriptor(d);
  }

  void BeginTrack(const model::Process& p, const model::Track& t) override {
    NewSequence(p);
    track_ = &t;
    track_uuid_ = ++last_uuid_;
    has_alloc_ = false;
    std::string& d = Scratch(0);
    wire::Uint(d, desc::kUuid, track_uuid_);
    wire::Uint(d, desc::kParent, proc_uuid_);
    if (t.kind == TrackKind::kDevice) {
      wire::String(d, desc::kName, t.name);
    } else {
      std::string& td = Scratch(1);
      wire::Int(td, desc::kPid, pids_[pi_]);
      wire::Int(td, desc::kTid, static_cast<int64_t>(t.id));
      wire::String(td, desc::kThreadName,
                   t.name.empty() ? "thread " + std::to_string(t.id) : t.name);
      wire::Message(d, desc::kThread, td);
    }
    Descriptor(d);
  }

  void OnBegin(const model::Process& p, const model::Track& t, const model::Slice& s) override {
    Open o;
    o.op = model::IsOpCategory(s.category);
    // The ids and the rules of analysis/pass/correlate.h: a launch starts a flow to the device work
    // with its correlation id; an op with an external id starts one to each activity with that
    // id; else the op around a launch starts one to the launched work (by nesting).
    analysis::LinkIds ids = analysis::IdsOf(links_, s.args);
    uint64_t corr = static_cast<uint64_t>(ids.corr), ext = static_cast<uint64_t>(ids.ext);
    o.has_external = ids.ext >= 0;
    flows_.clear();
    terminating_.clear();
    if (t.kind == TrackKind::kDevice) {
      if (ids.corr >= 0) terminating_.push_back(Mix(kLaunchFlow, pi_, corr));
      switch (analysis::OpMethodOf(ids)) {
        case analysis::LinkMethod::kExternalId:
          terminating_.push_back(ExternalFlow(ext, NextShare(ext)));
          break;
        case analysis::LinkMethod::kNesting:
          terminating_.push_back(Mix(kNestedFlow, pi_, corr));
          break;
        case analysis::LinkMethod::kNone:
          break;
      }
      counts.flows += terminating_.size();
    } else {
      if (analysis::IsLaunch(s, ids)) {
        flows_.push_back(Mix(kLaunchFlow, pi_, corr));
        // The op around the launch starts a flow to the launched work unless the external id
        // links them already.
        for (auto it = open_.rbegin(); it != open_.rend(); ++it)
          if (it->op) {
            if (!it->has_external) it->nested.push_back(Mix(kNestedFlow, pi_, corr));
            break;
          }
      }
      if (analysis::IsExternalOp(s, ids)) {
        // One flow per device activity with this external id.
        const Shared* sh = FindShared(ext);
        for (uint32_t i = 0; i < (sh ? sh->count : 1); ++i) flows_.push_back(ExternalFlow(ext, i));
      }
    }
    Event(p, event::kBegin, s.start, s.name, s.category, &s.args);
    if (o.op && !o.has_external && t.kind != TrackKind::kDevice) {
      // Hold the BEGIN packet back (see Deferred).
      o.deferred = static_cast<int>(deferred_.size());
      deferred_.push_back({std::move(head_), std::move(event_), {}, false});
      head_ = {};
      event_ = {};
    } else {
      Packet();
    }
    open_.push_back(std::move(o));
  }

  void OnSlice(const model::Process& p, const model::Track&, const model::Slice& s) override {
    if (open_.empty()) return;  // not announced by OnBegin: cannot happen with Walk
    Open o = std::move(open_.back());
    open_.pop_back();
    flows_.clear();
    terminating_.clear();
    if (o.deferred >= 0) {
      Deferred d = std::move(deferred_.back());
      deferred_.pop_back();
      held_ -= d.body.size();
      if (!d.flushed) {
        for (uint64_t f : o.nested) wire::Fixed64(d.event, event::kFlowIds, f);
        wire::Message(d.head, packet::kTrackEvent, d.event);
        Emit(d.head);
        Write(d.body);
      } else {
        flows_ = std::move(o.nested);  // too big to hold back: the flows start at the end
      }
    }
    Event(p, event::kEnd, s.end, 0, s.category, nullptr);
    Packet();
  }

  void OnPoint(const model::Process& p, const model::Track&, const model::Point& pt) override {
    flows_.clear();
    terminating_.clear();
    if (!pt.counter) {
      if (pt.name && (pt.name == keys_.alloc || IsFree(pt.name))) has_alloc_ = true;
      Event(p, event::kInstant, pt.ts, pt.name, pt.category, &pt.args);
      Packet();
      return;
    }
    auto [counter, fresh] = counters_.emplace(pt.name, last_uuid_ + 1);
    uint64_t uuid = counter->second;
    if (fresh) {
      ++last_uuid_;
      std::string& d = Scratch(0);
      wire::Uint(d, desc::kUuid, uuid);
      wire::Uint(d, desc::kParent, proc_uuid_);
      wire::String(d, desc::kName, p.Name(pt.name));
      wire::Message(d, desc::kCounter, Scratch(1));
      head_.clear();
      wire::Uint(head_, packet::kSequenceId, seq_);
      wire::Message(head_, packet::kTrackDescriptor, d);
      Emit(head_);
    }
    head_.clear();
    event_.clear();
    wire::Uint(head_, packet::kTimestamp, pt.ts);
    wire::Uint(head_, packet::kSequenceId, seq_);
    wire::Uint(event_, event::kType, event::kCounter);
    wire::Uint(event_, event::kTrackUuid, uuid);
    wire::Double(event_, event::kDoubleCounterValue, pt.value);
    Packet();
  }

  // A trace's own flow (a forward op to its backward node): an instant "flow" at each end,
  // inside the slice it binds to, carries it (the slice's BEGIN may be written already).
  void OnFlow(const model::Process& p, const model::Track&, const model::Flow& f) override {
    flows_.clear();
    terminating_.clear();
    bool in = f.phase == layout::FlowPhase::kIn;
    (in ? terminating_ : flows_).push_back(Mix(kTraceFlow, pi_, f.id));
    counts.flows += in;
    Event(p, event::kInstant, f.ts, 0, layout::Category::kUser, nullptr);  // named "flow"
    flows_.clear();
    terminating_.clear();
    Packet();
  }

  void EndTrack() {
    // Whatever a damaged stream left open was closed by the scanner; this is a safety net.
    while (!deferred_.empty()) {
      Deferred d = std::move(deferred_.back());
      deferred_.pop_back();
      if (!d.flushed) {
        wire::Message(d.head, packet::kTrackEvent, d.event);
        Emit(d.head);
        Write(d.body);
      }
    }
    open_.clear();
    held_ = 0;
    process_has_alloc_ |= has_alloc_;
  }

  void EndProcess(const model::Process& p, size_t index, const Chosen& chosen) override;

  // Walk calls BeginTrack for the next track without an end call: close the previous one.
  void CloseTrackIfOpen() {
    if (track_) EndTrack();
    track_ = nullptr;
  }

 private:
  struct Keys {
    uint32_t bytes = 0, addr = 0, alloc = 0;
  };
  bool IsFree(uint32_t name) const { return name && name < free_.size() && free_[name]; }
  // An external id that several device activities carry: the op starts `count` flows, and the
  // activities end them one each.
  struct Shared {
    uint64_t ext = 0;
    uint32_t count = 0, next = 0;
  };

  uint64_t ExternalFlow(uint64_t ext, uint32_t i) {
    return Mix(kExternalFlow, pi_ | uint64_t{i} << 32, ext);
  }
  Shared* FindShared(uint64_t ext) {
    auto it = std::lower_bound(shared_.begin(), shared_.end(), ext,
                               [](const Shared& s, uint64_t x) { return s.ext < x; });
    return it != shared_.end() && it->ext == ext ? &*it : nullptr;
  }
  uint32_t NextShare(uint64_t ext) {
    Shared* s = FindShared(ext);
    return s && s->next < s->count ? s->next++ : 0;
  }
  std::string& Scratch(int i) {
    scratch_[i].clear();
    return scratch_[i];
  }

  // A fresh sequence: its own interning state, cleared by its first packet.
  void NewSequence(const model::Process& p) {
    CloseTrackIfOpen();
    seq_ = ++last_seq_;
    first_on_seq_ = true;
    names_seen_.assign(p.names.size(), 0);
    categories_seen_ = 0;
  }

  void Descriptor(const std::string& d) {
    head_.clear();
    wire::Uint(head_, packet::kSequenceId, seq_);
    if (first_on_seq_) wire::Uint(head_, packet::kSequenceFlags, packet::kStateCleared);
    first_on_seq_ = false;
    wire::Message(head_, packet::kTrackDescriptor, d);
    Emit(head_);
  }

  // Fills head_ (timestamp, sequence, interned data) and event_ for one track event.
  void Event(const model::Process& p, uint64_t type, uint64_t ts, uint32_t name, Category cat,
             const model::ArgsView* args) {
    head_.clear();
    event_.clear();
    std::string& in = Scratch(2);
    wire::Uint(head_, packet::kTimestamp, ts);
    wire::Uint(head_, packet::kSequenceId, seq_);
    wire::Uint(head_, packet::kSequenceFlags, packet::kNeedsState);
    wire::Uint(event_, event::kType, type);
    wire::Uint(event_, event::kTrackUuid, track_uuid_);
    if (type != event::kEnd) {
      unsigned c = static_cast<unsigned>(cat);
      if (c < 32 && !(categories_seen_ & (1u << c))) {
        categories_seen_ |= 1u << c;
        std::string& e = Scratch(3);
        wire::Uint(e, interned::kIid, c + 1);
        wire::String(e, interned::kName, layout::CategoryName(cat));
        wire::Message(in, interned::kCategories, e);
      }
      if (c < 32) wire::Uint(event_, event::kCategoryIids, c + 1);
      if (Interned(p, name, 1, interned::kEventNames, in))
        wire::Uint(event_, event::kNameIid, name);
      else
        wire::String(event_, event::kName, name ? p.Name(name) : "flow");  // 0: OnFlow's
      if (args && args->count) Annotations(p, *args, in);
    }
    for (uint64_t f : flows_) wire::Fixed64(event_, event::kFlowIds, f);
    for (uint64_t f : terminating_) wire::Fixed64(event_, event::kTerminatingFlowIds, f);
    if (!in.empty()) wire::Message(head_, packet::kInternedData, in);
  }

  // Whether `id` can be referred to by iid (it is then defined on this sequence, in `in`).
  // bit: 1 event names, 2 annotation names.
  bool Interned(const model::Process& p, uint32_t id, uint8_t bit, uint32_t field,
                std::string& in) {
    if (id == 0 || id >= names_seen_.size()) return false;
    if (!(names_seen_[id] & bit)) {
      names_seen_[id] |= bit;
      std::string& e = Scratch(3);
      wire::Uint(e, interned::kIid, id);
      wire::String(e, interned::kName, p.names[id]);
      wire::Message(in, field, e);
    }
    return true;
  }

  void Annotations(const model::Process& p, const model::ArgsView& a, std::string& in) {
    ArgCursor c = a.Cursor();
    for (uint8_t i = 0; i < a.count; ++i) {
      Arg arg;
      c.Next(&arg);
      uint32_t key = arg.key;
      layout::ArgType type = arg.type;
      std::string& x = Scratch(4);
      if (Interned(p, key, 2, interned::kAnnotationNames, in))
        wire::Uint(x, annotation::kNameIid, key);
      else
        wire::String(x, annotation::kName, p.Name(key));
      if (type == layout::ArgType::kString) {
        wire::String(x, annotation::kString, p.Name(arg.v.str));
      } else {
        uint64_t v = arg.v.u;
        if (type == layout::ArgType::kInt)
          wire::Uint(x, annotation::kInt, v);
        else if (type == layout::ArgType::kUint)
          wire::Uint(x, annotation::kUint, v);
        else
          wire::Fixed64(x, annotation::kDouble, v);  // the double's bits
      }
      wire::Message(event_, event::kAnnotations, x);
    }
  }

  // head_ + event_ as one packet.
  void Packet() {
    wire::Message(head_, packet::kTrackEvent, event_);
    Emit(head_);
  }

  // One packet, framed as a Trace's field 1: to the innermost held-back op, or out.
  void Emit(const std::string& pkt) {
    frame_.clear();
    if (deferred_.empty() || deferred_.back().flushed) {  // straight out: no copy of pkt
      wire::Tag(frame_, trace::kPacket, 2);
      wire::Varint(frame_, pkt.size());
      out_.Write(frame_);
      out_.Write(pkt);
      return;
    }
    wire::Message(frame_, trace::kPacket, pkt);
    Write(frame_);
  }
  void Write(const std::string& framed) {
    if (deferred_.empty() || deferred_.back().flushed) {
      out_.Write(framed);
      return;
    }
    deferred_.back().body += framed;
    held_ += framed.size();
    if (held_ > kMaxDeferred) FlushDeferred();
  }
  // Writes every held-back packet now; the flows of those ops will start at their ends.
  void FlushDeferred() {
    std::string all;
    for (Deferred& d : deferred_) {
      if (!d.flushed) {
        wire::Message(d.head, packet::kTrackEvent, d.event);
        frame_.clear();
        wire::Message(frame_, trace::kPacket, d.head);
        all += frame_;
      }
      all += d.body;
      d = Deferred{{}, {}, {}, true};
    }
    held_ = 0;
    out_.Write(all);
  }

  const model::TraceModel& m_;
  std::vector<int64_t> pids_;  // model::ExportPids
  Sink& out_;
  size_t pi_ = 0;
  uint64_t proc_uuid_ = 0, track_uuid_ = 0;
  const model::Track* track_ = nullptr;
  Keys keys_;
  analysis::LinkKeys links_;
  std::vector<bool> free_;  // per interned id of the process: a free (keys::IsFreeEvent)
  uint32_t seq_ = 0, last_seq_ = 0;
  bool first_on_seq_ = false, has_alloc_ = false;
  std::vector<uint8_t> names_seen_;
  uint32_t categories_seen_ = 0;
  std::unordered_map<uint32_t, uint64_t> counters_;  // counter name -> track uuid
  uint64_t last_uuid_ = 0;
  bool process_has_alloc_ = false;
  std::vector<Shared> shared_;  // sorted by ext
  std::vector<Open> open_;
  std::vector<Deferred> deferred_;
  size_t held_ = 0;
  std::vector<uint64_t> flows_, terminating_;
  std::string head_, event_, frame_, scratch_[5];
};

// Memory in use: the allocation instants of the process's threads merged in time order (one
// decoder per thread that has any), a running sum of bytes allocated minus the bytes of the
// allocations freed (matched by addr). Memory: the live allocations.
void PerfettoVisitor::EndProcess(const model::Process& p, size_t index, const Chosen& chosen) {
  CloseTrackIfOpen();
  if (!process_has_alloc_ || !keys_.bytes || !keys_.addr) return;
  // Every thread of the process: allocations outside the selection count towards the sum.
  std::vector<const model::Track*> tracks;
  for (size_t ti : p.tracks)
    if (m_.tracks[ti].kind != TrackKind::kDevice) tracks.push_back(&m_.tracks[ti]);
  std::vector<Problem> ignored;  // the walk reported damage already
  std::vector<std::unique_ptr<StreamDecoder>> dec;
  std::vector<RawEvent> cur(tracks.size());
  using Item = std::pair<uint64_t, size_t>;  // ts, decoder
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  const auto shift = static_cast<uint64_t>(p.shift_ns);  // the job's clock (model.h)
  auto advance = [&](size_t i) {
    RawEvent& e = cur[i];
    while (dec[i]->Next(&e))
      if (e.id == layout::kInstant && (e.name == keys_.alloc || IsFree(e.name))) {
        heap.push({e.ts + shift, i});
        return;
      }
  };
  for (size_t i = 0; i < tracks.size(); ++i) {
    dec.push_back(std::make_unique<StreamDecoder>(m_.Stream(tracks[i]->file), p.meta, &ignored));
    advance(i);
  }
  NewSequence(p);
  uint64_t uuid = ++last_uuid_;
  std::string& d = Scratch(0);
  wire::Uint(d, desc::kUuid, uuid);
  wire::Uint(d, desc::kParent, proc_uuid_);
  wire::String(d, desc::kName, "allocator memory in use");
  std::string& c = Scratch(1);
  wire::Uint(c, desc::kUnit, desc::kUnitSizeBytes);
  wire::Message(d, desc::kCounter, c);
  Descriptor(d);
  std::unordered_map<uint64_t, uint64_t> live;  // addr -> bytes
  int64_t in_use = 0;
  while (!heap.empty()) {
    auto [ts, i] = heap.top();
    heap.pop();
    const RawEvent& e = cur[i];
    model::ArgsView args = model::ArgsView::Of(e);
    Arg addr, bytes;
    bool changed = false;
    if (args.Find(keys_.addr, &addr)) {
      if (e.name == keys_.alloc && args.Find(keys_.bytes, &bytes)) {
        auto [it, fresh] = live.emplace(addr.v.u, bytes.v.u);
        if (!fresh) in_use -= static_cast<int64_t>(it->second);  // reused without a free seen
        it->second = bytes.v.u;
        in_use += static_cast<int64_t>(bytes.v.u);
        changed = true;
      } else if (IsFree(e.name)) {
        if (auto it = live.find(addr.v.u); it != live.end()) {
          in_use -= static_cast<int64_t>(it->second);
          live.erase(it);
          changed = true;
        }
      }
    }
    if (changed && chosen.Keep(index, ts)) {
      head_.clear();
      event_.clear();
      wire::Uint(head_, packet::kTimestamp, ts);
      wire::Uint(head_, packet::kSequenceId, seq_);
      wire::Uint(event_, event::kType, event::kCounter);
      wire::Uint(event_, event::kTrackUuid, uuid);
      wire::Uint(event_, event::kCounterValue, static_cast<uint64_t>(in_use));
      Packet();
      counts.memory_samples++;
    }
    advance(i);
  }
}

}  // namespace

WalkResult WritePerfetto(const model::TraceModel& m, const Selection& sel, Sink& out,
                         std::vector<Problem>* problems, PerfettoCounts* counts) {
  PerfettoVisitor v(m, out);
  WalkResult r = Walk(m, sel, v, problems);
  v.CloseTrackIfOpen();
  *counts = v.counts;
  return r;
}

}  // namespace tt::exporter
