// `tensortrace comm`: every collective matched across ranks (analysis/comm/comm.h): per collective,
// per rank, the instances that waited longest, and what could not be matched.
#include "analysis/comm/comm.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/comm/comm_missing.h"
#include "analysis/comm/p2p.h"
#include "analysis/comm/p2p_aligned.h"
#include "analysis/job/job_clock.h"
#include "analysis/report/rank_gaps.h"
#include "analysis/views/stats.h"
#include "cli/args.h"
#include "cli/comm_p2p.h"
#include "cli/commands.h"
#include "cli/json_out.h"
#include "cli/option_groups.h"
#include "cli/pids.h"
#include "core/csv.h"
#include "core/human.h"
#include "model/model.h"

namespace tt::cli {

namespace {

using analysis::CommInstance;
using analysis::CommView;
using analysis::HumanBytes;
using analysis::HumanDuration;
using analysis::P2pView;
using nlohmann::json;

const char kCommHelp[] =
    R"(usage: tensortrace comm DIR... [--json | --csv [--section S]] [--top N] [--by wait|duration]
                           [--pid P]...

The collectives of the job in DIR (several directories: one job, e.g. one recording per rank),
matched across ranks: each process that ran collectives is a rank (its launcher's rank where
the trace holds one). The k-th collective of a kind in a process group on one rank is the k-th
on every rank (or the one with the same instance key, where the framework gives one). Per
instance: each rank's entry and exit, the arrival skew (first to last rank entering), each
rank's wait (from its entry until the last rank entered), the straggler (the last to enter),
the duration (from the last entry to the last exit), the bytes and the algorithm and bus
bandwidth as nccl-tests define them. Shows per collective the calls on each rank, bytes, time
and wait; per rank its communication time, wait and how often it was the straggler; the top
instances; and notes on what could not be matched (exit 0 all the same). Several recordings
are put on the first rank's clock: by their recorded CLOCK_REALTIME offsets (other hosts),
refined by causality (no rank leaves an all-reduce, all-gather or barrier before every rank
entered it); the offset applied to each recording and its uncertainty are shown. Per rank
and per step: its communication time, the part compute on its other threads and streams
overlapped, and the part exposed (nothing hid it), with the steps most exposed. Per rank, its
steps' gaps (the step view's host idle: no op on its host threads) and the Python line the
sampler saw most in them; for the straggler, how much longer its gaps are than the others'.

Point-to-point: the TCP connections that `record --sources ...,net` saw (send/receive calls
with their byte offsets), each direction with the process that sent and the one that received
(across recordings too), every receive paired with the sends whose bytes it carries: bytes
sent, received and paired, calls, messages (send calls whose every byte was received), their
latency (from the send's start to the end of the receive that took its last byte) and the
bandwidth (paired bytes over the time some message was in flight). Bytes without their other
side get a note naming the connection. TensorFlow's tensors moved between two workers of one
graph (tf.device on another task, ParameterServerStrategy): each _Send paired with the _Recv
that took it by rendezvous key (send device, receive device, tensor) and order, with its bytes
(the received tensor's allocation), latency (from the send's start until the receive was
done) and the receiving side's wait.

  --by K            order the top instances by `wait` (the ranks' waits added; default) or
                    `duration`
)";

const OutputSpec kOutput{
    .schema = "docs/comm-json.md; every instance",
    .csv_rows = "",
    .sections = {{"instances", "one row per instance and rank (columns: docs/comm-json.md)"},
                 {"steps", "one row per rank and step"},
                 {"p2p", "one row per socket direction"},
                 {"rendezvous", "one row per TensorFlow transfer"}},
    .top_rows = "instances",
    .top_default = 10,
    .top_min = 1};

const SelectionSpec kSelection{.pid = true};

struct CommArgs {
  std::vector<std::string> dirs;
  SelectionOptions sel;
  bool json = false, csv = false, by_duration = false;
  size_t top = 10;
  std::string section = "instances";
};

bool ParseCommArgs(const std::vector<std::string>& argv, CommArgs* o) {
  ArgReader a("comm", argv);
  std::string v;
  OutputOptions out{kOutput};
  while (!a.Done()) {
    if (ParseOutputOption(a, kOutput, &out)) {
      if (!out.help) continue;
      std::cout << kCommHelp << OutputHelp(kOutput) << SelectionHelp(kSelection);
      return false;
    } else if (ParseSelectionOption(a, kSelection, &o->sel)) {
    } else if (a.Option("--by", &v)) {
      if (v != "wait" && v != "duration") throw Error("--by: '" + v + "' is not wait or duration");
      o->by_duration = v == "duration";
    } else if (!a.Peek().empty() && a.Peek()[0] != '-') {
      o->dirs.push_back(a.TakePositional());
    } else {
      a.Unknown();
    }
  }
  if (o->dirs.empty()) throw Error("no trace directory given (usage: tensortrace comm DIR...)");
  CheckOutput(kOutput, out);
  o->json = out.json;
  o->csv = out.csv;
  o->top = out.top;
  o->section = out.section;
  std::set<std::string> seen;
  for (const auto& d : o->dirs)
    if (!seen.insert(d).second) throw Error(d + ": given twice");
  return true;
}

// Bytes per second as nccl-tests print it (GB/s, 1e9); null when unknown.
json Gbs(double bps) { return bps >= 0 ? json(bps / 1e9) : json(nullptr); }
template <typename T>
json Known(T v) {
  return v >= 0 ? json(v) : json(nullptr);
}

json InstanceJson(const CommInstance& in) {
  json arrivals = json::array();
  for (const auto& a : in.arrivals)
    arrivals.push_back(
        {{"rank_index", a.rank}, {"enter_ns", a.enter}, {"exit_ns", a.exit}, {"wait_ns", a.wait}});
  return {{"collective", in.collective},
          {"group", in.group},
          {"seq", in.seq},
          {"key", Known(in.key)},
          {"src_rank", Known(in.src)},
          {"dst_rank", Known(in.dst)},
          {"bytes", Known(in.bytes)},
          {"nranks", in.nranks},
          {"algorithm", in.algorithm.empty() ? json(nullptr) : json(in.algorithm)},
          {"protocol", in.protocol.empty() ? json(nullptr) : json(in.protocol)},
          {"matched", in.matched},
          {"bytes_differ", in.bytes_differ},
          {"first_enter_ns", in.first_enter},
          {"last_enter_ns", in.last_enter},
          {"last_exit_ns", in.last_exit},
          {"skew_ns", in.skew},
          {"duration_ns", in.duration},
          {"wait_ns", in.wait},
          {"straggler_index", in.straggler},
          {"algbw_gbs", Gbs(in.algbw)},
          {"busbw_gbs", Gbs(in.busbw)},
          {"arrivals", arrivals}};
}

json ClocksJson(const CommView& v) {
  json out = json::array();
  for (const auto& c : v.clocks) {
    json ranks = json::array();
    for (size_t r : c.ranks) ranks.push_back(r);
    out.push_back(
        {{"trace", c.trace},
         {"host", c.host},
         {"rank_indices", ranks},
         {"method", c.method},
         {"recorded_offset_ns", c.recorded_ns},
         {"offset_ns", c.offset_ns},
         {"uncertainty_ns", Known(c.uncertainty_ns)},
         {"low_ns", c.bounded && c.low_ns != INT64_MIN ? json(c.low_ns) : json(nullptr)},
         {"high_ns", c.bounded && c.high_ns != INT64_MAX ? json(c.high_ns) : json(nullptr)},
         {"constraints", c.constraints}});
  }
  return out;
}

json StepsJson(const analysis::CommRank& r) {
  json steps = json::array();
  for (const auto& s : r.steps)
    steps.push_back({{"step", s.number},
                     {"start_ns", s.start},
                     {"end_ns", s.end},
                     {"calls", s.calls},
                     {"comm_ns", s.comm},
                     {"overlapped_ns", s.overlapped},
                     {"exposed_ns", s.exposed}});
  return steps;
}

json DirectionJson(const analysis::P2pDirection& d) {
  return {{"from", d.from},
          {"to", d.to},
          {"sender_index", Known(d.sender)},
          {"receiver_index", Known(d.receiver)},
          {"sent_bytes", d.sent},
          {"received_bytes", d.received},
          {"matched_bytes", d.matched},
          {"sends", d.sends},
          {"receives", d.receives},
          {"messages", d.messages},
          {"latency_min_ns", d.messages ? json(d.latency_min) : json(nullptr)},
          {"latency_p50_ns", d.messages ? json(d.latency_p50) : json(nullptr)},
          {"latency_mean_ns", d.messages ? json(d.latency_mean) : json(nullptr)},
          {"latency_max_ns", d.messages ? json(d.latency_max) : json(nullptr)},
          {"busy_ns", d.busy_ns},
          {"bandwidth_gbs", Gbs(d.bandwidth)},
          {"causality_violations", d.causality},
          {"overlapping_calls", d.overlaps}};
}

json P2pJson(const P2pView& p) {
  json procs = json::array(), conns = json::array();
  for (const auto& sp : p.processes)
    procs.push_back(
        {{"pid", sp.pid}, {"rank", Known(sp.rank)}, {"host", sp.host}, {"trace", sp.trace}});
  for (const auto& c : p.connections) {
    json dirs = json::array();
    for (const auto& d : c.dirs) dirs.push_back(DirectionJson(d));
    conns.push_back({{"a", c.a}, {"b", c.b}, {"directions", dirs}});
  }
  json clocks = json::array();
  for (const auto& c : p.clocks)
    clocks.push_back({{"trace", c.trace},
                      {"method", c.method},
                      {"recorded_offset_ns", c.recorded_ns},
                      {"offset_ns", c.offset_ns},
                      {"low_ns", c.low_ns != INT64_MIN ? json(c.low_ns) : json(nullptr)},
                      {"high_ns", c.high_ns != INT64_MAX ? json(c.high_ns) : json(nullptr)},
                      {"pairs", c.pairs}});
  json tf = RendezvousJson(p);
  return {{"matched_bytes", p.matched},
          {"unmatched_bytes", p.unmatched},
          {"processes", procs},
          {"connections", conns},
          {"clocks", clocks},
          {"rendezvous", tf["rendezvous"]},
          {"transfers", tf["transfers"]}};
}

// A rank's gaps (nullptr: it has no steps, or no rank).
const analysis::RankGaps* GapsOf(const std::vector<analysis::RankGaps>& gaps, int64_t rank) {
  for (const auto& g : gaps)
    if (g.rank == rank && rank >= 0) return &g;
  return nullptr;
}

json ViewJson(const CommView& v, const P2pView& p, const std::vector<std::string>& dirs,
              const std::vector<analysis::RankGaps>& gaps) {
  json ranks = json::array(), colls = json::array(), inst = json::array();
  for (size_t i = 0; i < v.ranks.size(); ++i) {
    const auto& r = v.ranks[i];
    const auto& t = v.totals[i];
    ranks.push_back({{"rank", Known(r.rank)},
                     {"pid", r.pid},
                     {"device", Known(r.device)},
                     {"host", r.host},
                     {"trace", r.trace},
                     {"source", r.source},
                     {"calls", t.calls},
                     {"bytes", t.bytes},
                     {"time_ns", t.time},
                     {"wait_ns", t.wait},
                     {"straggler", t.straggler},
                     {"comm_ns", Known(t.comm)},
                     {"overlapped_ns", Known(t.overlapped)},
                     {"exposed_ns", Known(t.exposed)},
                     {"steps", StepsJson(r)}});
    const analysis::RankGaps* g = GapsOf(gaps, r.rank);
    ranks.back()["gaps_per_step_ns"] = g ? json(g->per_step) : json(nullptr);
    ranks.back()["gap_line"] = g && !g->line.empty() ? json(g->line) : json(nullptr);
    ranks.back()["gap_line_ns"] = g && !g->line.empty() ? json(g->line_ns) : json(nullptr);
  }
  for (const auto& c : v.collectives) {
    json calls = json::array();
    for (size_t i = 0; i < v.ranks.size(); ++i)
      calls.push_back(c.calls.count(i) ? c.calls.at(i) : 0);
    colls.push_back({{"collective", c.collective},
                     {"instances", c.instances},
                     {"unmatched", c.unmatched},
                     {"calls", calls},
                     {"bytes", c.bytes},
                     {"time_ns", c.time},
                     {"wait_ns", c.wait},
                     {"busbw_gbs", Gbs(c.busbw)}});
  }
  for (const auto& in : v.instances) inst.push_back(InstanceJson(in));
  return {{"schema", "tensortrace.comm/1"},
          {"traces", dirs},
          {"matched", v.matched},
          {"unmatched", v.unmatched},
          {"ranks", ranks},
          {"collectives", colls},
          {"instances", inst},
          {"clocks", ClocksJson(v)},
          {"p2p", P2pJson(p)},
          {"missing_ranks", v.missing},
          {"notes", v.notes}};
}

void PrintCsv(const CommView& v) {
  std::printf(
      "collective,group,seq,key,bytes,nranks,matched,rank,pid,enter_ns,exit_ns,wait_ns,"
      "straggler,skew_ns,duration_ns,algbw_gbs,busbw_gbs\n");
  auto num = [](double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.9g", x / 1e9);
    return x >= 0 ? std::string(b) : std::string();
  };
  for (const auto& in : v.instances)
    for (const auto& a : in.arrivals) {
      const auto& r = v.ranks[a.rank];
      std::printf(
          "%s,%s,%llu,%s,%s,%lld,%d,%s,%lld,%llu,%llu,%llu,%d,%llu,%llu,%s,%s\n",
          CsvQuote(in.collective + analysis::CommDirection(in)).c_str(), CsvQuote(in.group).c_str(),
          static_cast<unsigned long long>(in.seq),
          in.key >= 0 ? std::to_string(in.key).c_str() : "",
          in.bytes >= 0 ? std::to_string(in.bytes).c_str() : "", static_cast<long long>(in.nranks),
          in.matched ? 1 : 0, r.rank >= 0 ? std::to_string(r.rank).c_str() : "",
          static_cast<long long>(r.pid), static_cast<unsigned long long>(a.enter),
          static_cast<unsigned long long>(a.exit), static_cast<unsigned long long>(a.wait),
          in.straggler == a.rank && in.skew > 0 ? 1 : 0, static_cast<unsigned long long>(in.skew),
          static_cast<unsigned long long>(in.duration), num(in.algbw).c_str(),
          num(in.busbw).c_str());
    }
}

std::string Bw(double bps) {
  if (bps < 0) return "-";
  char b[32];
  if (bps >= 1e9)
    std::snprintf(b, sizeof b, "%.2f GB/s", bps / 1e9);
  else
    std::snprintf(b, sizeof b, "%.2f MB/s", bps / 1e6);
  return b;
}

// A collective's calls per rank in one cell: "N each" where every rank made as many, the counts
// for a few ranks, else their range and median; the ranks below the median go to `below`.
std::string CallsCell(const CommView& v, const analysis::CommCollective& c,
                      std::vector<std::string>* below) {
  std::vector<uint64_t> n;
  for (size_t i = 0; i < v.ranks.size(); ++i) n.push_back(c.calls.count(i) ? c.calls.at(i) : 0);
  if (n.empty()) return "-";
  std::vector<uint64_t> sorted = n;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() == sorted.back()) return std::to_string(n[0]) + " each";
  std::string cell;
  for (size_t i = 0; i < n.size() && n.size() <= 4; ++i)
    cell += (i ? "," : "") + std::to_string(n[i]);
  uint64_t median = sorted[sorted.size() / 2];
  for (size_t i = 0; i < n.size(); ++i)
    if (n[i] < median)
      below->push_back(c.collective + ": " + v.ranks[i].Label() + " made " + std::to_string(n[i]) +
                       " call(s), the median rank " + std::to_string(median));
  if (!cell.empty()) return cell;
  return std::to_string(sorted.front()) + ".." + std::to_string(sorted.back()) + " (med " +
         std::to_string(median) + ")";
}

void PrintCollectives(const CommView& v) {
  std::printf("per collective:\n  %-14s %9s %16s %12s %12s %12s %14s\n", "collective", "instances",
              "calls per rank", "bytes", "time", "wait", "bus bw");
  std::vector<std::string> below;
  for (const auto& c : v.collectives) {
    std::string calls = CallsCell(v, c, &below);
    std::printf("  %-14s %9llu %16s %12s %12s %12s %14s\n", TerminalSafe(c.collective).c_str(),
                static_cast<unsigned long long>(c.instances), calls.c_str(),
                HumanBytes(c.bytes).c_str(), HumanDuration(static_cast<double>(c.time)).c_str(),
                HumanDuration(static_cast<double>(c.wait)).c_str(), Bw(c.busbw).c_str());
  }
  for (size_t i = 0; i < below.size() && i < 8; ++i)
    std::printf("  fewer calls: %s\n", TerminalSafe(below[i]).c_str());
  if (below.size() > 8)
    std::printf("  fewer calls: %zu more (--json lists each)\n", below.size() - 8);
}

void PrintRanks(const CommView& v) {
  std::printf("per rank:\n  %-12s %8s %-10s %7s %12s %12s %12s %9s\n", "rank", "pid", "source",
              "calls", "bytes", "comm time", "wait", "straggler");
  for (size_t i = 0; i < v.ranks.size(); ++i) {
    const auto& r = v.ranks[i];
    const auto& t = v.totals[i];
    std::printf("  %-12s %8lld %-10s %7llu %12s %12s %12s %9llu\n", r.Label().c_str(),
                static_cast<long long>(r.pid), r.source.c_str(),
                static_cast<unsigned long long>(t.calls), HumanBytes(t.bytes).c_str(),
                HumanDuration(static_cast<double>(t.time)).c_str(),
                HumanDuration(static_cast<double>(t.wait)).c_str(),
                static_cast<unsigned long long>(t.straggler));
  }
}

void PrintTop(const CommView& v, size_t top, bool by_duration) {
  std::vector<const CommInstance*> order;
  for (const auto& in : v.instances) order.push_back(&in);
  auto key = [&](const CommInstance* in) { return by_duration ? in->duration : in->wait; };
  std::stable_sort(order.begin(), order.end(),
                   [&](const auto* a, const auto* b) { return key(a) > key(b); });
  if (order.size() > top) order.resize(top);
  // NCCL's algorithm/protocol, in a last column where any instance gives one (the nccl source).
  bool algo = false;
  for (const CommInstance* in : order) algo |= !in->algorithm.empty();
  std::printf("top %zu instances by %s:\n  %-22s %10s %10s %10s %10s %-10s %12s%s\n", order.size(),
              by_duration ? "duration" : "wait", "instance", "bytes", "skew", "duration", "wait",
              "straggler", "bus bw", algo ? "  algorithm" : "");
  for (const CommInstance* in : order) {
    std::string name =
        in->collective + analysis::CommDirection(*in) +
        (in->key >= 0 ? " key " + std::to_string(in->key) : " #" + std::to_string(in->seq)) +
        (in->group.empty() ? "" : " g" + in->group) + (in->matched ? "" : " (!)");
    std::string a = !algo ? ""
                          : "  " + (in->algorithm.empty() ? "-" : in->algorithm) +
                                (in->protocol.empty() ? "" : "/" + in->protocol);
    std::printf("  %-22s %10s %10s %10s %10s %-10s %12s%s\n", TerminalSafe(name).c_str(),
                in->bytes >= 0 ? HumanBytes(in->bytes).c_str() : "-",
                HumanDuration(static_cast<double>(in->skew)).c_str(),
                HumanDuration(static_cast<double>(in->duration)).c_str(),
                HumanDuration(static_cast<double>(in->wait)).c_str(),
                in->skew > 0 ? v.ranks[in->straggler].Label().c_str() : "-", Bw(in->busbw).c_str(),
                TerminalSafe(a).c_str());
  }
}

// Per rank, its communication per step and how much of it compute overlapped; then the steps
// that waited longest on communication nothing overlapped.
void PrintSteps(const CommView& v, size_t top) {
  auto dur = [](uint64_t ns) { return HumanDuration(static_cast<double>(ns)); };
  std::vector<std::pair<size_t, const analysis::CommStep*>> order;
  std::printf(
      "\ncommunication and compute (overlapped: compute ran on other threads or streams):\n");
  std::printf("  %-12s %6s %14s %14s %14s %10s\n", "rank", "steps", "comm", "overlapped", "exposed",
              "overlap");
  for (size_t i = 0; i < v.ranks.size(); ++i) {
    const auto& t = v.totals[i];
    if (t.comm < 0) continue;
    auto comm = static_cast<uint64_t>(t.comm), over = static_cast<uint64_t>(t.overlapped);
    std::printf("  %-12s %6zu %14s %14s %14s %9.1f%%\n", v.ranks[i].Label().c_str(),
                v.ranks[i].steps.size(), dur(comm).c_str(), dur(over).c_str(),
                dur(static_cast<uint64_t>(t.exposed)).c_str(),
                comm ? 100.0 * static_cast<double>(over) / static_cast<double>(comm) : 0.0);
    for (const auto& st : v.ranks[i].steps) order.push_back({i, &st});
  }
  if (order.empty()) return;
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->exposed > b.second->exposed;
  });
  if (order.size() > top) order.resize(top);
  std::printf("\ntop %zu steps by exposed communication:\n  %-12s %8s %12s %7s %12s %12s %12s\n",
              order.size(), "rank", "step", "step time", "calls", "comm", "overlapped", "exposed");
  for (const auto& [i, st] : order)
    std::printf("  %-12s %8lld %12s %7llu %12s %12s %12s\n", v.ranks[i].Label().c_str(),
                static_cast<long long>(st->number), dur(st->end - st->start).c_str(),
                static_cast<unsigned long long>(st->calls), dur(st->comm).c_str(),
                dur(st->overlapped).c_str(), dur(st->exposed).c_str());
}

