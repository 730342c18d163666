// What an XSpace event is, in tensortrace's terms: framework op, step, allocation, Python
// call, device activity or another annotation (TraceMe), from its plane, line, name and stats.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "format/layout.h"

namespace tt {

// One stat of an event (its metadata's stats first, then its own), names resolved.
struct XStatValue {
  enum Type { kInt, kUint, kFloat, kString, kBytes };
  std::string_view key;
  Type type = kInt;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  std::string_view s;  // strings, refs (the referenced stat's name) and bytes
};

const XStatValue* FindStat(const std::vector<XStatValue>& stats, std::string_view key);
// The stat as an integer, if it is one.
bool StatInt(const std::vector<XStatValue>& stats, std::string_view key, int64_t* out);

enum class PlaneKind { kHost, kDevice };

struct XEventKind {
  layout::Category category = layout::Category::kUser;
  bool instant = false;  // MemoryAllocation / MemoryDeallocation
  bool step = false;
  int64_t step_number = -1;  // -1: none given (numbered by position)
  bool op = false;           // op_name / op_type are set
  std::string_view op_name, op_type;
};

XEventKind ClassifyXEvent(PlaneKind plane, std::string_view line, std::string_view name,
                          const std::vector<XStatValue>& stats);

// A TraceMe name that still holds its stats, "name#k1=v1,k2=v2#", becomes `name` and string
// stats (pointing into the name's text); commas inside (...) or [...] stay in the value.
void SplitTraceMeName(std::string_view* name, std::vector<XStatValue>* stats);

// "scope/node:OpType" (TensorFlow's op TraceMe, "#k=v#" already split off) into node and type;
// false for other names (e.g. "Iterator::Root", "EagerLocalExecute: MatMul").
bool SplitTfOpName(std::string_view name, std::string_view* op_name, std::string_view* op_type);

// The collective a TensorFlow op type runs ("CollectiveReduceV2" -> "allreduce",
// "CollectiveBcastRecvV2" -> "broadcast", "NcclAllReduce" -> "allreduce"); "" for other ops.
std::string_view TfCollective(std::string_view op_type);

}  // namespace tt
