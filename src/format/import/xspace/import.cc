#include "format/import/xspace/import.h"

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/files.h"
#include "core/time.h"
#include "format/import/target.h"
#include "format/import/memory_budget.h"
#include "format/import/untrusted.h"
#include "format/import/xspace/classify.h"
#include "format/import/xspace/clock.h"
#include "format/import/xspace/hlo.h"
#include "format/import/xspace/hlo_cost.h"
#include "format/import/xspace/space_file.h"
#include "format/import/xspace/tf_graph.h"
#include "format/import/xspace/tf_op_cost.h"
#include "format/keys.h"
#include "format/name_space.h"
#include "format/reader.h"
#include "format/slice_order.h"
#include "format/stream_file.h"

namespace tt {

using layout::ArgType;
using layout::Category;
using xspace::EventMetadataView;
using xspace::EventView;
using xspace::LineView;
using xspace::PlaneView;
using xspace::StatView;

namespace {

// What the files of one import share: one stream per thread (or device line) and per
// allocator, whatever the number of capture windows (files) its events came in, written at
// the end. Windows are imported in time order, so each stream stays in time order.
struct SharedStreams {
  std::map<std::tuple<bool, uint32_t, int64_t, std::string>, StreamFileWriter> lines;
  AllocatorSamples allocators;
  std::unordered_map<std::string, std::string> tf_inputs;  // node name -> its producers
  std::unordered_set<std::string> ran;  // node names of the TensorFlow ops the files show
};

class SpaceImporter {
 public:
  SpaceImporter(ImportTarget* t, const std::string& file,
                const std::optional<XSpaceStepFilter>& steps, SharedStreams* shared,
                XSpaceImport* out, const TfGraphInputs* graph = nullptr,
                const TfOpCosts* tf_costs = nullptr)
      : t_(t),
        file_(file),
        steps_(steps),
        shared_(shared),
        out_(out),
        graph_(graph),
        tf_costs_(tf_costs) {}

  // `space`: the bytes of a checked XSpace (xspace::CheckSpace), read plane by plane.
  void Import(std::string_view space) {
    space_ = space;
    // Newer profilers store line times relative to the session start (Task Environment).
    int64_t base = 0, stop = 0;
    xspace::ForEachPlane(space, [&](std::string_view msg) {
      if (xspace::PlaneName(msg) != "Task Environment") return;
      PlaneView plane(msg);
      xspace::ForEachStat(msg, 6, [&](const StatView& s) {
        const std::string_view* name = plane.StatName(s.metadata_id);
        if (!name) return;
        int64_t v = static_cast<int64_t>(s.uint64_value() ? s.uint64_value() : s.int64_value());
        if (*name == keys::xstat::kProfileStartTime) base = v;
        if (*name == keys::xstat::kProfileStopTime) stop = v;
      });
    });
    first_ = UINT64_MAX;
    last_ = 0;
    if (steps_) FindKeptSteps(space, base);
    ReadHloPrograms(space);
    if (graph_ && !graph_->empty()) OpsThatRan(space);
    if (tf_costs_ && !tf_costs_->row_bytes.empty()) FindTfStepRows(space, base);
    xspace::ForEachPlane(space, [&](std::string_view msg) {
      PlaneView plane(msg);
      std::string_view n = plane.name();
      bool device = n.starts_with("/device:");
      uint32_t device_index = 0;
      if (device) std::from_chars(n.data() + n.rfind(':') + 1, n.data() + n.size(), device_index);
      xspace::ForEachMessage(msg, 3, [&](std::string_view l) {
        LineView line = xspace::ParseLine(l);
        if (line.has_events) ImportLine(plane, line, device, device_index, base);
      });
    });
    xspace::ForEachField(space, [&](const xspace::Field& x) {
      if (x.number == 2 && x.type == 2)
        out_->errors.push_back(ValidUtf8(file_) + ": profiler error: " + std::string(x.bytes));
    });
    // The window this file covers (record's info reports the gaps between windows).
    if (base > 0 && stop > base)
      out_->windows.emplace_back(t_->clock.Convert(base), t_->clock.Convert(stop));
    else if (first_ <= last_)
      out_->windows.emplace_back(first_, last_);
    else
      out_->windows.emplace_back(0, 0);
  }