// Per rank, its steps' gaps (host idle) and the Python line the sampler saw most in them; then
// what the straggler (the rank last in most instances) did while the others waited.
void PrintGaps(const CommView& v, const std::vector<analysis::RankGaps>& gaps) {
  if (gaps.empty()) return;
  std::printf(
      "\ngaps in steps (no op on the rank's host threads), per step, and the Python line the "
      "sampler saw most in them:\n  %-12s %6s %12s  %s\n",
      "rank", "steps", "gaps", "line (share of the gaps)");
  for (const auto& g : gaps) {
    std::string line = g.line.empty() ? "-" : g.line;
    if (g.sampled_ns)
      line += " (" + analysis::Percent(static_cast<double>(g.line_ns) / g.sampled_ns) + ")";
    std::printf("  %-12s %6llu %12s  %s\n", ("rank " + std::to_string(g.rank)).c_str(),
                static_cast<unsigned long long>(g.steps),
                HumanDuration(static_cast<double>(g.per_step)).c_str(), TerminalSafe(line).c_str());
  }
  size_t top = 0;
  for (size_t i = 1; i < v.totals.size(); ++i)
    if (v.totals[i].straggler > v.totals[top].straggler) top = i;
  if (v.totals.empty() || !v.totals[top].straggler) return;
  std::string why = analysis::GapSentence(gaps, v.ranks[top].rank);
  if (!why.empty())
    std::printf("  straggler %s (last in %llu instances): %s\n", v.ranks[top].Label().c_str(),
                static_cast<unsigned long long>(v.totals[top].straggler),
                TerminalSafe(why).c_str());
}

