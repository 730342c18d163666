#include "analysis/comm/comm.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace tt::analysis {

namespace {

// An instance's identity: (group, collective, instance key or sequence number, by key).
using InstanceId = std::tuple<std::string, std::string, int64_t, bool>;

// The k-th event of each (group, collective) on a rank is the k-th on every rank of the group
// (a process group runs its collectives in the order they were issued); an event with the
// framework's instance key is matched by that key instead.
// A send or receive whose peer is known is one end of a point-to-point transfer: the k-th send
// from rank s to rank d in a group pairs with the k-th receive on d from s (a group's transfers
// between two ranks arrive in the order they were sent), as one "sendrecv" instance of two
// ranks. The id's collective names the direction so that each pair of ranks counts apart.
std::string PairDirection(const CommEvent& e, int64_t rank, int64_t* src, int64_t* dst) {
  if (e.peer < 0 || rank < 0 || (e.collective != "send" && e.collective != "recv")) return "";
  bool send = e.collective == "send";
  *src = send ? rank : e.peer;
  *dst = send ? e.peer : rank;
  return "sendrecv " + std::to_string(*src) + ">" + std::to_string(*dst);
}

std::map<InstanceId, CommInstance> Group(const std::vector<CommRank>& ranks) {
  std::map<InstanceId, CommInstance> by_id;
  for (size_t r = 0; r < ranks.size(); ++r) {
    std::map<std::pair<std::string, std::string>, uint64_t> next;  // (group, collective) -> k
    for (const CommEvent& e : ranks[r].events) {
      int64_t src = -1, dst = -1;
      std::string pair = PairDirection(e, ranks[r].rank, &src, &dst);
      const std::string& kind = pair.empty() ? e.collective : pair;
      uint64_t seq = next[{e.group, kind}]++;
      bool keyed = e.key >= 0;
      InstanceId id{e.group, kind, keyed ? e.key : static_cast<int64_t>(seq), keyed};
      CommInstance& in = by_id[id];
      if (in.arrivals.empty()) {
        in.collective = pair.empty() ? e.collective : "sendrecv";
        in.group = e.group;
        in.seq = seq;
        in.key = keyed ? e.key : -1;
        in.src = src;
        in.dst = dst;
        if (!pair.empty()) in.nranks = 2;
      }
      if (e.bytes >= 0 && in.bytes >= 0 && e.bytes != in.bytes) in.bytes_differ = true;
      in.bytes = std::max(in.bytes, e.bytes);
      if (in.src < 0) in.nranks = std::max(in.nranks, e.nranks);  // a pair's is 2
      if (in.algorithm.empty()) in.algorithm = e.algorithm;
      if (in.protocol.empty()) in.protocol = e.protocol;
      in.arrivals.push_back(
          {r, e.start, e.end, 0, !pair.empty() && e.collective == "send", e.call});
    }
  }
  return by_id;
}

// Ranks that ran anything of each group: the expected ranks where events give no group size.
std::map<std::string, int64_t> RanksPerGroup(const std::vector<CommRank>& ranks) {
  std::map<std::string, int64_t> n;
  for (const CommRank& r : ranks) {
    std::map<std::string, bool> seen;
    for (const CommEvent& e : r.events) seen[e.group] = true;
    for (const auto& [g, _] : seen) n[g]++;
  }
  return n;
}

void Finish(CommInstance* in, int64_t group_ranks) {
  bool sized = in->nranks > 0;  // the events give the group's size
  if (!sized) in->nranks = group_ranks;
  auto& a = in->arrivals;
  in->first_enter = UINT64_MAX;
  for (const CommArrival& x : a) {
    in->first_enter = std::min(in->first_enter, x.enter);
    if (x.enter >= in->last_enter) {
      in->last_enter = x.enter;
      in->straggler = x.rank;
    }
    in->last_exit = std::max(in->last_exit, x.exit);
  }
  in->skew = in->last_enter - in->first_enter;
  in->duration = in->last_exit > in->last_enter ? in->last_exit - in->last_enter : 0;
  for (CommArrival& x : a) {
    x.wait = std::min(in->last_enter, std::max(x.exit, x.enter)) - x.enter;
    in->wait += x.wait;
  }
  // A group of one (a job of one process) needs no peer; otherwise one rank alone is no match.
  in->matched = static_cast<int64_t>(a.size()) >= in->nranks && (a.size() >= 2 || sized);
  if (in->matched && in->bytes > 0 && in->duration > 0) {
    in->algbw = static_cast<double>(in->bytes) * 1e9 / static_cast<double>(in->duration);
    double f = BusFactor(in->collective, static_cast<int64_t>(a.size()));
    if (f > 0) in->busbw = in->algbw * f;
  }
}

std::string InstanceName(const CommInstance& in, const std::vector<CommRank>& ranks) {
  std::string s = CommInstanceName(in) + " (only on";
  for (const CommArrival& a : in.arrivals) s += " " + ranks[a.rank].Label();
  return s + ")";
}

// One note for the unmatched instances (the first five named), one per (group, collective)
// whose ranks ran different counts (matching by order may pair the later ones wrongly), one
// for instances whose ranks disagree on the bytes.
void Notes(CommView* v) {
  std::vector<std::string> names;
  uint64_t differ = 0;
  std::map<std::pair<std::string, std::string>, std::map<size_t, uint64_t>> counts;
  for (const CommInstance& in : v->instances) {
    if (!in.matched && names.size() < 5) names.push_back(InstanceName(in, v->ranks));
    differ += in.bytes_differ;
    if (in.key < 0)
      for (const CommArrival& a : in.arrivals) counts[{in.group, in.collective}][a.rank]++;
  }
  if (v->unmatched) {
    std::string n = std::to_string(v->unmatched) +
                    " instance(s) seen on fewer ranks than their "
                    "group holds: ";
    for (size_t i = 0; i < names.size(); ++i) n += (i ? ", " : "") + names[i];
    v->notes.push_back(n + (v->unmatched > names.size() ? ", ..." : ""));
  }
  for (const auto& [gc, per_rank] : counts) {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto& [r, n] : per_rank) lo = std::min(lo, n), hi = std::max(hi, n);
    if (lo == hi) continue;
    std::string n = gc.second + (gc.first.empty() ? "" : " of group " + gc.first) + ":";
    for (const auto& [r, c] : per_rank)
      n += " " + std::to_string(c) + " on " + v->ranks[r].Label() + ",";
    v->notes.push_back(n + " matched in order, so later instances may pair wrongly");
  }
  if (differ)
    v->notes.push_back(std::to_string(differ) + " instance(s) whose ranks gave different bytes " +
                       "(the largest is counted)");
  if (v->ranks.size() == 1)
    v->notes.push_back("one rank only (" + v->ranks[0].Label() +
                       "): nothing to match; give every rank's trace");
}

