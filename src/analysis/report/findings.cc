#include "analysis/report/findings.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "analysis/report/rank_gaps.h"
#include "core/human.h"
#include "core/parallel.h"
#include "model/scan.h"

namespace tt::analysis {

using layout::Category;

namespace {

std::string Ms(uint64_t ns) { return HumanDuration(static_cast<double>(ns)); }

}  // namespace

void FactsTrackScan::OnSlice(const model::Slice& s) {
  if (w && !InWindows(*w, s.start)) return;
  switch (s.category) {
    case Category::kGpuKernel:
      f.kernels++;
      if (s.Duration() < kShortKernelNs) f.short_kernels++;
      break;
    case Category::kRuntimeApi: {
      // cudaMemcpy, cuMemcpyDtoH, ...: the host waits for the copy; the *Async ones do not.
      std::string_view n = proc->Name(s.name);
      if (n.find("Memcpy") != std::string_view::npos && n.find("Async") == std::string_view::npos) {
        f.sync_copies++;
        f.sync_copy_ns += s.Duration();
      }
      break;
    }
    case Category::kSync:
      f.syncs++;
      f.sync_ns += s.Duration();
      break;
    default:
      break;
  }
}

FactsScans::FactsScans(const model::TraceModel& m, Windows windows) : windows_(std::move(windows)) {
  for (const auto& t : m.tracks)
    tracks.push_back(
        {&m.processes[t.process], windows_.empty() ? nullptr : &windows_[t.process], {}});
}

TraceFacts FactsScans::Finish() const {
  TraceFacts f;
  f.in_steps = !windows_.empty();
  for (const auto& t : tracks) {
    f.kernels += t.f.kernels;
    f.short_kernels += t.f.short_kernels;
    f.sync_copies += t.f.sync_copies;
    f.sync_copy_ns += t.f.sync_copy_ns;
    f.syncs += t.f.syncs;
    f.sync_ns += t.f.sync_ns;
  }
  return f;
}

TraceFacts ScanFacts(const model::TraceModel& m, const Windows& windows, unsigned threads,
                     std::vector<Problem>* problems) {
  FactsScans scans(m, windows);
  size_t n = m.tracks.size();
  std::vector<std::vector<Problem>> probs(n);
  ParallelFor(n, DefaultThreads(threads),
              [&](size_t i) { model::ScanTrack(m, m.tracks[i], &probs[i], scans.tracks[i]); });
  for (auto& p : probs) problems->insert(problems->end(), p.begin(), p.end());
  return scans.Finish();
}

namespace {

double Share(uint64_t part, uint64_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

void Add(std::vector<Finding>* out, const char* id, std::string text) {
  out->push_back({id, std::move(text)});
}

// Where step time goes (device idle, copies, communication) and the slowest step.
void StepFindings(const FindingInputs& in, std::vector<Finding>* out) {
  auto add = [&](const char* id, std::string text) { Add(out, id, std::move(text)); };
  auto share = Share;
  // Step time: the shares of the device-side breakdown, over steps of processes with a device.
  uint64_t total = 0, dev_total = 0, host_bound = 0, waiting = 0, copies = 0, comm = 0;
  size_t dev_steps = 0;
  std::vector<uint64_t> durations;
  for (const auto& s : in.steps) {
    uint64_t d = s.Duration();
    durations.push_back(d);
    total += d;
    comm += s.communication;
    if (!s.has_device) continue;
    dev_steps++;
    dev_total += d;
    host_bound += s.device_idle_host_bound;
    waiting += s.device_idle_waiting;
    copies += s.copies;
  }
  if (dev_steps && share(host_bound, dev_total) >= 0.2)
    add("host_bound", "device idle " + Percent(share(host_bound, dev_total)) +
                          " of step time while the host computes (host-bound): " +
                          Ms(host_bound / dev_steps) + " of " + Ms(dev_total / dev_steps) +
                          " per step on average, over " + WithCommas(dev_steps) + " steps");
  if (dev_steps && share(waiting, dev_total) >= 0.2)
    add("device_waiting", "device idle " + Percent(share(waiting, dev_total)) +
                              " of step time while the host runs no op either (waiting on "
                              "input, synchronisation or communication): " +
                              Ms(waiting / dev_steps) + " per step on average");
  if (dev_steps && share(copies, dev_total) >= 0.15)
    add("copies", "memory copies take " + Percent(share(copies, dev_total)) +
                      " of step time: " + Ms(copies / dev_steps) + " per step on average");
  uint64_t input = 0;
  for (const auto& s : in.steps) input += s.input;
  if (!in.steps.empty() && share(input, total) >= 0.2)
    add("input_bound", "input-bound: " + Percent(share(input, total)) +
                           " of step time waits for input (the input pipeline's next element): " +
                           Ms(input / in.steps.size()) + " of " + Ms(total / in.steps.size()) +
                           " per step on average, over " + WithCommas(in.steps.size()) + " steps");
  if (!in.steps.empty() && share(comm, total) >= 0.15) {
    std::string waited;
    if (in.comm && !in.comm->ranks.empty()) {
      uint64_t wait = 0;
      for (const auto& t : in.comm->totals) wait += t.wait;
      waited = " (the ranks waited " + Ms(wait) + " in all for each other in collectives)";
    }
    add("communication", "communication takes " + Percent(share(comm, total)) + " of step time: " +
                             Ms(comm / in.steps.size()) + " per step on average" + waited);
  }
  if (durations.size() >= 3) {
    std::vector<uint64_t> d = durations;
    std::sort(d.begin(), d.end());
    uint64_t median = d[(d.size() - 1) / 2], slowest = d.back();
    if (median && slowest > median + median / 2) {
      size_t at = static_cast<size_t>(std::find(durations.begin(), durations.end(), slowest) -
                                      durations.begin());
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.1fx", static_cast<double>(slowest) / median);
      add("slow_step", "step " + std::to_string(in.steps[at].number) + " took " + Ms(slowest) +
                           ", " + ratio + " the median step (" + Ms(median) + ")");
    }
  }
}

// The op that dominates, the kernels, copies and synchronisations, memory, drops and links.
void TraceFindings(const FindingInputs& in, std::vector<Finding>* out) {
  auto add = [&](const char* id, std::string text) { Add(out, id, std::move(text)); };
  auto share = Share;
  if (in.ops.size() >= 2 && in.op_total_ns) {
    const Row* top = &in.ops[0];
    for (const auto& r : in.ops)
      if (r.self_ns > top->self_ns) top = &r;
    if (share(top->self_ns, in.op_total_ns) >= 0.3)
      add("top_op", top->name + " takes " + Percent(share(top->self_ns, in.op_total_ns)) +
                        " of the ops' self time (" + Ms(top->self_ns) + " over " +
                        WithCommas(top->incl.count()) +
                        (top->incl.count() == 1 ? " instance)" : " instances)"));
  }
  const TraceFacts& f = in.facts;
  if (f.kernels >= 10 && share(f.short_kernels, f.kernels) >= 0.2)
    add("short_kernels",
        WithCommas(f.short_kernels) + " kernels shorter than " + Ms(kShortKernelNs) + " (" +
            Percent(share(f.short_kernels, f.kernels)) + " of " + WithCommas(f.kernels) +
            " kernels): launch overhead may dominate; fuse ops (XLA) or batch more");
  const char* where = f.in_steps ? " inside steps" : "";
  if (f.sync_copies)
    add("sync_copies", WithCommas(f.sync_copies) + " synchronous copies" + where + " (" +
                           Ms(f.sync_copy_ns) +
                           " of host time blocked): the host waits for each copy to finish");
  if (f.syncs)
    add("syncs", WithCommas(f.syncs) + " device synchronisations" + where + " (" + Ms(f.sync_ns) +
                     " of host time waiting)");
  if (in.memory)
    for (const auto& a : in.memory->allocators) {
      if (a.peak <= 0) continue;
      add("memory_peak",
          "memory peak " + HumanBytes(a.peak) + " in allocator " + a.name + " reached during op " +
              (a.peak_op.empty() ? "(none running)" : a.peak_op) + " on thread " + a.peak_thread);
      break;  // allocators are sorted by peak: the highest one
    }
  if (in.dropped)
    add("dropped", WithCommas(in.dropped) +
                       " dropped events: the trace is incomplete and the numbers here undercount "
                       "(raise --buffer-size or --max-size when recording)");
  if (in.unlinked)
    add("unlinked", WithCommas(in.unlinked) + " of " + WithCommas(in.device_activities) +
                        " device activities are linked to no launch or op");
}

// "all-reduces", "all-gathers", "barriers": a collective's plural for people.
std::string Plural(const std::string& c) {
  static const std::map<std::string, std::string> kNames = {
      {"allreduce", "all-reduce"}, {"allgather", "all-gather"}, {"reducescatter", "reduce-scatter"},
      {"alltoall", "all-to-all"},  {"recv", "receive"},         {"sendrecv", "send/receive pair"}};
  auto it = kNames.find(c);
  return (it == kNames.end() ? c : it->second) + "s";
}

// The start of the job's first step on any rank (0: no rank has steps): collectives before it
// set the job up (the process group's first all-gather, a model's broadcast), and a rank that
// loads slower is last in them without slowing any step.
uint64_t FirstStepStart(const CommView& v) {
  uint64_t first = UINT64_MAX;
  for (const auto& r : v.ranks)
    if (!r.steps.empty()) first = std::min(first, r.steps.front().start);
  return first == UINT64_MAX ? 0 : first;
}

// The time rank `i` waited for other ranks in collectives that started within its steps.
uint64_t WaitInSteps(const CommView& v, size_t i) {
  uint64_t wait = 0;
  for (const auto& in : v.instances)
    for (const auto& a : in.arrivals)
      if (a.rank == i)
        for (const CommStep& s : v.ranks[i].steps)
          if (a.enter >= s.start && a.enter < s.end) wait += a.wait;
  return wait;
}

// The rank whose late arrivals made the others wait most, when that waiting is a real part of
// the communication time (at least 1 ms and a fifth of it, and most of all waiting); the
// collectives before the first step left out.
void StragglerFinding(const CommView& v, const std::vector<StepBreakdown>& steps,
                      std::vector<Finding>* out) {
  if (v.ranks.size() < 2) return;
  uint64_t first_step = FirstStepStart(v);
  uint64_t all_wait = 0, all_time = 0;  // in the instances from the first step on
  for (const auto& in : v.instances)
    if (in.first_enter >= first_step)
      for (const auto& a : in.arrivals) all_wait += a.wait, all_time += a.exit - a.enter;
  // Per straggler rank and collective: instances it was last in, and the waits they caused.
  std::map<size_t, std::map<std::string, std::pair<uint64_t, uint64_t>>> late;
  std::map<size_t, uint64_t> caused;
  std::map<std::string, uint64_t> matched;
  for (const auto& in : v.instances) {
    if (!in.matched || in.first_enter < first_step) continue;  // start-up: not the steps'
    matched[in.collective]++;
    if (in.skew == 0) continue;
    auto& [n, wait] = late[in.straggler][in.collective];
    n++;
    wait += in.wait;
    caused[in.straggler] += in.wait;
  }
  if (caused.empty()) return;
  auto top = std::max_element(caused.begin(), caused.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
  uint64_t wait = top->second;
  if (wait < 1000000 || Share(wait, all_time) < 0.2 || Share(wait, all_wait) < 0.5) return;
  const auto& by_coll = late[top->first];
  auto coll = std::max_element(by_coll.begin(), by_coll.end(), [](const auto& a, const auto& b) {
    return a.second.second < b.second.second;
  });
  const CommInstance* longest = nullptr;
  for (const auto& in : v.instances)
    if (in.matched && in.skew && in.straggler == top->first && in.first_enter >= first_step &&
        (!longest || in.wait > longest->wait))
      longest = &in;
  std::string text = v.ranks[top->first].Label() + " arrived last in " +
                     WithCommas(coll->second.first) + " of " + WithCommas(matched[coll->first]) +
                     " " + Plural(coll->first);
  uint64_t others = 0;
  for (const auto& [c, nw] : by_coll) others += c == coll->first ? 0 : nw.first;
  if (others)
    text += " (and " + WithCommas(others) +
            (others == 1 ? " other collective)" : " other collectives)");
  // Where its extra time went: gaps (no op ran) at a line of the program.
  std::string gaps = GapSentence(GapsByRank(steps), v.ranks[top->first].rank);
  if (!gaps.empty()) gaps = "; " + v.ranks[top->first].Label() + ": " + gaps;
  Add(out, "straggler",
      text + "; the other ranks waited " + Ms(wait) + " in all for it (" +
          Percent(Share(wait, all_wait)) + " of all waiting in collectives; the longest: " +
          Ms(longest->wait) + " in " + CommInstanceName(*longest) + ")" + gaps);
}

// Without steps: communication's share of the run on the rank that spent most in it.
void CommShareFinding(const FindingInputs& in, std::vector<Finding>* out) {
  const CommView& v = *in.comm;
  if (!in.steps.empty() || v.ranks.empty() || !in.run_ns) return;
  size_t top = 0;
  for (size_t i = 1; i < v.totals.size(); ++i)
    if (v.totals[i].time > v.totals[top].time) top = i;
  const CommRankTotals& t = v.totals[top];
  if (Share(t.time, in.run_ns) < 0.15) return;
  Add(out, "communication",
      "communication takes " + Percent(Share(t.time, in.run_ns)) + " of the run on " +
          v.ranks[top].Label() + ": " + Ms(t.time) + " in " + WithCommas(t.calls) +
          " collectives, of which " + Ms(t.wait) + " waiting for other ranks");
}

// How the job's framework fuses small collectives: XLA's (JAX), else PyTorch DDP's buckets,
// TensorFlow's packs, by where the ranks' collectives came from.
std::string FuseAdvice(const CommView& v) {
  bool xla = false, tf = false;
  for (const auto& r : v.ranks) {
    xla |= r.source == "xla";
    for (const auto& e : r.events) tf |= e.name.find("Collective") != std::string::npos;
  }
  if (xla)
    return "reduce fewer, larger arrays (one psum over the whole gradient tree, not one per "
           "array; XLA's all-reduce combiner)";
  if (tf) return "pack small tensors (tf.distribute's CommunicationOptions(bytes_per_pack=...))";
  return "bucket or fuse small tensors (DDP's bucket_cap_mb, gradient bucketing)";
}

// How the job's framework starts collectives while compute continues.
std::string OverlapAdvice(const CommView& v) {
  for (const auto& r : v.ranks)
    if (r.source == "xla")
      return "let XLA overlap them with compute (its asynchronous collectives and "
             "latency-hiding scheduler), or split the step so that reductions start earlier";
  return "start collectives while compute continues (DDP's gradient buckets, asynchronous "
         "collectives)";
}

// Most collectives move little data: each pays a latency that bandwidth cannot hide.
void SmallMessagesFinding(const CommView& v, std::vector<Finding>* out) {
  constexpr int64_t kSmall = 64 * 1024;
  uint64_t sized = 0, small = 0;
  int64_t small_bytes = 0;
  for (const auto& in : v.instances) {
    if (in.bytes <= 0) continue;
    sized++;
    if (in.bytes < kSmall) small++, small_bytes += in.bytes;
  }
  if (sized < 10 || Share(small, sized) < 0.5) return;
  Add(out, "small_messages",
      WithCommas(small) + " of " + WithCommas(sized) + " collectives with a known size (" +
          Percent(Share(small, sized)) + ") move less than " + HumanBytes(kSmall) + " each (" +
          HumanBytes(small_bytes / static_cast<int64_t>(small)) +
          " on average): latency dominates them; " + FuseAdvice(v));
}

// The rank whose communication most often ran with no compute beside it (comm_overlap.cc):
// at least 1 ms, half its communication, and a tenth of its step time (of the run, without
// steps).
void ExposedCommFinding(const FindingInputs& in, std::vector<Finding>* out) {
  const CommView& v = *in.comm;
  size_t top = SIZE_MAX;
  for (size_t i = 0; i < v.totals.size(); ++i)
    if (v.totals[i].exposed >= 0 &&
        (top == SIZE_MAX || v.totals[i].exposed > v.totals[top].exposed))
      top = i;
  if (top == SIZE_MAX) return;
  const CommRank& r = v.ranks[top];
  uint64_t comm = 0, exposed = 0, time = 0;
  for (const CommStep& s : r.steps) comm += s.comm, exposed += s.exposed, time += s.end - s.start;
  uint64_t waited = WaitInSteps(v, top);
  if (r.steps.empty()) {
    comm = static_cast<uint64_t>(v.totals[top].comm);
    exposed = static_cast<uint64_t>(v.totals[top].exposed);
    time = in.run_ns;
    waited = v.totals[top].wait;
  }
  // Waiting for a slower rank is that rank's time (the straggler finding), not the transfer's.
  exposed -= std::min(exposed, waited);
  if (exposed < 1000000 || Share(exposed, comm) < 0.5 || Share(exposed, time) < 0.1) return;
  std::string where = r.steps.empty()
                          ? "over the run"
                          : Ms(exposed / r.steps.size()) + " per step on average over " +
                                WithCommas(r.steps.size()) + " steps";
  Add(out, "comm_not_overlapped",
      "communication not overlapped: on " + r.Label() + ", " + Ms(exposed) + " of its " + Ms(comm) +
          " in collectives (" + Percent(Share(exposed, comm)) +
          ") ran with no compute on its other threads or streams" +
          (waited ? ", waiting for other ranks (" + Ms(waited) + ") apart" : std::string()) + ", " +
          where + " (" + Percent(Share(exposed, time)) + " of its time); " + OverlapAdvice(v));
}

// A rank that ran no collective, or died before the others' last: the job lost it.
void MissingRankFinding(const CommView& v, std::vector<Finding>* out) {
  if (v.missing.empty()) return;
  std::string more = v.missing.size() > 1
                         ? " (and " + std::to_string(v.missing.size() - 1) + " more rank(s))"
                         : "";
  std::string text = v.missing[0];
  text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  Add(out, "missing_rank", text + more + ".");
}

}  // namespace

std::vector<Finding> Findings(const FindingInputs& in) {
  std::vector<Finding> out;
  StepFindings(in, &out);
  if (in.comm) {
    MissingRankFinding(*in.comm, &out);
    CommShareFinding(in, &out);
    StragglerFinding(*in.comm, in.steps, &out);
    SmallMessagesFinding(*in.comm, &out);
    ExposedCommFinding(in, &out);
  }
  TraceFindings(in, &out);
  return out;
}

}  // namespace tt::analysis
