// Several recordings read as one job, put on one clock (DESIGN.md, the job's meaning): the
// offsets `tensortrace comm` finds (comm.h, CommClock: recorded CLOCK_REALTIME offsets refined
// by the causality of collectives, socket pairs and TensorFlow's sends and receives), solved
// here; model::Aligned (model/job/clock.h) makes the aligned job from them, so that every scan,
// and so every view, export and the report, reads aligned times.
#pragma once
#include <string>
#include <vector>

#include "analysis/comm/comm.h"
#include "analysis/comm/p2p.h"
#include "model/job/clock.h"
#include "model/model.h"

namespace tt::analysis {

// Nothing (and nothing read) for a model of one recording. Otherwise one scan of every track
// finds the collectives: each recording's clock, each process's shift and the realtime offset.
model::JobClock SolveJobClock(const model::TraceModel& m, unsigned threads);

// One line per recording of an aligned job: "clock of DIR: +0 ns (reference)",
// "clock of DIR: -5.001 ms (causality: within 2.1 us; 40 collectives bound it)".
std::vector<std::string> ClockNotes(const model::TraceModel& m);

// A comm view of an aligned model sees the offsets already applied: its clocks are given the
// offsets the alignment applied (and the methods it used).
void ShowAppliedClocks(const model::TraceModel& m, CommView* v);
// The same for the point-to-point view of an aligned model (p2p_aligned.h), with a note for
// each recording that TensorFlow's transfers alone put on the reference's clock.
void ShowAppliedClocks(const model::TraceModel& m, P2pView* v);

}  // namespace tt::analysis