  void FinishAllocators() { WriteAllocatorCounters(t_, "xa", &shared_->allocators, out_); }

  // Writes the streams of every line (after the last file).
  void FinishLines() {
    for (auto& [key, w] : shared_->lines) {
      w.Finish();
      out_->tracks++;
    }
    shared_->lines.clear();
  }

 private:
  uint32_t Name(std::string_view s) { return t_->Name(s); }

  void AddArg(std::vector<Arg>* args, std::string_view key, const XStatValue& v) {
    if (args->size() - arg_begin_ >= 255) return;  // nargs is one byte
    Arg a;
    a.key = Name(key);
    if (!a.key) return;
    switch (v.type) {
      case XStatValue::kInt:
        a.type = ArgType::kInt;
        a.v.i = v.i;
        break;
      case XStatValue::kUint:
        a.type = ArgType::kUint;
        a.v.u = v.u;
        break;
      case XStatValue::kFloat:
        a.type = ArgType::kFloat;
        a.v.f = v.f;
        break;
      case XStatValue::kString:
        a.type = ArgType::kString;
        a.v.str = Name(v.s);
        if (!a.v.str) return;
        break;
      case XStatValue::kBytes:
        return;  // opaque (serialised protos); not an argument
    }
    args->push_back(a);
  }
  void AddStr(std::vector<Arg>* args, std::string_view key, std::string_view value) {
    XStatValue v;
    v.type = XStatValue::kString;
    v.s = value;
    AddArg(args, key, v);
  }

  // The collective instructions' sizes and every instruction's operands of the programs the
  // metadata plane holds (JAX, XLA).
  void ReadHloPrograms(std::string_view space) {
    hlo_bytes_.clear();
    hlo_operands_.clear();
    hlo_costs_.clear();
    xla_inputs_.clear();
    xla_ran_.clear();
    xspace::ForEachPlane(space, [&](std::string_view msg) {
      if (xspace::PlaneName(msg) != "/host:metadata") return;
      PlaneView plane(msg);
      for (const auto& entry : plane.event_metadata()) {
        const xspace::EventMetadataView& md = entry.second;  // a lambda may not capture a binding
        int64_t program = HloProgramOfName(md.name);
        xspace::ForEachStat(md.msg, 5, [&](const StatView& st) {
          const std::string_view* sm = plane.StatName(st.metadata_id);
          if (program < 0 || !sm || *sm != keys::xstat::kHloProto || st.value != StatView::kBytes)
            return;
          if (!ReadHloCollectives(st.s, program, &hlo_bytes_) ||
              !ReadHloOperands(st.s, program, &hlo_operands_) ||
              !ReadHloCosts(st.s, program, &hlo_costs_))
            out_->errors.push_back(ValidUtf8(file_) + ": the HLO of program " +
                                   std::string(md.name) +
                                   " is not a readable HloProto; its collectives have no size" +
                                   " and its ops no producers");
        });
      }
    });
  }
  // An XLA op's producers in its program's HLO (keys::kTfInputs, as a TensorFlow graph's): its
  // operands, looking through those that ran as no op of this file (parameters, bitcasts,
  // tuples). False where the op is not an XLA op of a known program.
  bool XlaInputs(const std::vector<XStatValue>& stats, std::vector<Arg>* args) {
    int64_t program;
    const XStatValue* op = FindStat(stats, keys::xstat::kHloOp);
    if (hlo_operands_.empty() || !op || op->type != XStatValue::kString ||
        !StatInt(stats, keys::xstat::kProgramId, &program))
      return false;
    auto g = hlo_operands_.find(program);
    if (g == hlo_operands_.end()) return false;
    if (xla_ran_.empty())  // the names of this file's events: the instructions that ran
      xspace::ForEachPlane(space_, [&](std::string_view msg) {
        if (xspace::PlaneName(msg) == "/host:metadata") return;
        PlaneView plane(msg);
        for (const auto& [id, md] : plane.event_metadata()) xla_ran_.emplace(md.name);
      });
    auto key = std::make_pair(program, std::string(op->s));
    auto it = xla_inputs_.find(key);
    if (it == xla_inputs_.end())
      it = xla_inputs_.emplace(key, TfProducersOf(g->second, op->s, &xla_ran_)).first;
    if (!it->second.empty()) AddStr(args, keys::kTfInputs, it->second);
    return true;
  }

