// The floating-point operations and output bytes of each XLA instruction, from the HLO protos
// a JAX profile holds (hlo.h): XLA's own cost analysis (xla/service/hlo_cost_analysis.cc, what
// jitted.lower(...).compile().cost_analysis()['flops'] sums) done again per instruction, so
// that each op event of the profile has its FLOPs: dot 2 x output elements x contracted size,
// convolution 2 x output elements x kernel window x input features per group, one per output
// element for elementwise arithmetic and comparisons (transcendental functions are XLA's
// "transcendentals", not flops), reduce (input - output elements) x its reducer's, a fusion its
// fused instructions'. Data movement (copy, broadcast, transpose, slice...) is 0; an
// instruction whose cost this does not know (custom calls, while, conditional, calls, sort...)
// and a fusion holding one have none (unknown, never 0).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tt {

struct HloCost {
  int64_t float_ops = -1;     // -1: unknown
  int64_t output_bytes = -1;  // -1: unknown (a tuple: its elements')
  int64_t input_bytes = -1;   // its operands' (-1: unknown)
};

// Per program id: instruction name -> its cost.
using HloCosts = std::map<int64_t, std::unordered_map<std::string, HloCost>>;

// Adds the instructions of one serialised xla.HloProto of program `program`; false where the
// bytes are not a readable HloProto (what was read before stays).
bool ReadHloCosts(std::string_view hlo_proto, int64_t program, HloCosts* out);

}  // namespace tt
