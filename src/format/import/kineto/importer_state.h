// The Kineto importer's state (internal to format/import/kineto/): the timelines read so far
// from a process's PyTorch profiles, and what joins them across events (collectives, flows,
// optimizer steps, module calls). Its members live in import.cc (files, time, timelines),
// events.cc (events and their arguments), collectives.cc (collectives' arguments and their
// pairing) and timelines.cc (synthesized steps, module scopes, redispatches, flows, writing).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/import/kineto/classify.h"
#include "format/import/kineto/event.h"
#include "format/import/kineto/json_args.h"
#include "format/import/target.h"
#include "format/slice_order.h"

namespace tt::kineto {

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

class KinetoImporter {
 public:
  KinetoImporter(ImportTarget* t, const std::optional<ImportStepFilter>& steps, ImportResult* out)
      : t_(t), steps_(steps), out_(out) {}

  // One file: its header (`first_step`: the optimizer steps the program had done when this
  // window started), each of its events (event.h: as stream.h reads them), then its end.
  void BeginFile(const json& header, int64_t first_step);
  void ImportEvent(const KinetoEvent& e);
  void EndFile();
  void Finish();

  uint64_t out_of_time = 0;
  uint64_t foreign = 0;  // events of other processes or of no numeric thread

 private:
  struct Comm {  // a collective's op or backend range
    Timeline* tl;
    size_t item;
    std::string name;
    int64_t nelems;
    std::string dtype;
    int64_t peer = -1;  // a c10d send's or recv's peer rank
  };
  struct OptStep {
    Timeline* tl;
    uint64_t start, end;
    size_t window;
  };
  struct Dist {
    bool known = false;
    std::string group;  // the name of the process's one process group
    int64_t rank = -1, world = -1;
    // Every process group it is in (pg_config), in the order the program made them.
    std::vector<std::pair<std::string, int64_t>> groups;  // name, size
  };
  struct FlowPoint {
    Timeline* tl = nullptr;
    uint64_t ts = 0;
  };
  struct FlowEnds {
    FlowPoint out, in;
  };

  // import.cc
  bool Time(const json& us, uint64_t* out);
  Timeline* TimelineOf(const KinetoEvent& e, bool device);

  // events.cc
  void ProfileSpan(const KinetoEvent& e);
  void NameThread(const KinetoEvent& e);
  void Memory(const KinetoEvent& e);
  void Instant(const KinetoEvent& e, const std::string& name);
  void FlowEnd(const KinetoEvent& e, bool out);
  void Str(Timeline* tl, std::string_view key, std::string_view v);
  void Int(Timeline* tl, std::string_view key, int64_t v);
  void AddArgs(Timeline* tl, const KinetoKind& k, const std::string& name, const json& a);
  void CostArgs(Timeline* tl, const std::string& name, const json& a);
  static bool HasArg(const Timeline& tl, const LineEvent& ev, uint32_t key);
  static void Reopen(Timeline* tl, LineEvent* ev);

  // collectives.cc
  void ReadDistributedInfo(const json& d);
  void GroupArgs(Timeline* tl);
  void CommArgs(Timeline* tl, const std::string& name, const json& a);
  void InheritParamComms();
  void GlooGroups();
  void PairCollectives();
  void AppendArgs(const Comm* c, const std::string& dtype, int64_t bytes);
  void AppendPeer(const Comm* c, int64_t peer);

  // timelines.cc
  void SynthesizeSteps();
  uint64_t WindowFirstStepStart(Timeline* tl, size_t window, const std::vector<uint64_t>& ends);
  void ScopeOps(Timeline* tl);
  static void MergeRedispatches(Timeline* tl);
  void WriteFlows();
  void WriteTimeline(Timeline* tl);

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
  Dist dist_;
  std::map<int64_t, FlowEnds> flow_ends_;  // of the file being imported, by Kineto's id
  uint64_t flows_ = 0;
  std::pair<uint64_t, uint64_t> profile_, extent_;  // of the file being imported
  std::vector<Comm> comms_;
  size_t file_comms_ = 0;  // the first of comms_ that the file being read added
};

}  // namespace tt::kineto