  // An XLA collective's bytes (its result shape), from its program's HLO.
  void HloBytes(const std::vector<XStatValue>& stats, std::vector<Arg>* args) {
    int64_t program;
    const XStatValue* op = FindStat(stats, keys::xstat::kHloOp);
    if (hlo_bytes_.empty() || !op || op->type != XStatValue::kString ||
        !StatInt(stats, keys::xstat::kProgramId, &program))
      return;
    auto it = hlo_bytes_.find({program, std::string(op->s)});
    if (it == hlo_bytes_.end()) return;
    XStatValue v;
    v.i = it->second;
    AddArg(args, keys::kBytes, v);
  }

  // An XLA op's FLOPs and output bytes, from its program's HLO (hlo_cost.h).
  void HloCostArgs(const std::vector<XStatValue>& stats, std::vector<Arg>* args) {
    int64_t program;
    const XStatValue* op = FindStat(stats, keys::xstat::kHloOp);
    if (hlo_costs_.empty() || !op || op->type != XStatValue::kString ||
        !StatInt(stats, keys::xstat::kProgramId, &program))
      return;
    auto g = hlo_costs_.find(program);
    if (g == hlo_costs_.end()) return;
    auto it = g->second.find(std::string(op->s));
    if (it == g->second.end()) return;
    XStatValue v;
    if (it->second.float_ops >= 0) {
      v.i = it->second.float_ops;
      AddArg(args, keys::kFloatOps, v);
      AddStr(args, keys::kFlopsMethod, keys::kFlopsShape);
    }
    if (it->second.output_bytes >= 0) {
      v.i = it->second.output_bytes;
      AddArg(args, keys::kOutputBytes, v);
    }
    if (it->second.input_bytes >= 0) {
      v.i = it->second.input_bytes;
      AddArg(args, keys::kInputBytes, v);
    }
  }

  // A TensorFlow op's FLOPs and bytes, from the bootstrap's costs of its graph's nodes.
  void TfCostArgs(const XEventKind& k, uint64_t start, std::vector<Arg>* args) {
    if (!tf_costs_ || tf_costs_->empty()) return;
    TfOpCost c = TfCostOf(*tf_costs_, graph_, &shared_->ran, k.op_name, k.op_type,
                          tf_rows_.At(start));
    if (c.float_ops < 0) return;
    XStatValue v;
    v.i = c.float_ops;
    AddArg(args, keys::kFloatOps, v);
    AddStr(args, keys::kFlopsMethod, c.framework ? keys::kFlopsFramework : keys::kFlopsShape);
    for (auto [key, n] : {std::pair{keys::kOutputBytes, c.output_bytes},
                          std::pair{keys::kInputBytes, c.input_bytes}})
      if (n >= 0) {
        v.i = n;
        AddArg(args, key, v);
      }
  }

  // The node names of the ops this file shows (and the files before it): a saved producer that
  // is not one of them was fused away (TfProducersOf looks through it).
  void OpsThatRan(std::string_view space) {
    std::string_view op, type;
    xspace::ForEachPlane(space, [&](std::string_view msg) {
      PlaneView plane(msg);
      for (const auto& [id, md] : plane.event_metadata())
        if (SplitTfOpName(md.name, &op, &type)) shared_->ran.emplace(op);
    });
  }

  // An op of a saved tf.function or Session graph: its producers' node names
  // (keys::kTfInputs), found once per node name.
  void GraphInputs(std::string_view node, std::vector<Arg>* args) {
    if (!graph_ || graph_->empty()) return;
    auto it = shared_->tf_inputs.find(std::string(node));
    if (it == shared_->tf_inputs.end())
      it =
          shared_->tf_inputs.emplace(std::string(node), TfProducersOf(*graph_, node, &shared_->ran))
              .first;
    if (!it->second.empty()) AddStr(args, keys::kTfInputs, it->second);
  }

  // A TensorFlow collective op: the collective it runs and its group (group_key); its
  // instance_key stat is kept as it is (keys::kInstanceKey).
  void CollectiveArgs(std::string_view op_type, const std::vector<XStatValue>& stats,
                      std::vector<Arg>* args) {
    std::string_view c = TfCollective(op_type);
    if (c.empty()) return;
    AddStr(args, keys::kCollective, c);
    int64_t group;
    if (StatInt(stats, "group_key", &group)) {
      XStatValue v;
      v.i = group;
      AddArg(args, keys::kProcessGroup, v);
    }
  }