// The clocks, where there are several recordings to align.
void PrintClocks(const CommView& v) {
  if (v.clocks.size() < 2) return;
  std::printf("\nclocks (the offset added to each recording's times, against the first rank's):\n");
  std::printf("  %-38s %-12s %14s %14s %14s\n", "recording", "method", "offset", "recorded",
              "uncertainty");
  for (const auto& c : v.clocks) {
    auto ms = [](int64_t ns) {
      char b[32];
      std::snprintf(b, sizeof b, "%.3f ms", static_cast<double>(ns) / 1e6);
      return std::string(b);
    };
    std::printf("  %-38s %-12s %14s %14s %14s\n", TerminalSafe(c.trace).c_str(), c.method.c_str(),
                ms(c.offset_ns).c_str(), ms(c.recorded_ns).c_str(),
                c.uncertainty_ns >= 0 ? ("+-" + ms(c.uncertainty_ns)).c_str() : "unknown");
  }
}

// The socket connections, one line per direction.
void PrintP2p(const P2pView& p) {
  if (p.connections.empty()) return;
  std::printf("\npoint-to-point (sockets): %s paired, %s unpaired\n",
              HumanBytes(static_cast<int64_t>(p.matched)).c_str(),
              HumanBytes(static_cast<int64_t>(p.unmatched)).c_str());
  std::printf("  %-47s %-20s %-20s %10s %10s %7s %7s %10s %10s %12s\n", "direction", "sender",
              "receiver", "sent", "paired", "sends", "msgs", "lat p50", "lat max", "bandwidth");
  for (const auto& c : p.connections)
    for (const auto& d : c.dirs) {
      std::string name = d.from + " -> " + d.to;
      auto lat = [&](uint64_t ns) {
        return d.messages ? HumanDuration(static_cast<double>(ns)) : std::string("-");
      };
      std::printf("  %-47s %-20s %-20s %10s %10s %7llu %7llu %10s %10s %12s\n",
                  TerminalSafe(name).c_str(), p.Who(d.sender, "-").c_str(),
                  p.Who(d.receiver, "-").c_str(), HumanBytes(static_cast<int64_t>(d.sent)).c_str(),
                  HumanBytes(static_cast<int64_t>(d.matched)).c_str(),
                  static_cast<unsigned long long>(d.sends),
                  static_cast<unsigned long long>(d.messages), lat(d.latency_p50).c_str(),
                  lat(d.latency_max).c_str(), Bw(d.bandwidth).c_str());
    }
  if (p.clocks.empty()) return;
  std::printf("  clocks by socket pairs (offset added to each recording's times):\n");
  for (const auto& c : p.clocks)
    std::printf("    %-45s %-12s %14.3f ms  (recorded %.3f ms, %llu pairs)\n",
                TerminalSafe(c.trace).c_str(), c.method.c_str(),
                static_cast<double>(c.offset_ns) / 1e6, static_cast<double>(c.recorded_ns) / 1e6,
                static_cast<unsigned long long>(c.pairs));
}

