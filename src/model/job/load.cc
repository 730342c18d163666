// Loading a job (load.h).
#include "model/job/load.h"

#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <iterator>
#include <map>
#include <set>

#include "core/error.h"
#include "core/ids.h"
#include "format/launcher.h"

namespace tt::model {

namespace {

// What one recording says of the job it belongs to.
struct RecordingJob {
  std::string path;
  std::vector<std::string> jobs;     // its processes' job identities (format/launcher.h), distinct
  std::map<int64_t, int64_t> ranks;  // rank -> world size, of the processes that hold one
  uint64_t start_ns = UINT64_MAX;    // its first process's start (CLOCK_REALTIME)
  uint64_t end_ns = UINT64_MAX;      // when record finished it; UINT64_MAX: not known
};

// When `record` finished the recording at `dir`: it writes tensortrace.json last (a copy made
// later says when it was copied, which is later still). UINT64_MAX where there is none (a live
// recording, one process's directory).
uint64_t FinishedAt(const std::string& dir) {
  struct stat st;
  if (stat((dir + "/tensortrace.json").c_str(), &st) != 0) return UINT64_MAX;
  return static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(st.st_mtim.tv_nsec);
}

RecordingJob JobOf(const TraceDir& t) {
  RecordingJob r;
  r.path = t.path;
  for (const auto& p : t.processes) {
    const ProcessMeta& m = p.meta;
    if (!m.job.empty() && std::find(r.jobs.begin(), r.jobs.end(), m.job) == r.jobs.end())
      r.jobs.push_back(m.job);
    if (m.rank >= 0 && m.world_size > 0) r.ranks[m.rank] = m.world_size;
    if (m.start_realtime_ns) r.start_ns = std::min(r.start_ns, m.start_realtime_ns);
  }
  r.end_ns = FinishedAt(t.path);
  return r;
}

// "2026-11-28 14:03:00.250 UTC".
std::string Utc(uint64_t ns) {
  std::time_t s = static_cast<std::time_t>(ns / 1000000000);
  std::tm tm{};
  char text[32];
  gmtime_r(&s, &tm);
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
  std::string ms = std::to_string(ns / 1000000 % 1000);
  return text + std::string(".") + std::string(3 - ms.size(), '0') + ms + " UTC";
}

std::string RankText(const std::pair<const int64_t, int64_t>& r) {
  return "rank " + std::to_string(r.first) + " of " + std::to_string(r.second);
}

// Throws when `b` cannot be of the job `a` is of: their launchers named different jobs, their
// world sizes differ, or they name one job but did not run at the same time (a job's ranks
// do; a launcher's rendezvous address or cluster is the same on every run of it).
void CheckOneJob(const RecordingJob& a, const RecordingJob& b) {
  const std::string tail = "; give the recordings of one run of one job together";
  for (const auto& ja : a.jobs)
    for (const auto& jb : b.jobs)
      if (DifferentJobs(ja, jb))
        throw Error(b.path + ": a recording of another job than " + a.path + " (" + b.path +
                    ": job " + jb + "; " + a.path + ": job " + ja + ")" + tail);
  std::set<int64_t> wa, wb;
  for (const auto& r : a.ranks) wa.insert(r.second);
  for (const auto& r : b.ranks) wb.insert(r.second);
  if (!wa.empty() && !wb.empty() &&
      std::none_of(wb.begin(), wb.end(), [&](int64_t w) { return wa.count(w) > 0; }))
    throw Error(b.path + ": a recording of another job than " + a.path + " (it holds " +
                RankText(*b.ranks.begin()) + ", " + a.path + " " + RankText(*a.ranks.begin()) +
                ")" + tail);
  if (a.jobs.empty() || b.jobs.empty()) return;  // no launcher named the job: as before
  const RecordingJob* early = a.start_ns <= b.start_ns ? &a : &b;
  const RecordingJob* late = early == &a ? &b : &a;
  if (late->start_ns == UINT64_MAX || early->end_ns >= late->start_ns) return;
  throw Error(b.path + ": a recording of another run than " + a.path + " (both of job " +
              b.jobs[0] + ", but " + early->path + " ended at " + Utc(early->end_ns) + " and " +
              late->path + " started at " + Utc(late->start_ns) + ", by their hosts' clocks)" +
              tail);
}

// Throws when two of `dirs` are one directory (a link to it, another spelling of its path).
void RefuseTheSameDirectory(const std::vector<std::string>& dirs) {
  std::map<std::pair<dev_t, ino_t>, std::string> seen;
  for (const auto& d : dirs) {
    struct stat st;
    if (stat(d.c_str(), &st) != 0) continue;  // OpenTrace says what is wrong with it
    auto [it, added] = seen.emplace(std::make_pair(st.st_dev, st.st_ino), d);
    if (added) continue;
    throw Error(d == it->second ? d + ": given twice"
                                : d + ": the same directory as " + it->second + " (given twice)");
  }
}

// Throws when `more` holds a process image `t` holds: the same recording (a copy of it, a link
// to it), by the trace UUID each process's metadata carries.
void RefuseTheSameRecording(const TraceDir& t, const TraceDir& more) {
  std::map<std::string, std::string> held;  // trace UUID -> the recording that holds it
  for (const auto& p : t.processes) held.emplace(UuidToString(p.meta.trace_uuid), p.recording);
  for (const auto& p : more.processes) {
    std::string uuid = UuidToString(p.meta.trace_uuid);
    if (auto it = held.find(uuid); it != held.end())
      throw Error(more.path + ": the same recording as " + it->second + " (both hold process " +
                  std::to_string(p.meta.pid) + ", trace " + uuid + ": a copy or a link of it?)");
  }
}

// `t` with the processes of `more` added.
void Merge(TraceDir* t, TraceDir more) {
  std::move(more.processes.begin(), more.processes.end(), std::back_inserter(t->processes));
  std::move(more.problems.begin(), more.problems.end(), std::back_inserter(t->problems));
  t->path += " + " + more.path;
}

// "0, 1, 3" (or `none`).
std::string ListOf(const std::set<int64_t>& held, const char* none) {
  std::string list;
  for (int64_t h : held) list += (list.empty() ? "" : ", ") + std::to_string(h);
  return list.empty() ? none : list;
}

// Throws when `t` holds no process of one of `wanted` (its pids, or its ranks).
void CheckHeld(const TraceDir& t, const std::vector<int64_t>& wanted, bool ranks,
               const std::string& first_dir) {
  std::set<int64_t> held;
  for (const auto& p : t.processes)
    if (!ranks || p.meta.rank >= 0) held.insert(ranks ? p.meta.rank : p.meta.pid);
  const std::string info = "`tensortrace info " + first_dir + "` lists them)";
  for (int64_t w : wanted) {
    if (held.count(w)) continue;
    std::string n = std::to_string(w);
    if (!ranks)
      throw Error("--pid " + n + ": " + t.path + " holds no process " + n +
                  " (its processes: " + ListOf(held, "none") + "; " + info);
    if (held.empty())
      throw Error("--rank " + n + ": " + t.path +
                  " holds no ranks (no launcher gave its processes one: RANK, "
                  "OMPI_COMM_WORLD_RANK, SLURM_PROCID...; --pid P selects a process)");
    throw Error("--rank " + n + ": no recording of " + t.path + " holds rank " + n +
                " (its ranks: " + ListOf(held, "none") + "; " + info);
  }
}

// `t` narrowed to the processes `chosen` names.
void Narrow(TraceDir* t, const ProcessChoice& chosen, const std::string& first_dir) {
  if (chosen.Empty()) return;
  CheckHeld(*t, chosen.pids, false, first_dir);
  CheckHeld(*t, chosen.ranks, true, first_dir);
  auto in = [](const std::vector<int64_t>& v, int64_t x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
  };
  std::erase_if(t->processes, [&](const ProcessTrace& p) {
    return !in(chosen.pids, p.meta.pid) || !in(chosen.ranks, p.meta.rank);
  });
  if (t->processes.empty())
    throw Error("--pid and --rank: " + t->path + " holds no process of both (`tensortrace info " +
                first_dir + "` lists its processes and their ranks)");
}

}  // namespace

TraceDir OpenJob(const std::vector<std::string>& dirs, const ProcessChoice& chosen) {
  RefuseTheSameDirectory(dirs);
  TraceDir t = OpenTrace(dirs.at(0));
  std::vector<RecordingJob> jobs{JobOf(t)};
  for (size_t i = 1; i < dirs.size(); ++i) {
    TraceDir more = OpenTrace(dirs[i]);
    RefuseTheSameRecording(t, more);
    jobs.push_back(JobOf(more));
    for (size_t j = 0; j + 1 < jobs.size(); ++j) CheckOneJob(jobs[j], jobs.back());
    Merge(&t, std::move(more));
  }
  Narrow(&t, chosen, dirs[0]);
  return t;
}

TraceModel LoadJobModel(const std::vector<std::string>& dirs, const ProcessChoice& chosen,
                        TraceSummary* inventory) {
  return LoadModel(OpenJob(dirs, chosen), inventory);
}

std::vector<int64_t> MissingRanks(const TraceModel& m) {
  std::map<std::string, bool> ranked;  // recording -> whether a process of it holds a rank
  std::set<int64_t> ranks, worlds;
  for (const auto& p : m.processes) {
    bool has = p.meta.rank >= 0 && p.meta.world_size > 0;
    ranked[p.recording] = ranked[p.recording] || has;
    if (!has) continue;
    ranks.insert(p.meta.rank);
    worlds.insert(p.meta.world_size);
  }
  std::vector<int64_t> missing;
  if (ranked.size() < 2 || worlds.size() != 1) return missing;
  for (const auto& r : ranked)
    if (!r.second) return missing;
  for (int64_t r = 0; r < *worlds.begin(); ++r)
    if (!ranks.count(r)) missing.push_back(r);
  return missing;
}

std::string MissingRanksNote(const TraceModel& m) {
  std::vector<int64_t> missing = MissingRanks(m);
  if (missing.empty()) return "";
  int64_t world = 0;
  for (const auto& p : m.processes)
    if (p.meta.rank >= 0) world = std::max(world, p.meta.world_size);
  std::string list;
  for (size_t i = 0; i < missing.size() && i < 16; ++i)
    list += (i ? ", " : "") + std::to_string(missing[i]);
  if (missing.size() > 16) list += " and " + std::to_string(missing.size() - 16) + " more";
  return std::string(missing.size() == 1 ? "rank " : "ranks ") + list + " of the job's " +
         std::to_string(world) + " (its launcher's world size) " +
         (missing.size() == 1 ? "is" : "are") + " in none of the recordings given";
}

}  // namespace tt::model
