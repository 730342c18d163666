// The trace's inventory: what it holds, counted in one pass over every stream (events by
// category and kind, threads, drops and their causes, sources, clock offsets); the numbers
// `record` prints, `tensortrace info` shows and the report's run summary gives.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "format/loss_page.h"
#include "format/reader.h"

namespace tt::model {

struct ThreadSummary {
  uint64_t tid = 0;
  std::string name;
  std::string file;
  uint64_t events = 0;
  uint64_t first_ns = 0, last_ns = 0;
  uint64_t discarded = 0;
  // A host line of a framework profiler's capture (imported at the end of record), not a
  // stream the thread wrote itself; the same tid may have both.
  bool imported = false;
  // One of tensortrace's own threads in the program (its Python sampler, its capture windows'
  // timer: "tensortrace-..."), not the program's.
  bool ours = false;
};

struct ProcessSummary {
  std::string dir;
  ProcessMeta meta;
  std::vector<ThreadSummary> threads;  // thread streams and imported host lines, by tid
  uint64_t thread_count = 0;           // distinct tids among them, the program's only
  uint64_t own_threads = 0;            // ... tensortrace's own (ThreadSummary::ours)
  uint64_t events = 0;                 // every event record, definitions included
  std::array<uint64_t, static_cast<size_t>(layout::Category::kCount)> by_category{};
  std::map<std::string, uint64_t> by_kind;  // event class name -> count
  std::map<std::string, uint64_t> drop_reasons;
  uint64_t discarded = 0;  // sum over its streams' packet contexts
  std::vector<std::pair<std::string, int64_t>> clock_offsets;  // as recorded, in order
  std::set<std::string> sources;
  std::map<std::string, std::set<std::string>> source_details;  // source -> what it saw
  std::vector<std::string> notes;
  uint64_t first_ns = UINT64_MAX, last_ns = 0;
  uint64_t strings = 0;
};

struct TraceSummary {
  std::string path;
  std::vector<ProcessSummary> processes;
  std::vector<Problem> problems;
  uint64_t events = 0, discarded = 0;
  uint64_t threads = 0;  // distinct threads of each process, imported host lines included
  uint64_t first_ns = UINT64_MAX, last_ns = 0;
  uint64_t bytes = 0;
  // Processes that could not write a trace of their own, from the loss page: their events are
  // counted there, with the cause.
  std::vector<LostProcess> lost;
};

TraceSummary Summarise(const TraceDir& trace);

// Summarise in parts, for a reader that decodes the streams for other reasons too (LoadModel):
// per process StartProcess, per stream TallyEvent for each of its events in order then
// TallyStreamEnd with its header, AddProcessSummary; FinishSummary once at the end.
ProcessSummary StartProcess(const ProcessTrace& proc);
void TallyEvent(const RawEvent& ev, ProcessSummary* ps, ThreadSummary* th);
void TallyStreamEnd(const StreamHeader& h, ThreadSummary&& th, ProcessSummary* ps);
void AddProcessSummary(ProcessSummary&& ps, TraceSummary* t);
void FinishSummary(TraceSummary* t);
const char* EventKindName(uint8_t id);
// Total drops of a process: its own summary when it wrote one, else the streams' counts.
uint64_t Drops(const ProcessSummary& p);
// Every drop of the trace: its processes' and the lost processes' events.
uint64_t TotalDrops(const TraceSummary& t);

}  // namespace tt::model
