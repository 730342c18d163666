// Several recordings read as one job, put on one clock (DESIGN.md, the job's meaning): the
// offsets `tensortrace comm` finds (comm.h, CommClock: recorded CLOCK_REALTIME offsets refined
// by the causality of collectives) are set on every process of each recording
// (model::Process::shift_ns), so that every scan, and so every view, export and the report,
// reads aligned times.
#pragma once
#include <string>
#include <vector>

#include "analysis/comm/comm.h"
#include "model/model.h"

namespace tt::analysis {

// Nothing (and nothing read) for a model of one recording. Otherwise one scan of every track
// finds the collectives; sets each process's shift_ns, m->clocks and m->realtime_offset_ns.
void AlignRecordings(model::TraceModel* m, unsigned threads);

// One line per recording of an aligned job: "clock of DIR: +0 ns (reference)",
// "clock of DIR: -5.001 ms (causality: within 2.1 us; 40 collectives bound it)".
std::vector<std::string> ClockNotes(const model::TraceModel& m);

// A comm view of an aligned model sees the offsets already applied: its clocks are given the
// offsets the alignment applied (and the methods it used).
void ShowAppliedClocks(const model::TraceModel& m, CommView* v);

}  // namespace tt::analysis
