// The sizes of XLA's collective instructions, and every instruction's operands, from the HLO
// protos a JAX (XLA) profile holds in
// its XSpace's "/host:metadata" plane ("Hlo Proto" bytes, one per compiled program): XSpace's
// events name an instruction and its program, not its shape. Read with a small protobuf wire
// reader (the profile is untrusted input: bounded, never trusted to be well formed).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tt {

// (program id, instruction name) -> the bytes of the instruction's result shape (a tuple's
// elements added), for collective instructions (all-reduce, all-gather, reduce-scatter,
// all-to-all, collective-permute, their -start halves, collective-broadcast).
using HloCollectiveBytes = std::map<std::pair<int64_t, std::string>, int64_t>;

// Adds the collective instructions of one serialised xla.HloProto of program `program`;
// false where the bytes are not a readable HloProto (what was read before stays).
bool ReadHloCollectives(std::string_view hlo_proto, int64_t program, HloCollectiveBytes* out);

// Per program id, each instruction's operands (in every computation of the program):
// instruction name -> its operands' names, comma-separated, in order (the shape TfProducersOf
// reads: replay's edges between XLA ops, looking through instructions that run as no op of
// their own, parameters, bitcasts, tuples).
using HloOperands = std::map<int64_t, std::unordered_map<std::string, std::string>>;

// Adds the instructions of one serialised xla.HloProto of program `program`; false where the
// bytes are not a readable HloProto (what was read before stays).
bool ReadHloOperands(std::string_view hlo_proto, int64_t program, HloOperands* out);

// An XSpace metadata event's program id: "jit_f(12)" -> 12; -1 when the name ends otherwise.
int64_t HloProgramOfName(std::string_view name);

}  // namespace tt