  // The stats (field `field` of message `msg`) with their names, appended to *out.
  static void Resolve(const PlaneView& plane, std::string_view msg, uint32_t field,
                      std::vector<XStatValue>* out) {
    xspace::ForEachStat(msg, field, [&](const StatView& s) {
      const std::string_view* key = plane.StatName(s.metadata_id);
      if (!key) return;
      XStatValue v;
      v.key = *key;
      switch (s.value) {
        case StatView::kInt64:
          v.type = XStatValue::kInt;
          v.i = s.int64_value();
          break;
        case StatView::kUint64:
          v.type = XStatValue::kUint;
          v.u = s.uint64_value();
          break;
        case StatView::kDouble:
          v.type = XStatValue::kFloat;
          v.f = s.double_value();
          break;
        case StatView::kStr:
        case StatView::kBytes:
          v.type = s.value == StatView::kStr ? XStatValue::kString : XStatValue::kBytes;
          v.s = s.s;
          break;
        case StatView::kRef: {
          const std::string_view* ref = plane.StatName(static_cast<int64_t>(s.ref_value()));
          if (!ref) return;
          v.type = XStatValue::kString;
          v.s = *ref;
          break;
        }
        default:
          return;
      }
      out->push_back(v);
    });
  }

  // A time of a line's event on the trace clock. Rounding the ends (not the durations) down
  // keeps children inside their parents; wide arithmetic and clamping keep absurd times (a
  // damaged file) from overflowing.
  uint64_t At(__int128 line_ns, __int128 ps) const {
    __int128 ns = line_ns + ps / 1000;
    return t_->clock.Convert(static_cast<int64_t>(std::clamp<__int128>(ns, 0, INT64_MAX)));
  }
  static __int128 LineStart(const LineView& line, int64_t base) {
    __int128 line_ns = line.timestamp_ns;
    if (base > 0 && line_ns < base) line_ns += base;
    return line_ns;
  }

  // record --steps A:B: the time windows of the kept (numbered) step markers of this file,
  // on every host line. A file whose steps carry no number keeps everything (only its
  // numbered markers would be filtered).
  void FindKeptSteps(std::string_view space, int64_t base) {
    kept_.clear();
    numbered_ = false;
    std::vector<XStatValue> stats;
    xspace::ForEachPlane(space, [&](std::string_view msg) {
      if (xspace::PlaneName(msg).starts_with("/device:")) return;
      PlaneView plane(msg);
      xspace::ForEachMessage(msg, 3, [&](std::string_view l) {
        LineView line = xspace::ParseLine(l);
        std::string_view ln = line.display_name.empty() ? line.name : line.display_name;
        xspace::ForEachMessage(l, 4, [&](std::string_view e) {
          EventView ev = xspace::ParseEvent(e);
          const EventMetadataView* md = plane.EventMetadata(ev.metadata_id);
          if (!md) return;
          std::string_view name = md->name;
          stats.clear();
          Resolve(plane, md->msg, 5, &stats);
          Resolve(plane, ev.msg, 4, &stats);
          SplitTraceMeName(&name, &stats);
          XEventKind k = ClassifyXEvent(PlaneKind::kHost, ln, name, stats);
          if (!k.step || k.step_number < 0) return;
          numbered_ = true;
          if (k.step_number < steps_->first || k.step_number > steps_->last) return;
          __int128 line_ns = LineStart(line, base);
          kept_.push_back({At(line_ns, ev.offset_ps),
                           At(line_ns, ev.offset_ps + std::max<int64_t>(ev.duration_ps, 0))});
        });
      });
    });
    std::sort(kept_.begin(), kept_.end());
  }
  // The rows of the input elements the steps read (IteratorGetNextOp::DoCompute events'
  // element_size), by time, for the TensorFlow ops' counts per row (tf_op_cost.h).
  void FindTfStepRows(std::string_view space, int64_t base) {
    tf_rows_.clear();
    xspace::ForEachPlane(space, [&](std::string_view msg) {
      PlaneView plane(msg);
      xspace::ForEachMessage(msg, 3, [&](std::string_view l) {
        LineView line = xspace::ParseLine(l);
        xspace::ForEachMessage(l, 4, [&](std::string_view e) {
          EventView ev = xspace::ParseEvent(e);
          const EventMetadataView* md = plane.EventMetadata(ev.metadata_id);
          if (!md || md->name != "IteratorGetNextOp::DoCompute") return;
          xspace::ForEachStat(ev.msg, 4, [&](const StatView& s) {
            const std::string_view* name = plane.StatName(s.metadata_id);
            int64_t bytes = static_cast<int64_t>(s.uint64_value()) + s.int64_value();
            if (name && *name == "element_size" && TfRowsOf(*tf_costs_, bytes) > 0)
              tf_rows_.Add(At(LineStart(line, base), ev.offset_ps), TfRowsOf(*tf_costs_, bytes));
          });
        });
      });
    });
    tf_rows_.Sort();
  }
  // Whether an event starting at `start` stays under the step filter: inside a kept step, or
  // an allocation (bytes in use need every one), or no numbered step to filter by.
  bool KeptByStepFilter(const XEventKind& k, uint64_t start) const {
    if (!steps_ || !numbered_ || k.category == Category::kAllocation) return true;
    auto it = std::upper_bound(kept_.begin(), kept_.end(), std::make_pair(start, UINT64_MAX));
    return it != kept_.begin() && start <= std::prev(it)->second;
  }

