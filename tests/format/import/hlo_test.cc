// Reading XLA collectives' sizes from a serialised HloProto (format/import/xspace/hlo.h): a
// hand-built proto with known shapes, and every truncation of it (untrusted input).
#include "format/import/xspace/hlo.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "format/import/xspace/tf_graph.h"
#include "proto_bytes.h"

namespace tt {
namespace {

using test::Field;
using test::Int;
using test::Varint;

// xla.ShapeProto: element_type (2), dimensions (3, packed), tuple_shapes (4).
std::string Shape(uint64_t type, const std::vector<uint64_t>& dims) {
  std::string packed;
  for (uint64_t d : dims) packed += Varint(d);
  return Int(2, type) + Field(3, packed);
}
std::string Instruction(const std::string& name, const std::string& opcode,
                        const std::string& shape) {
  return Field(1, name) + Field(2, opcode) + Field(3, shape);
}

// HloProto { hlo_module { computations { instructions... } } }: an f32[256] all-reduce, an
// all-gather-start of (bf16[4], s64[2, 3]) and an add of f32[256].
std::string Program() {
  constexpr uint64_t kF32 = 11, kBf16 = 16, kS64 = 5, kTuple = 13;
  std::string tuple = Int(2, kTuple) + Field(4, Shape(kBf16, {4})) + Field(4, Shape(kS64, {2, 3}));
  std::string computation =
      Field(1, "main") +
      Field(2, Instruction("psum_invariant.7", "all-reduce", Shape(kF32, {256}))) +
      Field(2, Instruction("all-gather-start.1", "all-gather-start", tuple)) +
      Field(2, Instruction("add.0", "add", Shape(kF32, {256})));
  return Field(1, Field(1, "jit_f") + Field(3, computation));
}

TEST(Hlo, CollectivesOfAHandBuiltProgramWithTheirBytes) {
  HloCollectiveBytes b;
  EXPECT_TRUE(ReadHloCollectives(Program(), 4, &b));
  EXPECT_EQ(b, (HloCollectiveBytes{{{4, "psum_invariant.7"}, 1024},
                                   {{4, "all-gather-start.1"}, 4 * 2 + 6 * 8}}));
  EXPECT_EQ(HloProgramOfName("jit__lambda(4)"), 4);
  EXPECT_EQ(HloProgramOfName("jit_f(123)"), 123);
  for (const char* bad : {"jit_f", "jit_f()", "jit_f(1x)", "(", "", "f(99999999999999999999)"})
    EXPECT_EQ(HloProgramOfName(bad), -1) << bad;
}

TEST(Hlo, EveryTruncationIsReadSafely) {
  std::string p = Program();
  for (size_t n = 0; n < p.size(); ++n) {
    HloCollectiveBytes b;
    ReadHloCollectives(p.substr(0, n), 1, &b);  // may fail; must not crash or invent sizes
    for (const auto& [key, bytes] : b) EXPECT_TRUE(bytes == 1024 || bytes == 56) << n;
  }
  HloCollectiveBytes b;
  EXPECT_FALSE(ReadHloCollectives(std::string("\x0a\xff\xff\xff\xff\x0f", 6), 1, &b));
  EXPECT_TRUE(b.empty());
}

// A program whose instructions give their ids and operands: two parameters, a dot of both
// (operand ids packed), a bitcast of the dot and an add of the bitcast and a parameter (ids
// one by one); a nested computation's instruction refers to its own computation's ids.
std::string WithOperands() {
  auto in = [](const std::string& name, const std::string& opcode, uint64_t id,
               const std::vector<uint64_t>& operands, bool packed) {
    std::string s = Field(1, name) + Field(2, opcode) + Int(35, id);
    std::string list;
    for (uint64_t o : operands) list += packed ? Varint(o) : Int(36, o);
    return s + (packed && !operands.empty() ? Field(36, list) : list);
  };
  std::string main = Field(1, "main") + Field(2, in("p0", "parameter", 1, {}, false)) +
                     Field(2, in("p1", "parameter", 2, {}, false)) +
                     Field(2, in("dot.2", "dot", 3, {1, 2}, true)) +
                     Field(2, in("bitcast.1", "bitcast", 4, {3}, false)) +
                     Field(2, in("add.5", "add", 5, {4, 1}, false));
  std::string fused = Field(1, "fused") + Field(2, in("q", "parameter", 1, {}, false)) +
                      Field(2, in("neg", "negate", 2, {1}, false));
  return Field(1, Field(1, "jit_g") + Field(3, main) + Field(3, fused));
}

TEST(Hlo, OperandsByInstructionNameLookingThroughWhatDidNotRun) {
  HloOperands o;
  ASSERT_TRUE(ReadHloOperands(WithOperands(), 7, &o));
  const auto& g = o[7];
  EXPECT_EQ(g.at("dot.2"), "p0,p1");
  EXPECT_EQ(g.at("bitcast.1"), "dot.2");
  EXPECT_EQ(g.at("add.5"), "bitcast.1,p0");
  EXPECT_EQ(g.at("neg"), "q") << "its own computation's id 1, not main's p0";
  EXPECT_EQ(g.at("p0"), "");
  std::unordered_set<std::string> ran = {"dot.2", "add.5"};
  EXPECT_EQ(TfProducersOf(g, "add.5", &ran), "dot.2") << "through the bitcast; p0 is no op";
  EXPECT_EQ(TfProducersOf(g, "dot.2", &ran), "");
  std::string p = WithOperands();
  for (size_t n = 0; n < p.size(); ++n) {  // every truncation: no crash, no invented operand
    HloOperands t;
    ReadHloOperands(p.substr(0, n), 7, &t);
    for (const auto& [name, list] : t[7])
      EXPECT_TRUE(list.empty() || g.at(name).starts_with(list)) << n << " " << name << " " << list;
  }
}

}  // namespace
}  // namespace tt
