// Steps: found from framework step events (category step), from annotations named by the user
// (--step-name), else from the loop's repeated call (the tf.function or jitted JAX function the
// program calls most often at the top of a thread; a JAX step runs from that call through the
// XLA execution it caused), numbered, and selected (--steps A:B, --skip-warmup N) as time
// windows per process.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/scan.h"

namespace tt::model {

// Steps A..B inclusive, by step number (or by position when steps carry no number).
struct StepRange {
  int64_t first = 0;
  int64_t last = INT64_MAX;
};

// Where a process's steps come from.
enum class StepSource : uint8_t {
  kMarker,        // the framework's step events (category step)
  kStepName,      // annotations named by --step-name
  kRepeatedCall,  // the loop's repeated tf.function / jitted call
};

struct Step {
  uint64_t start = 0, end = 0;
  int64_t number = -1;  // the step's `step` argument, else its position in its process
  size_t process = 0;
  bool marker = false;    // a step-category slice (not one named by --step-name)
  // number is the program's count: the step's `step` argument, a tf.function call's
  // tensortrace_call, or (by_run) a JAX step's execution's run id less the first step's.
  bool numbered = false;
  bool by_run = false;
  uint32_t name = 0;      // the slice's name id in its process
  StepSource source = StepSource::kMarker;
  // Closed by the scan, not by its end event (model::Slice::unclosed): still open where its
  // track's stream ends (a recording still running: `top`), its end the track's last event;
  // or cut where a capture window closed.
  bool unclosed = false;
  // A JAX step: the host call ends at call_end, and the XLA execution it caused runs (later,
  // on another thread) from exec_start to exec_end = end. exec_end 0: none linked.
  uint64_t call_end = 0;
  // The end of the step's own slice (its marker, annotation or call): a repeated call's step
  // runs on to the next call (one turn of the loop), past it.
  uint64_t slice_end = 0;
  uint64_t exec_start = 0, exec_end = 0;
  int64_t run = 0;  // the linked execution's run_id (exec_end > 0)
  // Warm-up: the step holds tracing or compilation (time of a kCompile slice of its process
  // that is not also an input wait), model/job/warmup.h. The one definition: the step view,
  // diff, the report and replay read it.
  bool warmup = false;
};

// One run of a compiled XLA program on one track: its ops' extent.
struct XlaRun {
  uint32_t module = 0;  // hlo_module's name id
  int64_t run = 0;      // run_id
  uint64_t start = 0, end = 0;
};

struct Window {
  uint64_t start, end;
};
// Per process: the selected steps' windows, sorted by start.
using Windows = std::vector<std::vector<Window>>;

bool InWindows(const std::vector<Window>& w, uint64_t ts);

// The step slices of one host track, as its scan meets them (FindSteps' visitor).
// The process's name ids a step scan reads.
struct StepKeys {
  std::set<uint32_t> names;  // --step-name annotations
  uint32_t step = 0;         // the "step" argument key
  uint32_t tf_function = 0;  // the "tf_function_call" argument key
  uint32_t call_num = 0;     // the "tensortrace_call" argument key
  uint32_t run_id = 0, hlo_module = 0;
  std::vector<bool> jax_call;  // by name id: "PjitFunction(f)", "PmapFunction(f)"
};

struct StepTrackScan {
  const StepKeys* keys;
  size_t process;
  const Process* proc;
  std::vector<Step> found;  // step markers and --step-name annotations
  std::vector<Step> calls;  // tf.function and jitted calls (candidates for the repeated call)
  std::vector<XlaRun> runs;
  std::vector<Window> compile, input;  // tracing/compilation and input waits (warm-up)
  // found's earlier parts, kFoundPart steps each: one vector of millions of steps grown by
  // doubling holds its old and new copies at once (Finish joins them, sized exactly).
  std::vector<std::vector<Step>> found_parts;
  static constexpr size_t kFoundPart = 65536;
  void OnBegin(const model::Slice&) {}
  void OnPoint(const model::Point&) {}
  void OnSlice(const model::Slice& s);
};

// FindSteps in two halves, for a caller that scans the host tracks itself (with other
// visitors, model::FanOut): a StepTrackScan per host track (`tracks`, in track order, each to
// be scanned exactly once), then Finish().
class StepScans {
 public:
  StepScans(const model::TraceModel& m, const std::vector<std::string>& step_names);
  StepScans(const StepScans&) = delete;
  StepScans& operator=(const StepScans&) = delete;
  std::vector<StepTrackScan> tracks;
  std::vector<size_t> track_index;  // tracks[i] scans m.tracks[track_index[i]]
  std::vector<Step> Finish();

 private:
  const model::TraceModel& m_;
  std::vector<StepKeys> keys_;
};

// Per process with steps, one line: how many, how they were found and numbered, and which
// numbers are missing between the first and the last where the program numbered them ("8 steps
// from the loop's repeated call PjitFunction(update), each from the call through the XLA
// execution it caused (8 linked by run order); numbered by position"); indexed by process, ""
// for a process without steps.
std::vector<std::string> DescribeStepSources(const model::TraceModel& m,
                                             const std::vector<Step>& steps);
const char* StepSourceName(StepSource s);  // "marker", "step-name", "repeated-call"

// Sorted by start, overlapping windows merged (InWindows looks at one window only).
void SortAndMerge(std::vector<Window>* v);

// Every step of every process, numbered, ordered by process then start.
std::vector<Step> FindSteps(const model::TraceModel& m, const std::vector<std::string>& step_names,
                            unsigned threads);

// A gap between two capture windows (record --window-s): the profiler was off, its events
// are not in the trace. after/before: the numbers of the last step that ended before it and
// the first that started after it (-1: none); cut: steps that overlap it (partly captured).
struct CaptureGap {
  uint64_t start = 0, end = 0;
  int64_t after = -1, before = -1;
  std::vector<int64_t> cut;
};
// The gaps between the capture windows of one process (`windows`: each window's start and end
// on the trace clock, in any order; 0, 0 for an unknown one), with the steps around them.
std::vector<CaptureGap> CaptureGaps(const std::vector<Step>& steps, size_t process,
                                    std::vector<std::pair<uint64_t, uint64_t>> windows);

// The parts of a step's time: [start, end], or (a JAX step with its execution linked) its call
// and its execution, merged where they overlap.
std::vector<Window> StepParts(const Step& s);

// True for the steps a selection keeps (skip_warmup counts each process's first steps).
std::vector<bool> SelectSteps(const std::vector<Step>& steps, const std::optional<StepRange>& range,
                              uint64_t skip_warmup);

// The windows of the selected steps. Throws tt::Error when the trace has no steps, or the
// selection keeps none.
Windows SelectWindows(const model::TraceModel& m, const std::vector<Step>& steps,
                      const std::optional<StepRange>& range, uint64_t skip_warmup);

}  // namespace tt::model