  // The line being imported, as its events need it.
  struct LineContext {
    const PlaneView& plane;
    PlaneKind kind;
    std::string_view name;  // its display name, else its name
    __int128 ns;              // its start (LineStart)
  };

  // The memory stats of an allocation or deallocation, under the names our memory analysis
  // reads; the allocator's bytes in use at `start` go to its series.
  void MemoryArgs(const std::vector<XStatValue>& stats, uint64_t start, std::vector<Arg>* args) {
    int64_t n;
    if (StatInt(stats, keys::xstat::kAllocationBytes, &n) ||
        StatInt(stats, keys::xstat::kRequestedBytes, &n)) {
      XStatValue v;
      v.i = n;
      AddArg(args, keys::kBytes, v);
    }
    if (StatInt(stats, keys::xstat::kAddr, &n)) {
      XStatValue v;
      v.type = XStatValue::kUint;
      v.u = static_cast<uint64_t>(n);
      AddArg(args, keys::kAddr, v);
    }
    if (const XStatValue* op = FindStat(stats, keys::xstat::kTfOp);
        op && op->type == XStatValue::kString)
      AddStr(args, keys::kOp, op->s);
    const XStatValue* alloc = FindStat(stats, keys::xstat::kAllocatorName);
    if (StatInt(stats, keys::xstat::kBytesAllocated, &n) && alloc &&
        alloc->type == XStatValue::kString)
      shared_->allocators[std::string(alloc->s)].emplace_back(start, static_cast<double>(n));
  }

  // An item's arguments: an op's names, inputs and collective, a step's number, an instant's
  // memory stats, then every stat as it is and the display name where it differs from the name.
  void ItemArgs(const XEventKind& k, const std::vector<XStatValue>& stats,
                const EventMetadataView* md, uint64_t start, std::vector<Arg>* args) {
    if (k.op) {
      AddStr(args, keys::kOpName, k.op_name);
      AddStr(args, keys::kOpType, k.op_type);
      if (!XlaInputs(stats, args)) GraphInputs(k.op_name, args);
      CollectiveArgs(k.op_type, stats, args);
      HloBytes(stats, args);
      HloCostArgs(stats, args);
      TfCostArgs(k, start, args);
    }
    if (k.step && k.step_number >= 0) {
      XStatValue v;
      v.i = k.step_number;
      AddArg(args, keys::kStep, v);
    }
    if (k.instant) MemoryArgs(stats, start, args);
    for (const auto& s : stats) AddArg(args, s.key, s);
    if (md && !md->display_name.empty() && md->display_name != md->name)
      AddStr(args, keys::kDisplayName, md->display_name);
  }

