#include "model/job/steps.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string_view>

#include "core/error.h"
#include "core/parallel.h"
#include "format/keys.h"
#include "model/args.h"
#include "model/job/warmup.h"
#include "model/meaning.h"
#include "model/scan.h"

namespace tt::model {

using layout::Category;

bool InWindows(const std::vector<Window>& w, uint64_t ts) {
  auto it = std::upper_bound(w.begin(), w.end(), ts,
                             [](uint64_t t, const Window& x) { return t < x.start; });
  return it != w.begin() && ts <= std::prev(it)->end;
}

void StepTrackScan::OnSlice(const model::Slice& s) {
  if (s.category == Category::kFrameworkOp || s.category == Category::kUser) {
    Meaning m = proc->MeaningOf(s.category, s.name);
    if (m == Meaning::kCompile) compile.push_back({s.start, s.end});
    if (m == Meaning::kInput && IsInputWait(proc->Name(s.name))) input.push_back({s.start, s.end});
  }
  if (s.category == Category::kFrameworkOp && !keys->names.count(s.name)) {
    // An XLA op of one run of a compiled program: the run's extent on this track (its ops are
    // contiguous on the track, so one entry per run).
    if (!keys->run_id || !s.args.count) return;
    std::optional<int64_t> run = model::ArgInt(s.args, keys->run_id);
    uint32_t module = run ? model::ArgStr(s.args, keys->hlo_module) : 0;
    if (!module) return;
    if (runs.empty() || runs.back().module != module || runs.back().run != *run)
      runs.push_back({module, *run, s.start, s.end});
    runs.back().start = std::min(runs.back().start, s.start);
    runs.back().end = std::max(runs.back().end, s.end);
    return;
  }
  bool marker = s.category == Category::kStep;
  if (!marker && !keys->names.count(s.name)) {
    bool call = (s.name < keys->jax_call.size() && keys->jax_call[s.name]) ||
                (s.category == Category::kUser && keys->tf_function && s.args.count &&
                 model::ArgStr(s.args, keys->tf_function));
    if (!call) return;
    Step st;
    st.start = s.start;
    st.end = st.call_end = st.slice_end = s.end;
    st.process = process;
    st.name = s.name;
    st.source = StepSource::kRepeatedCall;
    st.unclosed = s.unclosed;
    // The bootstrap's count of this tf.function's calls: the program's step number.
    if (std::optional<int64_t> n = model::ArgInt(s.args, keys->call_num); n && *n >= 0) {
      st.number = *n;
      st.numbered = true;
    }
    calls.push_back(st);
    return;
  }
  Step st;
  st.start = s.start;
  st.end = st.call_end = st.slice_end = s.end;
  st.process = process;
  st.marker = marker;
  st.source = marker ? StepSource::kMarker : StepSource::kStepName;
  st.name = s.name;
  st.unclosed = s.unclosed;
  Arg a;
  if (model::ArgNumber(s.args, keys->step, &a) && a.type != layout::ArgType::kFloat) {
    st.number = a.v.i;
    st.numbered = true;
  }
  if (found.size() == kFoundPart) {
    found_parts.push_back(std::move(found));
    found = {};
    found.reserve(kFoundPart);
  }
  found.push_back(st);
}

namespace {

// The parts of a track's steps (StepTrackScan::found_parts) and the last one, as one vector
// in *last, each part freed once copied.
void JoinParts(std::vector<std::vector<Step>>* parts, std::vector<Step>* last) {
  if (parts->empty()) return;
  size_t n = last->size();
  for (const auto& p : *parts) n += p.size();
  std::vector<Step> all;
  all.reserve(n);
  for (auto& p : *parts) {
    all.insert(all.end(), p.begin(), p.end());
    std::vector<Step>().swap(p);
  }
  all.insert(all.end(), last->begin(), last->end());
  parts->clear();
  *last = std::move(all);
}

// Sorts f by start (enclosing first) and keeps the steps that `nested(enclosing, inner)` does
// not drop, appending them to out; f is consumed (kept in place, then moved: millions of steps
// are hundreds of MB, not to be held twice).
template <typename Nested>
void KeepOuter(std::vector<Step>& f, Nested nested, std::vector<Step>* out) {
  std::sort(f.begin(), f.end(), [](const Step& a, const Step& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  std::vector<size_t> open;  // kept steps (their places in f) that may enclose later ones
  size_t kept = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    const Step& s = f[i];
    while (!open.empty() && f[open.back()].end < s.start) open.pop_back();
    bool drop = false;
    for (size_t e : open)
      if (f[e].end >= s.end && nested(f[e], s)) drop = true;
    if (drop) continue;
    if (kept != i) f[kept] = std::move(f[i]);
    open.push_back(kept++);
  }
  f.resize(kept);
  if (out->empty())
    *out = std::move(f);
  else
    out->insert(out->end(), f.begin(), f.end());
  std::vector<Step>().swap(f);
}

// The XLA module a jitted call runs: "PjitFunction(f)" runs "jit_f"; "" for other calls.
std::string ModuleOfCall(std::string_view call) {
  if (!call.starts_with("PjitFunction(") || !call.ends_with(")")) return "";
  return "jit_" + std::string(call.substr(13, call.size() - 14));
}

// The runs of one compiled program (by module name), merged over tracks by run id.
std::map<int64_t, XlaRun> RunsOf(const model::Process& p, const std::vector<XlaRun>& runs,
                                 std::string_view module) {
  std::map<int64_t, XlaRun> by_run;
  if (module.empty()) return by_run;
  for (const XlaRun& r : runs) {
    if (p.Name(r.module) != module) continue;
    auto [it, fresh] = by_run.try_emplace(r.run, r);
    it->second.start = std::min(it->second.start, r.start);
    it->second.end = std::max(it->second.end, r.end);
  }
  return by_run;
}

// The repeated call of one process, of its outermost tf.function / jitted calls (`outer`: none
// inside another on its thread) called at least twice: the jitted call whose executions hold
// the most XLA time, which is the function that runs the model (a loop also calls small jitted
// helpers, such as a batch's conversion, as often or more often); where no call ran XLA
// executions (tf.function), the name called most often (a tie goes to the name called first).
std::vector<Step> RepeatedCall(const model::Process& p, const std::vector<Step>& outer,
                               const std::vector<XlaRun>& runs) {
  struct Count {
    size_t calls = 0;
    uint64_t first = 0, xla_ns = 0;
  };
  std::map<uint32_t, Count> count;
  for (const Step& c : outer) {
    auto [it, fresh] = count.try_emplace(c.name, Count{0, c.start, 0});
    it->second.calls++;
    it->second.first = std::min(it->second.first, c.start);
  }
  for (auto& [name, n] : count)
    for (const auto& [id, r] : RunsOf(p, runs, ModuleOfCall(p.Name(name))))
      n.xla_ns += r.end - r.start;
  auto better = [](const Count& a, const Count& b) {  // a before b
    if (a.xla_ns != b.xla_ns) return a.xla_ns > b.xla_ns;
    if (a.calls != b.calls) return a.calls > b.calls;
    return a.first < b.first;
  };
  uint32_t best = 0;
  for (const auto& [name, n] : count)
    if (n.calls >= 2 && (!best || better(n, count[best]))) best = name;
  std::vector<Step> steps;
  for (const Step& c : outer)
    if (best && c.name == best) steps.push_back(c);
  std::sort(steps.begin(), steps.end(),
            [](const Step& a, const Step& b) { return a.start < b.start; });
  return steps;
}

// A JAX step runs from its call through the XLA execution it caused: "PjitFunction(f)" runs
// the module "jit_f". Its runs (merged over tracks by run id) are taken in order of start,
// each by the first call (in order) that started before it: the CPU client runs one
// program's executions one after the other, in the order they were dispatched, numbered by
// consecutive run ids.
void LinkExecutions(const model::Process& p, const std::vector<XlaRun>& runs,
                    std::vector<Step>* steps) {
  if (steps->empty()) return;
  std::string module = ModuleOfCall(p.Name(steps->front().name));
  if (module.empty()) return;
  std::map<int64_t, XlaRun> by_run = RunsOf(p, runs, module);
  std::vector<XlaRun> order;
  for (const auto& [id, r] : by_run) order.push_back(r);
  std::sort(order.begin(), order.end(),
            [](const XlaRun& a, const XlaRun& b) { return a.start < b.start; });
  size_t j = 0;
  uint32_t unlinked = 0;  // steps left without an execution since the last linked one
  std::optional<uint32_t> last_run;
  for (size_t i = 0; i < steps->size(); ++i) {
    Step& s = (*steps)[i];
    while (j < order.size() && order[j].start < s.start) ++j;
    if (j == order.size()) break;
    // Run ids skipped since the last linked run: executions not captured (they ran in a gap
    // between capture windows). An execution that started after the next call did may be the
    // next step's; where runs are still unaccounted for, this step's own is taken as one of
    // those lost, and the step is left without one.
    auto run = static_cast<uint32_t>(order[j].run);
    if (last_run && i + 1 < steps->size() && order[j].start > (*steps)[i + 1].start &&
        run - *last_run - 1 > unlinked) {
      ++unlinked;
      continue;
    }
    last_run = run;
    unlinked = 0;
    s.exec_start = order[j].start;
    s.exec_end = order[j].end;
    s.run = order[j].run;
    s.end = std::max(s.end, s.exec_end);
    ++j;
  }
}

// JAX's CPU client numbers one compiled program's executions one by one (run_id, a 32-bit
// count from a start of its own): a step's number is its run id less the first linked step's
// (plus the steps before that one), so that a step lost between capture windows leaves its
// number missing instead of shifting the later ones. A step whose execution was not captured
// (it ran in a gap between windows, or after the last) takes the number after the step before
// it, where that leaves the numbers increasing. Run ids that skip more steps than the time
// between two linked steps could have held (at the shortest linked step's length) are no such
// count: a multi-device program's first run takes an id of another series. Then, as where
// the ids do not increase, steps are numbered by position.
void NumberByRun(std::vector<Step>* steps) {
  size_t first = 0;
  while (first < steps->size() && !(*steps)[first].exec_end) ++first;
  if (first == steps->size()) return;
  uint64_t shortest = UINT64_MAX;
  for (const Step& s : *steps) {
    if (s.numbered) return;
    if (s.exec_end) shortest = std::min(shortest, std::max<uint64_t>(s.end - s.start, 1));
  }
  uint32_t base = static_cast<uint32_t>((*steps)[first].run);
  std::vector<int64_t> numbers;
  int64_t last = -1;
  const Step* prev = nullptr;  // the last linked step
  for (const Step& s : *steps) {
    int64_t n = s.exec_end ? static_cast<int64_t>(first) +
                                 static_cast<uint32_t>(static_cast<uint32_t>(s.run) - base)
                           : last + 1;
    if (n <= last) return;  // not one program's runs in order: numbered by position
    if (s.exec_end && prev) {
      uint64_t skipped = static_cast<uint32_t>(static_cast<uint32_t>(s.run) - prev->run) - 1;
      if (skipped > (s.start - prev->start) / shortest) return;
    }
    if (s.exec_end) prev = &s;
    numbers.push_back(last = n);
  }
  for (size_t i = 0; i < steps->size(); ++i) {
    (*steps)[i].number = numbers[i];
    (*steps)[i].numbered = (*steps)[i].by_run = true;
  }
}

// A loop's step is one turn of the loop: a repeated call's step runs on to the next call, so
// that the Python between two calls (the batch's conversion, Flax's split and merge of the
// model's state, a summary, the wait for the next batch) is the step's, as the program's own
// timing of its loop counts it. Not across a stretch without calls much longer than the loop's
// turns (the calls of a capture gap are not in the trace): over 4 times their median.
void UntilTheNextCall(std::vector<Step>* steps) {
  if (steps->size() < 2) return;
  std::vector<uint64_t> turns;
  for (size_t i = 1; i < steps->size(); ++i)
    turns.push_back((*steps)[i].start - (*steps)[i - 1].start);
  std::nth_element(turns.begin(), turns.begin() + turns.size() / 2, turns.end());
  uint64_t longest = 4 * turns[turns.size() / 2];
  for (size_t i = 0; i + 1 < steps->size(); ++i) {
    Step& s = (*steps)[i];
    uint64_t next = (*steps)[i + 1].start;
    if (next <= s.call_end + 1 || next - s.start > longest || s.unclosed) continue;
    s.call_end = next - 1;
    s.end = std::max(s.end, s.call_end);
  }
}

// Steps named by --step-name that are jitted calls ("PjitFunction(f)") run, as the repeated
// call's do, from the call through the XLA execution it caused: each name's steps are linked
// to its program's runs and numbered by them.
void LinkNamedCalls(const model::Process& p, const std::vector<XlaRun>& runs,
                    std::vector<Step>* steps) {
  auto is_call = [&](const Step& s) {
    return s.source == StepSource::kStepName && !ModuleOfCall(p.Name(s.name)).empty();
  };
  // None (marked steps): left as they are, not copied (4.75M steps of 96 B copied into a vector
  // grown by doubling held 1.2 GB at once).
  if (std::none_of(steps->begin(), steps->end(), is_call)) return;
  std::map<uint32_t, std::vector<Step>> named;
  std::vector<Step> rest;
  rest.reserve(steps->size());
  for (const Step& s : *steps)
    if (is_call(s))
      named[s.name].push_back(s);
    else
      rest.push_back(s);
  for (auto& [name, v] : named) {
    std::sort(v.begin(), v.end(), [](const Step& a, const Step& b) { return a.start < b.start; });
    LinkExecutions(p, runs, &v);
    NumberByRun(&v);
    rest.insert(rest.end(), v.begin(), v.end());
  }
  *steps = std::move(rest);
}

}  // namespace

StepScans::StepScans(const model::TraceModel& m, const std::vector<std::string>& step_names)
    : m_(m), keys_(m.processes.size()) {
  for (size_t p = 0; p < m.processes.size(); ++p) {
    const model::Process& proc = m.processes[p];
    StepKeys& k = keys_[p];
    k.jax_call.assign(proc.names.size(), false);
    for (uint32_t i = 1; i < proc.names.size(); ++i) {
      const std::string& n = proc.names[i];
      if (std::find(step_names.begin(), step_names.end(), n) != step_names.end()) k.names.insert(i);
      k.jax_call[i] = n.starts_with("PjitFunction(") || n.starts_with("PmapFunction(");
    }
    k.step = model::KeyId(proc, keys::kStep);
    k.tf_function = model::KeyId(proc, keys::xstat::kTfFunctionCall);
    k.call_num = model::KeyId(proc, keys::xstat::kTensortraceCall);
    k.run_id = model::KeyId(proc, keys::xstat::kRunId);
    k.hlo_module = model::KeyId(proc, keys::xstat::kHloModule);
  }
  for (size_t i = 0; i < m.tracks.size(); ++i)
    if (m.tracks[i].kind != layout::TrackKind::kDevice) {
      size_t p = m.tracks[i].process;
      tracks.push_back({&keys_[p], p, &m.processes[p], {}, {}, {}, {}, {}, {}});
      track_index.push_back(i);
    }
}

std::vector<Step> StepScans::Finish() {
  size_t n = m_.processes.size();
  std::vector<std::vector<Step>> found(n), calls(n);
  std::vector<std::vector<XlaRun>> runs(n);
  std::vector<WarmupIntervals> warm(n);
  for (auto& t : tracks) {
    warm[t.process].Add(t.compile, t.input);
    JoinParts(&t.found_parts, &t.found);
    // A step inside an enclosing step of its thread is not a step of its own when both are
    // step markers (Keras 3's first multi_step_on_iterator holds the one_step_on_data marker
    // of its tf.function's tracing) or both have the same name (JAX's PjitFunction(f) event
    // inside another of the same name). Other nested steps (--step-name NAME inside a step
    // marker) are kept as asked.
    KeepOuter(
        t.found,
        [](const Step& e, const Step& s) { return (e.marker && s.marker) || e.name == s.name; },
        &found[t.process]);
    // Candidates for the repeated call: only calls inside no other call of their own thread.
    KeepOuter(
        t.calls, [](const Step&, const Step&) { return true; }, &calls[t.process]);
    runs[t.process].insert(runs[t.process].end(), t.runs.begin(), t.runs.end());
  }
  std::vector<Step> steps;
  for (size_t p = 0; p < n; ++p) {
    if (!found[p].empty()) {
      LinkNamedCalls(m_.processes[p], runs[p], &found[p]);
      if (steps.empty())
        steps = std::move(found[p]);
      else
        steps.insert(steps.end(), found[p].begin(), found[p].end());
      std::vector<Step>().swap(found[p]);
      std::vector<Step>().swap(calls[p]);
      continue;
    }
    // A process with no marked step: its loop's repeated call.
    if (calls[p].empty()) continue;
    std::vector<Step> repeated = RepeatedCall(m_.processes[p], calls[p], runs[p]);
    LinkExecutions(m_.processes[p], runs[p], &repeated);
    NumberByRun(&repeated);
    UntilTheNextCall(&repeated);
    steps.insert(steps.end(), repeated.begin(), repeated.end());
  }
  auto by_process_start = [](const Step& a, const Step& b) {
    return a.process < b.process || (a.process == b.process && a.start < b.start);
  };
  // Sorted already where each process's steps came in order (stable_sort's buffer is a copy).
  if (!std::is_sorted(steps.begin(), steps.end(), by_process_start))
    std::stable_sort(steps.begin(), steps.end(), by_process_start);
  std::map<size_t, int64_t> position;
  for (auto& s : steps) {
    int64_t i = position[s.process]++;
    if (s.number < 0) s.number = i;
  }
  MarkWarmup(std::move(warm), &steps);
  return steps;
}

const char* StepSourceName(StepSource s) {
  switch (s) {
    case StepSource::kMarker:
      return "marker";
    case StepSource::kStepName:
      return "step-name";
    case StepSource::kRepeatedCall:
      return "repeated-call";
  }
  return "?";
}

namespace {

// "; numbered by the program: none missing", or the numbers missing between its first and
// last step (in a gap between capture windows, or dropped by a filter), or "by position".
std::string Numbering(std::vector<int64_t> numbers, bool all_numbered, bool by_run) {
  if (!all_numbered) return "; numbered by position";
  std::sort(numbers.begin(), numbers.end());
  std::string missing;
  uint64_t count = 0;
  for (size_t i = 1; i < numbers.size(); ++i)
    for (int64_t n = numbers[i - 1] + 1; n < numbers[i]; ++n)
      if (++count <= 20) missing += (missing.empty() ? "" : ", ") + std::to_string(n);
  if (count > 20) missing += " and " + std::to_string(count - 20) + " more";
  return std::string(by_run ? "; numbered by the program's run ids, from the first step's: "
                            : "; numbered by the program: ") +
         (count ? std::to_string(count) + " missing (" + missing + ")" : "none missing");
}

}  // namespace

namespace {

// A marker that carries its number in its name ("ProfilerStep#12") as its kind
// ("ProfilerStep#N"), so that 30 steps are described as one name, not 30.
std::string NumberedAsN(std::string_view name) {
  size_t hash = name.rfind('#');
  if (hash == name.npos || hash + 1 == name.size()) return std::string(name);
  for (size_t i = hash + 1; i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return std::string(name);
  return std::string(name.substr(0, hash + 1)) + "N";
}

}  // namespace

std::vector<std::string> DescribeStepSources(const model::TraceModel& m,
                                             const std::vector<Step>& steps) {
  size_t n = m.processes.size();
  std::vector<std::string> out(n);
  std::vector<std::map<std::string, size_t>> names(n);
  std::vector<std::vector<int64_t>> numbers(n);
  std::vector<size_t> linked(n);
  std::vector<bool> all_numbered(n, true), by_run(n, true);
  std::vector<StepSource> source(n);
  for (const Step& s : steps) {
    numbers[s.process].push_back(s.number);
    all_numbered[s.process] = all_numbered[s.process] && s.numbered;
    by_run[s.process] = by_run[s.process] && s.by_run;
    linked[s.process] += s.exec_end > 0;
    source[s.process] = s.source;
    names[s.process][NumberedAsN(m.processes[s.process].Name(s.name))]++;
  }
  for (size_t p = 0; p < n; ++p) {
    size_t count = numbers[p].size();
    if (!count) continue;
    std::string list;
    for (const auto& [name, k] : names[p])
      list +=
          (list.empty() ? "" : ", ") + name + (names[p].size() > 1 ? " x" + std::to_string(k) : "");
    const char* how = source[p] == StepSource::kMarker     ? "framework step markers "
                      : source[p] == StepSource::kStepName ? "--step-name "
                                                           : "the loop's repeated call ";
    out[p] = std::to_string(count) + (count == 1 ? " step" : " steps") + " from " + how + list;
    if (linked[p])
      out[p] += ", each from the call through the XLA execution it caused (" +
                std::to_string(linked[p]) + " linked by run order)";
    out[p] += Numbering(numbers[p], all_numbered[p], by_run[p]);
  }
  return out;
}

std::vector<Step> FindSteps(const model::TraceModel& m, const std::vector<std::string>& step_names,
                            unsigned threads) {
  StepScans scans(m, step_names);
  ParallelFor(scans.tracks.size(), DefaultThreads(threads), [&](size_t i) {
    model::ScanTrack(m, m.tracks[scans.track_index[i]], nullptr, scans.tracks[i]);
  });
  return scans.Finish();
}

std::vector<bool> SelectSteps(const std::vector<Step>& steps, const std::optional<StepRange>& range,
                              uint64_t skip_warmup) {
  std::vector<bool> keep(steps.size());
  std::map<size_t, uint64_t> seen;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    keep[i] = seen[s.process]++ >= skip_warmup &&
              (!range || (s.number >= range->first && s.number <= range->last));
  }
  return keep;
}

std::vector<CaptureGap> CaptureGaps(const std::vector<Step>& steps, size_t process,
                                    std::vector<std::pair<uint64_t, uint64_t>> windows) {
  std::erase_if(windows, [](const auto& w) { return w.second <= w.first; });
  std::sort(windows.begin(), windows.end());
  std::vector<CaptureGap> gaps;
  for (size_t i = 1; i < windows.size(); ++i) {
    if (windows[i].first <= windows[i - 1].second) continue;
    CaptureGap g{windows[i - 1].second, windows[i].first, -1, -1, {}};
    uint64_t after_end = 0, before_start = UINT64_MAX;
    for (const Step& s : steps) {
      if (s.process != process) continue;
      if (s.end <= g.start && s.end >= after_end) {
        after_end = s.end;
        g.after = s.number;
      } else if (s.start >= g.end && s.start < before_start) {
        before_start = s.start;
        g.before = s.number;
      } else if (s.start < g.end && s.end > g.start) {
        g.cut.push_back(s.number);
      }
    }
    gaps.push_back(g);
  }
  return gaps;
}

std::vector<Window> StepParts(const Step& s) {
  // The call, and the execution it caused (other steps' calls may run between them).
  if (s.exec_end && s.exec_start > s.call_end)
    return {{s.start, s.call_end}, {s.exec_start, s.exec_end}};
  return {{s.start, s.end}};
}

void SortAndMerge(std::vector<Window>* v) {
  std::sort(v->begin(), v->end(),
            [](const Window& a, const Window& b) { return a.start < b.start; });
  std::vector<Window> merged;
  for (const Window& x : *v)
    if (!merged.empty() && x.start <= merged.back().end)
      merged.back().end = std::max(merged.back().end, x.end);
    else
      merged.push_back(x);
  *v = std::move(merged);
}

namespace {

// The parts of `w` outside `holes` (sorted and merged), appended to `out`.
void AddOutside(Window w, const std::vector<Window>& holes, std::vector<Window>* out) {
  for (const Window& h : holes) {
    if (h.end < w.start || h.start > w.end) continue;
    if (h.start > w.start) out->push_back({w.start, h.start - 1});
    if (h.end >= w.end) return;
    w.start = h.end + 1;
  }
  out->push_back(w);
}

}  // namespace

// A JAX step's call may run while an earlier step's execution runs on another thread (the
// call returns before its own execution starts, and the loop goes on). The time of an
// execution is its step's: a selected step's call keeps none of an unselected step's
// execution, so that the ops of that execution are not counted with the steps asked for.
Windows SelectWindows(const model::TraceModel& m, const std::vector<Step>& steps,
                      const std::optional<StepRange>& range, uint64_t skip_warmup) {
  if (steps.empty())
    throw Error("no steps found in " + m.path +
                ": it has no step events; name the annotation that marks a step with "
                "--step-name NAME");
  std::vector<bool> keep = SelectSteps(steps, range, skip_warmup);
  Windows others(m.processes.size());  // the executions of the steps left out
  for (size_t i = 0; i < steps.size(); ++i)
    if (!keep[i] && steps[i].exec_end)
      others[steps[i].process].push_back({steps[i].exec_start, steps[i].exec_end});
  for (auto& v : others) SortAndMerge(&v);
  Windows w(m.processes.size());
  size_t kept = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!keep[i]) continue;
    const Step& s = steps[i];
    std::vector<Window>& out = w[s.process];
    if (s.exec_end) {
      out.push_back({s.exec_start, s.exec_end});
      AddOutside({s.start, s.call_end}, others[s.process], &out);
    } else {
      out.push_back({s.start, s.end});
    }
    ++kept;
  }
  if (kept == 0) throw Error("no step matches the selection (--steps / --skip-warmup)");
  for (auto& v : w) {
    SortAndMerge(&v);
    if (v.empty()) v.push_back({1, 0});  // a process with no selected step keeps nothing
  }
  return w;
}

}  // namespace tt::model