void PrintText(const CommView& v, const P2pView& p, const CommArgs& o,
               const std::vector<analysis::RankGaps>& gaps) {
  std::printf("%zu rank(s), %llu collective instance(s): %llu matched, %llu unmatched\n",
              v.ranks.size(), static_cast<unsigned long long>(v.matched + v.unmatched),
              static_cast<unsigned long long>(v.matched),
              static_cast<unsigned long long>(v.unmatched));
  if (!v.instances.empty()) {
    std::printf("\n");
    PrintCollectives(v);
    std::printf("\n");
    PrintRanks(v);
    std::printf("\n");
    PrintTop(v, o.top, o.by_duration);
    PrintSteps(v, o.top);
    PrintGaps(v, gaps);
    PrintClocks(v);
  }
  PrintP2p(p);
  PrintRendezvous(p);
  std::printf("\n");
}

// The socket connections and TensorFlow's rendezvous pairs of the aligned job, their clocks
// those the job's alignment applied.
P2pView PointToPoint(const model::TraceModel& m) {
  P2pView p = analysis::AlignedPointToPoint(m);
  analysis::ShowAppliedClocks(m, &p);
  return p;
}

// The ranks' gaps in their steps, from the step view (none where no rank has steps).
std::vector<analysis::RankGaps> Gaps(const model::TraceModel& m, const CommView& v,
                                     std::vector<Problem>* problems) {
  bool steps = std::any_of(v.ranks.begin(), v.ranks.end(),
                           [](const analysis::CommRank& r) { return !r.steps.empty(); });
  if (!steps) return {};
  analysis::Options o;
  o.view = "step";
  return analysis::GapsByRank(analysis::Compute(m, o, problems).steps);
}

}  // namespace

