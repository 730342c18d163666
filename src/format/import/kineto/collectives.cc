// The Kineto importer's collectives (importer_state.h): the process's distributed info, the
// arguments of c10d's ops, record_param_comms and backends' ranges, and the joining of a
// collective's op, its record_param_comms and its backend's range into one.
#include <algorithm>
#include <map>
#include <set>

#include "format/import/kineto/importer_state.h"
#include "format/keys.h"

namespace tt::kineto {

// torch.profiler's "distributedInfo" (the bootstrap adds it too): the process's rank and
// world size, and its process groups.
void KinetoImporter::ReadDistributedInfo(const json& d) {
  if (!d.is_object()) return;
  dist_ = Dist{};
  dist_.rank = JsonInt(Field(d, "rank"));
  dist_.world = JsonInt(Field(d, "world_size"));
  const json& groups = Field(d, "pg_config");
  if (groups.is_array() && groups.size() == 1) {
    dist_.group = FieldStr(groups[0], "pg_name");
    if (int64_t n = JsonInt(Field(groups[0], "pg_size")); n > 0) dist_.world = n;
  }
  if (groups.is_array())
    for (const json& g : groups)
      dist_.groups.emplace_back(FieldStr(g, "pg_name"), JsonInt(Field(g, "pg_size")));
  dist_.known = true;
}

// The group, rank and group size of a collective that names none itself: known only when
// the process has one process group (gloo's ranges and c10d's ops do not say which).
void KinetoImporter::GroupArgs(Timeline* tl) {
  if (!dist_.known || dist_.group.empty()) return;
  Str(tl, keys::kProcessGroup, dist_.group);
  if (dist_.rank >= 0) Int(tl, keys::kRank, dist_.rank);
  if (dist_.world > 0) Int(tl, keys::kNranks, dist_.world);
}

// Several process groups: gloo's ranges do not name theirs, but each group runs its work on
// threads of its own (ProcessGroupGloo's run loops), made when the program made the group, so
// the process's gloo threads in the order they were made (by thread id) are the groups' in
// pg_config's order, as many each. Where the threads do not divide among the groups evenly
// (some never ran a collective), the ranges stay without a group.
void KinetoImporter::GlooGroups() {
  const auto& groups = dist_.groups;
  if (groups.size() < 2) return;
  std::set<uint64_t> tids;
  for (size_t i = file_comms_; i < comms_.size(); ++i)
    if (comms_[i].name.starts_with("gloo:") && !comms_[i].tl->device) tids.insert(comms_[i].tl->id);
  if (tids.empty() || tids.size() % groups.size()) return;
  size_t per = tids.size() / groups.size();
  std::map<uint64_t, size_t> group_of;
  for (uint64_t t : tids) group_of[t] = group_of.size() / per;
  const uint32_t group_key = t_->Name(keys::kProcessGroup);
  for (size_t i = file_comms_; i < comms_.size(); ++i) {
    const Comm& c = comms_[i];
    if (!c.name.starts_with("gloo:") || c.tl->device) continue;
    LineEvent& ev = c.tl->items[c.item];
    if (HasArg(*c.tl, ev, group_key)) continue;
    const auto& [name, size] = groups[group_of[c.tl->id]];
    Reopen(c.tl, &ev);
    Str(c.tl, keys::kProcessGroup, name);
    if (size > 0) Int(c.tl, keys::kNranks, size);
    ev.nargs = static_cast<uint32_t>(c.tl->args.size() - ev.args);
  }
}

// record_param_comms (the collective, its sizes and its group), or a backend's range
// ("gloo:all_reduce": the collective after the colon, bytes from its input).
void KinetoImporter::CommArgs(Timeline* tl, const std::string& name, const json& a) {
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

// A backend's range inside a record_param_comms of its thread (NCCL's "nccl:all_reduce"
// within the collective's call) is that collective: where the range gives no bytes, it takes
// the sizes, element type, group and rank that record_param_comms gives, so that comm, which
// prefers backend ranges, still has them.
void KinetoImporter::InheritParamComms() {
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
      if (o.start <= ev.start && ev.end <= o.end && (!outer || outer->start <= o.start)) outer = &o;
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

// c10d's op on the program's thread and the backend's range that ran it (gloo:all_reduce,
// on gloo's thread) are one collective: the k-th op of a collective and size with the k-th
// range of the same (a process group runs its work in the order it was issued). The op gets
// the range's element type and the bytes.
void KinetoImporter::PairCollectives() {
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

void KinetoImporter::AppendArgs(const Comm* c, const std::string& dtype, int64_t bytes) {
  Timeline* tl = c->tl;
  LineEvent& ev = tl->items[c->item];
  Reopen(tl, &ev);
  Str(tl, keys::kDtype, dtype);
  if (bytes > 0) Int(tl, keys::kBytes, bytes);
  ev.nargs = static_cast<uint32_t>(tl->args.size() - ev.args);
}

// The backend's range of a send or receive gets the peer its c10d op named.
void KinetoImporter::AppendPeer(const Comm* c, int64_t peer) {
  Timeline* tl = c->tl;
  LineEvent& ev = tl->items[c->item];
  Reopen(tl, &ev);
  Int(tl, keys::kPeerRank, peer);
  ev.nargs = static_cast<uint32_t>(tl->args.size() - ev.args);
}

}  // namespace tt::kineto
