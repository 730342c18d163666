// Point-to-point communication over sockets (the net source: net.send, net.recv and
// net.connection events): each TCP connection as its two directions, every receive paired with
// the sends whose bytes it carries by the connection's byte offsets, across the processes of one
// recording and across recordings. A direction is named by its ends: bytes from `from` to `to`
// are the sends of the process whose connection has local = from and peer = to, and the
// receives of the process whose connection has local = to and peer = from.
//
// Per direction: bytes sent, received and matched; per send call (a message) its latency, from
// the send's start to the end of the receive that took its last byte; the bandwidth, the
// matched bytes over the time some message was in flight (the union of the messages' [send
// start, last receive end]). Collection (p2p_collect.h) reads the events; matching (p2p.cc)
// works on plain lists, so it is tested without a trace.
#pragma once
#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/comm/p2p_aligned.h"
#include "analysis/comm/p2p_collect.h"
#include "model/model.h"

namespace tt::analysis {

struct SocketCall {
  uint64_t start = 0, end = 0;  // trace clock (ns)
  uint64_t offset = 0, bytes = 0;
};

// A process that used sockets.
struct SocketProcess {
  int64_t pid = 0, rank = -1;
  std::string host, trace;
  std::string clock;            // its clock's boot id
  int64_t realtime_offset = 0;  // CLOCK_REALTIME - its clock, as recorded at its start
  std::string Label() const;    // "rank 1 (pid 7)", else "pid 7"
};

// One process's side of one connection.
struct SocketEnd {
  size_t process = 0;       // index in the processes given to MatchSockets
  std::string local, peer;  // "127.0.0.1:5000"; empty: the connection was never announced
  uint64_t conn = 0;        // its id in the process
  std::vector<SocketCall> sends, receives;
};

struct P2pDirection {
  std::string from, to;
  int64_t sender = -1, receiver = -1;  // indices of the processes (-1: not in the traces)
  uint64_t sent = 0, received = 0;     // bytes
  uint64_t matched = 0;                // received bytes that a recorded send carried
  uint64_t sends = 0, receives = 0;    // calls
  uint64_t messages = 0;               // sends whose every byte was received
  uint64_t latency_min = 0, latency_p50 = 0, latency_max = 0;  // over the messages (ns)
  double latency_mean = -1;                                    // -1: no message
  uint64_t busy_ns = 0;                                        // time some message was in flight
  double bandwidth = -1;   // matched bytes / busy_ns, bytes/s (-1: unknown)
  uint64_t causality = 0;  // pairs where the receive ended before the send began
  uint64_t overlaps = 0;   // calls whose byte ranges overlap another's of the same side
};

struct P2pConnection {
  std::string a, b;                // its ends, a < b
  std::vector<P2pDirection> dirs;  // a -> b, then b -> a (only those with bytes)
};

// The offset a recording takes from the window its pairs allow: `at` where the window holds it,
// else the window's middle where it is closed on both sides, else its nearer edge.
inline int64_t IntoWindow(int64_t at, int64_t low, int64_t high) {
  if (at >= low && at <= high) return at;
  if (low != INT64_MIN && high != INT64_MAX) return low / 2 + high / 2;
  return at < low ? low : high;
}

// One recording's clock as the socket pairs put it on the first process's recording's: a
// receive never ends before the send of its bytes began, so each pair with the reference bounds
// the offset d (added to this recording's times): d >= send start - receive end where the
// reference sent, d <= receive end - send start where it received.
struct P2pClock {
  std::string trace;
  int64_t recorded_ns = 0;  // given (comm's clocks) or from the recorded CLOCK_REALTIME offsets
  int64_t offset_ns = 0;    // applied
  int64_t low_ns = INT64_MIN, high_ns = INT64_MAX;  // the window the pairs allow (MIN/MAX: open)
  uint64_t pairs = 0;                               // pairs with the reference that bound it
  // "reference", "recorded" (within the window), "sockets" (moved into it), "inconsistent"
  // (an empty window: recorded kept), "unbounded" (no pair with the reference)
  std::string method;
};

// TensorFlow's tensors moved between two processes of one graph (p2p_tf.cc): a _Send (or
// _HostSend) on the sending worker, named by its rendezvous key ("send device;incarnation;recv
// device;tensor;frame:iter"), and the _Recv (_HostRecv) on the receiving worker that took it
// (the receiving worker fetches it from the sender with a RecvTensor call).
struct TfSend {
  size_t process = 0;  // index in the processes (P2pView::processes)
  std::string key;
  uint64_t start = 0, end = 0;
};

struct TfRecv {
  size_t process = 0;
  std::string name;    // the _Recv node's ("mul/_4": its tensor's producer "mul", then "/_N")
  int64_t step = 0;    // TensorFlow's step id (shared by the workers of one run)
  uint64_t start = 0;  // the receive asked for the tensor
  uint64_t done = 0;   // the tensor arrived (the receive's done callback)
  int64_t bytes = -1;  // the tensor's bytes: the allocation its response was decoded into
};

// One send paired with its receive.
struct TfTransfer {
  size_t channel = 0;  // index in P2pView::rendezvous
  uint64_t seq = 0;    // its order among the channel's transfers (from 0)
  int64_t step = 0;    // the receive's step id
  uint64_t send_start = 0, send_end = 0, recv_start = 0, recv_done = 0;  // on one clock
  int64_t bytes = -1;
  uint64_t latency = 0;  // from the send's start to the receive's done (0 where before)
  uint64_t wait = 0;     // the receive's own time: from its start to its done
};

// One tensor edge between two devices: its sends and receives paired in order.
struct RendezvousChannel {
  std::string key;     // the first send's rendezvous key
  std::string tensor;  // "edge_10_mul"
  std::string send_device, recv_device;
  int64_t sender = -1, receiver = -1;  // indices of the processes (-1: not in the traces)
  uint64_t sends = 0, receives = 0, pairs = 0;
  int64_t bytes = 0;                                           // the pairs' known bytes added
  uint64_t sized = 0;                                          // pairs whose bytes are known
  uint64_t latency_min = 0, latency_p50 = 0, latency_max = 0;  // over the pairs (ns)
  uint64_t wait = 0, wait_max = 0;  // the receives' waits, added and the longest
  uint64_t causality = 0;           // pairs whose receive ended before its send began
  std::string method = "rendezvous key";
};

struct P2pView {
  std::vector<SocketProcess> processes;
  std::vector<P2pClock> clocks;               // one per recording, the first process's first
  std::vector<P2pConnection> connections;     // by bytes, most first
  uint64_t matched = 0, unmatched = 0;        // bytes: received and sent bytes left unpaired
  std::vector<RendezvousChannel> rendezvous;  // TensorFlow's, by devices, then tensor
  std::vector<TfTransfer> transfers;          // by channel, then in order
  std::vector<std::string> notes;             // what could not be paired, naming it
  // Process i's label ("rank 1 (pid 7)"); `none` for -1 (not in the traces).
  std::string Who(int64_t i, const char* none) const {
    return i >= 0 && static_cast<size_t>(i) < processes.size() ? processes[i].Label() : none;
  }
};

// The ns added to process p's times: `offsets` for its trace, else the recorded CLOCK_REALTIME
// offsets against the first process's where its boot differs (0 on the same boot).
int64_t ProcessOffset(const std::vector<SocketProcess>& procs, size_t p,
                      const std::map<std::string, int64_t>& offsets);

// Pairs the receives with the sends. Several recordings are put on one clock: `offsets` (trace
// -> ns added to its times, comm's clock alignment), else the recorded CLOCK_REALTIME offsets
// against the first process's where its boot differs; then refined by the socket pairs
// (P2pClock).
P2pView MatchSockets(std::vector<SocketProcess> processes, std::vector<SocketEnd> ends,
                     const std::map<std::string, int64_t>& offsets = {});

// Whether any process of `m` may hold TensorFlow's sends or receives (from its names alone).
bool HasRendezvous(const model::TraceModel& m);

// Reads every process's _Send, _Recv and the allocations of received tensors from each trace,
// adding the processes not yet in `processes` (by trace and pid).
void CollectRendezvous(const std::vector<const model::TraceModel*>& traces, unsigned threads,
                       std::vector<SocketProcess>* processes, std::vector<TfSend>* sends,
                       std::vector<TfRecv>* recvs, std::vector<Problem>* problems);

// Pairs TensorFlow's sends and receives into v->rendezvous and v->transfers (v->processes are
// the processes they index): a send's rendezvous key names its receiving device and tensor
// ("edge_10_mul", of producer "mul"); the receiving device's process is the one whose own
// sends name a device of the same task ("/job:worker/replica:0/task:0") as their sending
// device (else the only other process that received a tensor of that producer), and its
// receives of that producer's tensor pair with the key's sends in order. Sends between two
// devices of one task (one process) are left out. Times of several recordings are put on one
// clock as MatchSockets does (`offsets`, then v->clocks, then the recorded CLOCK_REALTIME
// offsets across boots).
void MatchRendezvous(std::vector<TfSend> sends, std::vector<TfRecv> recvs,
                     const std::map<std::string, int64_t>& offsets, P2pView* v);

// The offsets (ns added to a trace's times, beyond those v's transfers were put on with) that
// TensorFlow's transfers between each trace and `reference` allow: a receive is never done
// before its send began. By trace; `pairs`: the transfers that bound it.
struct OffsetBound {
  int64_t low = INT64_MIN, high = INT64_MAX;
  uint64_t pairs = 0;
};
std::map<std::string, OffsetBound> RendezvousBounds(const P2pView& v, const std::string& reference);

}  // namespace tt::analysis