void Totals(CommView* v) {
  v->totals.assign(v->ranks.size(), {});
  std::map<std::string, CommCollective> by;
  std::map<std::string, std::pair<int64_t, uint64_t>> bw;  // bytes, duration of matched ones
  for (const CommInstance& in : v->instances) {
    CommCollective& c = by[in.collective];
    c.collective = in.collective;
    c.instances++;
    c.unmatched += !in.matched;
    c.bytes += std::max<int64_t>(in.bytes, 0);
    c.wait += in.wait;
    if (in.busbw >= 0) bw[in.collective].first += in.bytes, bw[in.collective].second += in.duration;
    for (const CommArrival& a : in.arrivals) {
      CommRankTotals& t = v->totals[a.rank];
      c.calls[a.rank]++;
      c.time += a.exit - a.enter;
      t.calls++;
      t.time += a.exit - a.enter;
      t.wait += a.wait;
      t.bytes += std::max<int64_t>(in.bytes, 0);
    }
    if (in.matched && in.skew > 0) v->totals[in.straggler].straggler++;
  }
  for (size_t i = 0; i < v->ranks.size(); ++i) {
    const CommRank& r = v->ranks[i];
    if (!r.overlap_measured) continue;
    CommRankTotals& t = v->totals[i];
    t.comm = static_cast<int64_t>(r.comm);
    t.overlapped = static_cast<int64_t>(r.overlapped);
    t.exposed = t.comm - std::min(t.comm, t.overlapped);
  }
  for (auto& [name, c] : by) {
    auto [bytes, ns] = bw[name];
    if (ns > 0) {
      int64_t n = static_cast<int64_t>(c.calls.size());
      c.busbw = static_cast<double>(bytes) * 1e9 / static_cast<double>(ns) * BusFactor(name, n);
    }
    v->collectives.push_back(std::move(c));
  }
  std::stable_sort(v->collectives.begin(), v->collectives.end(),
                   [](const auto& a, const auto& b) { return a.time > b.time; });
}

}  // namespace

