// Reading each process's socket calls from its tracks: HasSocketCalls and CollectSockets.
#pragma once
#include <vector>

#include "model/model.h"

namespace tt::analysis {

struct SocketProcess;  // p2p.h
struct SocketEnd;      // p2p.h

// Whether any process of `m` recorded a socket call (from its names alone: nothing is read).
bool HasSocketCalls(const model::TraceModel& m);

// Reads every process's socket calls from each trace (one scan of each track).
void CollectSockets(const std::vector<const model::TraceModel*>& traces, unsigned threads,
                    std::vector<SocketProcess>* processes, std::vector<SocketEnd>* ends,
                    std::vector<Problem>* problems);

}  // namespace tt::analysis
