// The point-to-point view of a model already on the job's clock (p2p_aligned.h).
#include "analysis/comm/p2p_aligned.h"

#include "analysis/comm/p2p.h"

namespace tt::analysis {

P2pView AlignedPointToPoint(const model::TraceModel& m, bool sockets) {
  std::vector<SocketProcess> procs;
  std::vector<SocketEnd> ends;
  std::vector<TfSend> sends;
  std::vector<TfRecv> recvs;
  std::vector<Problem> ignored;  // the views' scans report damage
  if (sockets && HasSocketCalls(m)) CollectSockets({&m}, 0, &procs, &ends, &ignored);
  if (HasRendezvous(m)) CollectRendezvous({&m}, 0, &procs, &sends, &recvs, &ignored);
  // Each recording's offset 0: the times are on the job's clock already (the pairs only check it).
  std::map<std::string, int64_t> offsets;
  for (const auto& c : m.clocks) offsets[c.recording] = 0;
  P2pView v = MatchSockets(std::move(procs), std::move(ends), offsets);
  MatchRendezvous(std::move(sends), std::move(recvs), offsets, &v);
  return v;
}

}  // namespace tt::analysis
