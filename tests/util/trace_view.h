// A test's view of a trace: every event decoded, names resolved, grouped by process.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "format/reader.h"

namespace tt::test {

struct Ev {
  uint8_t id;
  uint64_t ts;
  std::string name;  // resolved name (slices, instants, counters), or string payload
  layout::Category category;
  double value;
  uint64_t u64;
  uint64_t duration;
  std::vector<Arg> args;
  bool classed;  // written as an event class's values
  uint64_t tid;
  std::string file;
};

struct ProcView {
  ProcessMeta meta;
  std::vector<Ev> events;  // stream by stream, each in time order
  std::map<uint32_t, std::string> names;
  uint64_t discarded = 0;
  std::map<uint64_t, std::string> thread_names;  // tid -> last name
  size_t Count(uint8_t id, const std::string& name = "") const;
  // The process's own drop summary when it wrote one (it also counts drops that happened
  // where no packet could record them), else the streams' counts.
  uint64_t Drops() const;
};

struct TraceView {
  std::vector<ProcView> procs;
  std::vector<Problem> problems;
  size_t total_events = 0;
  const ProcView* FindByCmdline(const std::string& needle) const;
};

TraceView LoadTrace(const std::string& dir);

// A stream file read as a chain of packets from its start, each as long as its header says.
struct PacketChain {
  uint64_t end = 0;  // where the chain stops: the file's size when it reaches it
  uint64_t size = 0;  // the file's
  uint64_t packets = 0;
  uint64_t last_size = 0, last_content = 0;  // bytes, of the last packet
  bool magic = true;                         // every packet starts with the magic number
};
PacketChain ReadPacketChain(const std::string& file);
// The stream files (all but metadata) of the process directories p* under a trace directory.
std::vector<std::string> StreamFiles(const std::string& dir);

}  // namespace tt::test
