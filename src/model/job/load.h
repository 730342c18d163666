// Loading a job: one or several trace directories (one recording per rank or host) read as
// one, narrowed to some processes (--pid) before anything reads them. The clock that puts the
// recordings on one time base is applied afterwards (clock.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "format/reader.h"
#include "model/inventory.h"
#include "model/model.h"

namespace tt::model {

// The processes a command reads (--pid, --rank): those of `pids` (every exec image of each)
// and of `ranks` (every process whose launcher gave it one of them); a process must match both
// where both are given (--rank 1 --pid 2: rank 1's pid 2, where every rank runs a pid 2 in a
// pid namespace of its own). Empty: every process.
struct ProcessChoice {
  std::vector<int64_t> pids;
  std::vector<int64_t> ranks;
  bool Empty() const { return pids.empty() && ranks.empty(); }
};

// The trace directories `dirs` opened as one (their processes together, the path "A + B"),
// keeping only the processes `chosen` names, all of them when it is empty.
// Throws tt::Error with one line for
// - a directory given twice, however spelled (a link to it, ./a/ for a);
// - the same recording twice (a copy): a process image, by its trace UUID, in both;
// - recordings of different jobs: their launchers named different jobs (the processes'
//   metadata `job`, format/launcher.h), their ranks' world sizes differ, or they name one job
//   but did not run at the same time (the first ended, by record's tensortrace.json, before
//   the other's first process started: two runs of one rendezvous address);
// - a pid the job does not hold (listing those it holds);
// - a rank no process of the job holds (listing those it holds, or saying it has none).
// Recordings for which no launcher named a job (older ones, programs started without one) are
// read together as before, unless their world sizes differ.
TraceDir OpenJob(const std::vector<std::string>& dirs, const ProcessChoice& chosen);

// The model of OpenJob(dirs, chosen), with its inventory when asked (not yet aligned).
TraceModel LoadJobModel(const std::vector<std::string>& dirs, const ProcessChoice& chosen,
                        TraceSummary* inventory = nullptr);

// The ranks of the job's world that none of its processes holds, in order: only for a job of
// several recordings, each with a process that has a rank and a world size from its launcher,
// all of one world size; empty otherwise.
std::vector<int64_t> MissingRanks(const TraceModel& m);
// "ranks 1, 3 of the job's 4 (its launcher's world size) are in none of the recordings
// given", or "" where MissingRanks is empty.
std::string MissingRanksNote(const TraceModel& m);

}  // namespace tt::model
