// Each XLA instruction's FLOPs and output bytes from a serialised HloProto (format/import/
// xspace/hlo_cost.h), as XLA's cost analysis counts them: a hand-built program with a fusion
// of a dot and an add, a reduce by a scalar add, a copy, a custom call and a fusion holding one;
// and every truncation of it read safely (untrusted input).
#include "format/import/xspace/hlo_cost.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "proto_bytes.h"

namespace tt {
namespace {

using test::Field;
using test::Int;
using test::Varint;

constexpr uint64_t kF32 = 11;
std::string Shape(const std::vector<uint64_t>& dims) {
  std::string packed;
  for (uint64_t d : dims) packed += Varint(d);
  return Int(2, kF32) + Field(3, packed);
}
// An instruction: name (1), opcode (2), shape (3), id (35), operand ids (36), called
// computations (38), and any other fields.
std::string In(const std::string& name, const std::string& opcode,
               const std::vector<uint64_t>& dims, uint64_t id,
               const std::vector<uint64_t>& operands, const std::vector<uint64_t>& called = {},
               const std::string& more = "") {
  std::string s = Field(1, name) + Field(2, opcode) + Field(3, Shape(dims)) + Int(35, id);
  for (uint64_t o : operands) s += Int(36, o);
  for (uint64_t c : called) s += Int(38, c);
  return Field(2, s + more);
}
std::string Computation(uint64_t id, const std::string& name, const std::string& instructions) {
  return Field(3, Field(1, name) + Int(5, id) + instructions);
}

std::string Program() {
  std::string dot_dims = Field(30, Int(1, 1));  // lhs_contracting_dimensions {1}
  std::string fused =
      Computation(2, "fused_computation",
                  In("p0", "parameter", {8, 16}, 20, {}) + In("p1", "parameter", {16, 4}, 21, {}) +
                      In("dot.0", "dot", {8, 4}, 22, {20, 21}, {}, dot_dims) +
                      In("add.0", "add", {8, 4}, 23, {22, 22}));
  std::string scalar_add =
      Computation(3, "region_0",
                  In("x", "parameter", {}, 30, {}) + In("y", "parameter", {}, 31, {}) +
                      In("sum", "add", {}, 32, {30, 31}));
  std::string with_call = Computation(
      4, "fused_call",
      In("q", "parameter", {8, 4}, 40, {}) + In("cc.0", "custom-call", {8, 4}, 41, {40}));
  std::string entry =
      Computation(1, "main",
                  In("a", "parameter", {8, 16}, 10, {}) + In("b", "parameter", {16, 4}, 11, {}) +
                      In("fusion.1", "fusion", {8, 4}, 12, {10, 11}, {2}) +
                      In("custom-call.1", "custom-call", {8, 4}, 13, {12}) +
                      In("copy.1", "copy", {8, 4}, 14, {12}) + In("zero", "constant", {}, 15, {}) +
                      In("reduce.1", "reduce", {8}, 16, {12, 15}, {3}, Int(14, 1)) +
                      In("fusion.2", "fusion", {8, 4}, 17, {12}, {4}));
  return Field(1, Field(1, "jit_f") + fused + scalar_add + with_call + entry);
}

TEST(HloCost, FlopsAsXlasCostAnalysisCountsThem) {
  HloCosts c;
  ASSERT_TRUE(ReadHloCosts(Program(), 7, &c));
  auto& p = c[7];
  EXPECT_EQ(p["dot.0"].float_ops, 2 * 8 * 4 * 16);
  EXPECT_EQ(p["fusion.1"].float_ops, 2 * 8 * 4 * 16 + 8 * 4);  // its dot and its add
  EXPECT_EQ(p["fusion.1"].output_bytes, 8 * 4 * 4);
  EXPECT_EQ(p["fusion.1"].input_bytes, (8 * 16 + 16 * 4) * 4);
  EXPECT_EQ(p["reduce.1"].float_ops, 8 * 4 - 8);  // one add per element folded
  EXPECT_EQ(p["copy.1"].float_ops, 0);
  EXPECT_EQ(p["custom-call.1"].float_ops, -1);  // unknown, never 0
  EXPECT_EQ(p["fusion.2"].float_ops, -1);       // it holds a custom call
}

TEST(HloCost, EveryTruncationIsReadSafely) {
  std::string p = Program();
  for (size_t n = 0; n < p.size(); ++n) {
    HloCosts c;
    ReadHloCosts(p.substr(0, n), 1, &c);  // may fail; must not crash
    for (const auto& [name, cost] : c[1]) EXPECT_LE(cost.float_ops, 2 * 8 * 4 * 16 + 8 * 4);
  }
  HloCosts c;
  EXPECT_FALSE(ReadHloCosts(std::string("\x0a\xff\xff\xff\xff\x0f", 6), 1, &c));
}

}  // namespace
}  // namespace tt
