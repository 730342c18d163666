// The parts of a framework op name "scope/node:OpType#k=v#": its type and its scope path.
#pragma once
#include <string>
#include <vector>

namespace tt::analysis {

// Op type of a framework op name "scope/node:OpType" (or "node:OpType#shape=...#"), an eager
// op "EagerLocalExecute: OpType" or an XLA instruction "fusion.3" (model::OpTypeOf); the whole
// name when there is no type.
std::string OpType(const std::string& name);
// The scope path of an op name: "a/b/c:T" -> {"a", "b", "c"}.
std::vector<std::string> ScopePath(const std::string& name);

}  // namespace tt::analysis