  // One event of the line as an item, its arguments appended to *args (`stats` is scratch);
  // false where it is left out: aggregated (no time), outside the step filter or the process's
  // lifetime, or its name cannot be kept.
  bool LineItem(const LineContext& line, const EventView& ev, std::vector<XStatValue>& stats,
                std::vector<Arg>* args, LineEvent* it) {
    if (ev.occurrences) return false;  // aggregated, no time
    const EventMetadataView* md = line.plane.EventMetadata(ev.metadata_id);
    std::string_view name = md ? md->name : std::string_view();
    if (name.empty()) name = "(unnamed XSpace event)";
    stats.clear();
    if (md) Resolve(line.plane, md->msg, 5, &stats);
    Resolve(line.plane, ev.msg, 4, &stats);
    SplitTraceMeName(&name, &stats);
    XEventKind k = ClassifyXEvent(line.kind, line.name, name, stats);
    if (k.step && steps_ && k.step_number >= 0 &&
        (k.step_number < steps_->first || k.step_number > steps_->last))
      return false;
    __int128 off = ev.offset_ps, dur = std::max<int64_t>(ev.duration_ps, 0);
    it->start = At(line.ns, off);
    it->end = k.instant ? it->start : At(line.ns, off + dur);
    if (!KeptByStepFilter(k, it->start)) return false;
    if (it->start < t_->earliest || it->start > t_->latest) {
      out_of_time_++;
      return false;
    }
    it->end = std::min(it->end, t_->latest);
    it->name = Name(name);
    if (!it->name) return false;
    it->category = k.category;
    it->instant = k.instant;
    it->args = arg_begin_ = args->size();
    ItemArgs(k, stats, md, it->start, args);
    if (k.step) out_->steps++;
    first_ = std::min(first_, it->start);
    last_ = std::max(last_, it->end);
    it->nargs = static_cast<uint32_t>(args->size() - it->args);
    return true;
  }

  // The track of a line's stream: a device's queue, or a host thread.
  uint64_t LineTrack(const LineView& line, bool device, uint32_t device_index,
                     layout::TrackKind* kind) const {
    if (device) {
      *kind = layout::TrackKind::kDevice;
      return (uint64_t{device_index} << 32) | static_cast<uint32_t>(line.id);
    }
    *kind = layout::TrackKind::kImported;
    // Host lines of real threads carry the tid (at most pid_max, 2^22), or (TensorFlow 2.2x)
    // std::hash of the thread's id, which the runtime kept for the threads it traced; others
    // get a made-up id.
    uint64_t track = line.id > 0 && line.id <= (1 << 22) ? static_cast<uint64_t>(line.id) : 0;
    if (auto it = t_->tid_of_hash.find(line.id); !track && it != t_->tid_of_hash.end())
      track = it->second;
    return track;
  }

  void ImportLine(const PlaneView& plane, const LineView& line, bool device,
                  uint32_t device_index, int64_t base) {
    std::string_view line_name = line.display_name.empty() ? line.name : line.display_name;
    LineContext context{plane, device ? PlaneKind::kDevice : PlaneKind::kHost, line_name,
                        LineStart(line, base)};
    std::vector<LineEvent> items;
    std::vector<Arg> args;  // every item's arguments, one after the other
    std::vector<XStatValue> stats;
    xspace::ForEachMessage(line.msg, 4, [&](std::string_view e) {
      LineEvent it;
      if (LineItem(context, xspace::ParseEvent(e), stats, &args, &it)) items.push_back(it);
    });
    if (items.empty()) return;
    layout::TrackKind kind;
    uint64_t track = LineTrack(line, device, device_index, &kind);
    // The same thread in a later window (file) continues its stream.
    auto key = std::make_tuple(device, device_index, line.id, std::string(line_name));
    auto at = shared_->lines.find(key);
    if (at == shared_->lines.end()) {
      at = shared_->lines.emplace(key, t_->NewStream(device ? "xd" : "x", track, kind)).first;
      uint64_t first = UINT64_MAX;
      for (const auto& it : items) first = std::min(first, it.start);
      PutThreadName(at->second, first, std::string(line_name));
    }
    WriteLineEvents(at->second, items, args, &t_->classes);
    out_->events += items.size();
  }

 public:
  uint64_t out_of_time_ = 0;  // events dropped for times far from the process's lifetime