std::string CommDirection(const CommInstance& in) {
  return in.src < 0 ? "" : " " + std::to_string(in.src) + "->" + std::to_string(in.dst);
}

std::string CommInstanceName(const CommInstance& in) {
  std::string s = in.collective + CommDirection(in);
  s += in.key >= 0 ? " key " + std::to_string(in.key) : " #" + std::to_string(in.seq);
  return in.group.empty() ? s : s + " of group " + in.group;
}

std::string CommRank::Label() const {
  std::string l = rank >= 0 ? "rank " + std::to_string(rank) : "pid " + std::to_string(pid);
  return device >= 0 ? l + " device " + std::to_string(device) : l;
}

std::string NormaliseCollective(std::string_view name) {
  std::string s;
  for (char c : name)
    if (c != '_') s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (s.starts_with("nccl")) s.erase(0, 4);
  // Variants of one collective (allgather_into_tensor, _allgather_base, reduce_scatter_tensor,
  // allreduce_coalesced) are that collective.
  for (const char* base : {"allreduce", "allgather", "reducescatter", "alltoall", "broadcast"})
    if (s.starts_with(base)) return base;
  return s;
}

std::string XlaCollective(std::string_view name) {
  std::string base(name.substr(0, name.find('.')));
  std::replace(base.begin(), base.end(), '-', '_');
  if (base.ends_with("_done")) return "";
  if (base.ends_with("_start")) base.resize(base.size() - 6);
  if (base == "all_reduce" || base == "psum" || base == "psum_invariant" || base == "pmax" ||
      base == "pmin")
    return "allreduce";
  if (base == "all_gather" || base == "all_gather_invariant") return "allgather";
  if (base == "reduce_scatter" || base == "psum_scatter") return "reducescatter";
  if (base == "all_to_all") return "alltoall";
  if (base == "collective_permute" || base == "ppermute") return "collectivepermute";
  return "";
}

double BusFactor(const std::string& c, int64_t n) {
  if (n <= 0) return 0;
  double f = static_cast<double>(n - 1) / static_cast<double>(n);
  if (c == "allreduce") return 2 * f;
  if (c == "allgather" || c == "reducescatter" || c == "alltoall") return f;
  if (c == "broadcast" || c == "reduce" || c == "send" || c == "recv" || c == "sendrecv") return 1;
  return 0;
}

CommView MatchCollectives(std::vector<CommRank> ranks) {
  std::stable_sort(ranks.begin(), ranks.end(), [](const CommRank& a, const CommRank& b) {
    return std::tuple(a.rank < 0, a.rank, a.pid) < std::tuple(b.rank < 0, b.rank, b.pid);
  });
  for (CommRank& r : ranks)
    std::stable_sort(r.events.begin(), r.events.end(),
                     [](const CommEvent& a, const CommEvent& b) { return a.start < b.start; });
  CommView v;
  v.ranks = std::move(ranks);
  std::map<std::string, int64_t> per_group = RanksPerGroup(v.ranks);
  for (auto& [id, in] : Group(v.ranks)) v.instances.push_back(std::move(in));
  std::vector<std::string> clock_notes;
  v.clocks = AlignClocks(&v.ranks, &v.instances, &clock_notes);
  for (CommInstance& in : v.instances) {
    Finish(&in, per_group[in.group]);
    (in.matched ? v.matched : v.unmatched)++;
  }
  std::stable_sort(
      v.instances.begin(), v.instances.end(),
      [](const CommInstance& a, const CommInstance& b) { return a.first_enter < b.first_enter; });
  Totals(&v);
  Notes(&v);
  v.notes.insert(v.notes.end(), clock_notes.begin(), clock_notes.end());
  return v;
}

}  // namespace tt::analysis