int Comm(const std::vector<std::string>& argv) {
  CommArgs o;
  if (!ParseCommArgs(argv, &o)) return 0;
  // The job on its clock (model/job/clock.h): collectives and pairs read aligned times, and
  // the clocks shown are the ones every other command applies.
  model::TraceModel m = LoadJob(o.dirs, o.sel.Chosen(), nullptr);
  std::vector<Problem> problems = m.problems;
  CommView v = analysis::MatchCollectives(analysis::CollectCollectives({&m}, 0, &problems, true));
  analysis::ShowAppliedClocks(m, &v);
  if (o.sel.Chosen().Empty())
    analysis::NoteMissingRanks(m, &v);
  else if (v.unmatched)  // --pid, --rank: the others' arrivals are left out, not missing
    v.notes.push_back(
        "only the processes --pid and --rank chose are read: a collective of a "
        "group with other ranks is unmatched for want of theirs");
  std::vector<analysis::RankGaps> gaps = Gaps(m, v, &problems);
  P2pView p = PointToPoint(m);
  v.notes.insert(v.notes.end(), p.notes.begin(), p.notes.end());
  if (v.ranks.empty() && p.connections.empty() && p.rendezvous.empty())
    v.notes.push_back(
        "no collective in the trace: they come from PyTorch's profiler (c10d and its "
        "backends' ranges, recorded with the python source), TensorFlow's profiler (its "
        "collective ops) and NCCL's NVTX ranges; socket traffic from record --sources ...,net");
  if (o.json) {
    PrintCommandJson(ViewJson(v, p, o.dirs, gaps));
  } else if (o.csv) {
    if (!PrintCsvSection(o.section, v, p)) PrintCsv(v);
  } else {
    PrintText(v, p, o, gaps);
    for (const auto& n : v.notes) std::cout << "note: " << TerminalSafe(n) << "\n";
  }
  return 0;
}

}  // namespace tt::cli