 private:
  ImportTarget* t_;
  std::string file_;
  const std::optional<XSpaceStepFilter>& steps_;
  SharedStreams* shared_;
  XSpaceImport* out_;
  const TfGraphInputs* graph_;  // the process's tf.function graphs (may be null)
  const TfOpCosts* tf_costs_;   // ... their nodes' FLOPs (may be null)
  TfStepRows tf_rows_;          // ... and the rows of the steps' input elements
  size_t arg_begin_ = 0;        // where the current item's arguments start
  std::vector<std::pair<uint64_t, uint64_t>> kept_;  // kept steps' windows (FindKeptSteps)
  bool numbered_ = false;                            // the file has numbered step markers
  HloCollectiveBytes hlo_bytes_;                     // this file's XLA collectives' sizes
  std::string_view space_;                           // the file being imported
  HloOperands hlo_operands_;                         // ... and its XLA instructions' operands
  HloCosts hlo_costs_;                               // ... their FLOPs and output bytes
  std::unordered_set<std::string> xla_ran_;          // ... and its events' names
  std::map<std::pair<int64_t, std::string>, std::string>
      xla_inputs_;                          // (program, op) -> its producers
  uint64_t first_ = UINT64_MAX, last_ = 0;  // the file's imported events' extent
};

// The bytes of file `f` if they are an XSpace the budget can import; else an error entry.
std::optional<std::string> ReadSpace(const std::string& f, uint64_t max_file_bytes,
                                     uint64_t max_memory, XSpaceImport* out) {
  std::string data;
  struct stat st {};
  if (max_memory && lstat(f.c_str(), &st) == 0 &&
      ResidentBytes() + static_cast<uint64_t>(st.st_size) > max_memory) {
    out->errors.push_back(ValidUtf8(f) + ": not imported: reading it needs at least " +
                          BudgetText(st.st_size) + " (the file), over record's memory budget of " +
                          BudgetText(max_memory) + " (record --import-max-memory)");
    return std::nullopt;
  }
  try {
    data = ReadUntrustedFile(f, max_file_bytes);
  } catch (const Error& e) {
    out->errors.push_back(e.what());
    return std::nullopt;
  }
  if (data.empty()) {
    out->errors.push_back(ValidUtf8(f) + ": empty file; skipped");
    return std::nullopt;
  }
  xspace::SpaceShape shape;
  if (!xspace::CheckSpace(data, &shape)) {
    out->errors.push_back(ValidUtf8(f) + ": not a readable XSpace (" +
                          std::to_string(data.size()) +
                          " bytes; truncated or not an .xplane.pb); skipped");
    return std::nullopt;
  }
  // Read where it lies: the import holds the file (already read), one plane's metadata and
  // the names of its events beside what it keeps.
  uint64_t need = shape.plane_metadata_bytes + shape.name_bytes;
  if (max_memory && ResidentBytes() + need > max_memory) {
    out->errors.push_back(ValidUtf8(f) + ": not imported: reading it needs " +
                          BudgetText(data.size() + need) + " (the file, " +
                          BudgetText(data.size()) + ", and its metadata, " + BudgetText(need) +
                          "), over record's memory budget of " + BudgetText(max_memory) +
                          " (record --import-max-memory)");
    return std::nullopt;
  }
  return data;
}

}  // namespace

XSpaceImport ImportXSpace(const std::string& trace_dir, int64_t pid,
                          const std::vector<std::string>& files,
                          const std::optional<XSpaceStepFilter>& steps, uint64_t max_file_bytes,
                          const TfGraphInputs* graph, uint64_t max_memory,
                          const TfOpCosts* tf_costs) {
  ImportTarget t;
  LoadImportTarget(trace_dir, pid, "XSpace", &t);
  XSpaceImport out;
  std::vector<std::string> imported;
  uint64_t out_of_time = 0;
  SharedStreams shared;
  for (const auto& f : files) {
    std::optional<std::string> data = ReadSpace(f, max_file_bytes, max_memory, &out);
    if (!data) continue;
    SpaceImporter imp(&t, BaseName(f), steps, &shared, &out, graph, tf_costs);
    imp.Import(*data);
    out_of_time += imp.out_of_time_;
    out.files++;
    imported.push_back(f);
  }
  {
    SpaceImporter last(&t, "", steps, &shared, &out);
    last.FinishLines();
    last.FinishAllocators();
  }
  std::vector<std::string> names;
  for (const auto& f : imported) names.push_back(ValidUtf8(BaseName(f)));
  FinishImport(&t, "xspace", names, out_of_time, &out);
  return out;
}

}  // namespace tt
