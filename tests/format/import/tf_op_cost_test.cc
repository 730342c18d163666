// The TensorFlow ops' costs the bootstrap saves (tf_op_cost.h, issue 36): counts fixed and per
// row of the batch, the rows of a step's input element, the call prefix of inlined nodes, a
// fused op's count from the nodes it fused (its producers that did not run), unknown never 0.
#include "format/import/xspace/tf_op_cost.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/files.h"
#include "test_util.h"

namespace tt {
namespace {

constexpr char kText[] =
    "# rows 1204\n"
    "seq/conv/convolution\tConv2D\t221184\t16384\t2828\tframework\n"
    "seq/dense/MatMul\tMatMul\t16384/row\t64/row\t32768+2048/row\tshape formula\n"
    "seq/dense/MatMul\tMatMul\t131072\t512\t49152\tframework\n"
    "g/Conv2DBackpropFilter\tConv2DBackpropFilter\t27648/row\t\t\tshape formula\n"
    "bad line\n"
    "y\tMatMul\t3\t1+\t0\tframework\n"
    "x\tMatMul\t-3\t0\t0\tframework\n";

TEST(TfOpCost, ParsesFixedAndPerRowCountsAndRowSizes) {
  size_t bad = 0;
  TfOpCosts c = ParseTfOpCosts(kText, &bad);
  EXPECT_EQ(bad, 3u);
  EXPECT_EQ(c.row_bytes, std::vector<int64_t>{1204});
  EXPECT_EQ(c.fixed.size(), 2u);
  EXPECT_EQ(c.per_row.size(), 2u);
  EXPECT_EQ(TfRowsOf(c, 8 * 1204), 8);
  EXPECT_EQ(TfRowsOf(c, 1205), -1);
}

// The file as record reads it: absent is no costs and no line; bad lines one line; a link or
// a file over the cap one line saying what is lost.
TEST(TfOpCost, FileReadAsUntrustedWithOneLinePerProblem) {
  test::TempDir d;
  std::vector<std::string> errors;
  EXPECT_TRUE(ReadTfOpCosts(d / "none.tsv", 1 << 20, &errors).fixed.empty());
  EXPECT_TRUE(errors.empty());
  WriteFileAtomic(d / "c.tsv", kText, false);
  EXPECT_EQ(ReadTfOpCosts(d / "c.tsv", 1 << 20, &errors).fixed.size(), 2u);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("c.tsv: 3 line(s) not NODE<TAB>OP<TAB>FLOPS"), std::string::npos)
      << errors[0];
  errors.clear();
  EXPECT_TRUE(ReadTfOpCosts(d / "c.tsv", 16, &errors).fixed.empty());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("; its ops' FLOPs are unknown"), std::string::npos) << errors[0];
  errors.clear();
  ASSERT_EQ(symlink((d / "c.tsv").c_str(), (d / "l.tsv").c_str()), 0);
  EXPECT_TRUE(ReadTfOpCosts(d / "l.tsv", 1 << 20, &errors).fixed.empty());
  EXPECT_EQ(errors.size(), 1u);
}

TEST(TfOpCost, CountsPerRowWhereTheRowsAreKnownFixedOtherwise) {
  size_t bad = 0;
  TfOpCosts c = ParseTfOpCosts(kText, &bad);
  // An inlined call's node: the tail after the call prefix.
  TfOpCost m =
      TfCostOf(c, nullptr, nullptr, "StatefulPartitionedCall/seq/dense/MatMul", "_MklMatMul", 4);
  EXPECT_EQ(m.float_ops, 4 * 16384);
  EXPECT_EQ(m.output_bytes, 4 * 64);
  EXPECT_EQ(m.input_bytes, 32768 + 4 * 2048);  // the weight's and the batch's
  EXPECT_FALSE(m.framework);
  m = TfCostOf(c, nullptr, nullptr, "seq/dense/MatMul", "MatMul", -1);
  EXPECT_EQ(m.float_ops, 131072);
  EXPECT_TRUE(m.framework);
  // Per row only, the rows unknown: unknown, not 0.
  EXPECT_EQ(TfCostOf(c, nullptr, nullptr, "g/Conv2DBackpropFilter", "X", -1).float_ops, -1);
  TfOpCost f = TfCostOf(c, nullptr, nullptr, "g/Conv2DBackpropFilter", "X", 2);
  EXPECT_EQ(f.float_ops, 2 * 27648);
  EXPECT_EQ(f.output_bytes, -1);
  EXPECT_EQ(TfCostOf(c, nullptr, nullptr, "seq/dense/Relu", "Relu", 8).float_ops, -1);
}

TEST(TfOpCost, AFusedOpCountsTheNodesItFused) {
  size_t bad = 0;
  TfOpCosts c = ParseTfOpCosts(kText, &bad);
  TfGraphInputs g = ParseTfGraph(
      "seq/dense/Relu\tRelu\tseq/dense/BiasAdd\n"
      "seq/dense/BiasAdd\tBiasAdd\tseq/dense/MatMul\tseq/dense/bias\n"
      "seq/dense/MatMul\tMatMul\tseq/flatten/Reshape\tseq/dense/kernel\n"
      "seq/flatten/Reshape\tReshape\tseq/conv/Relu\n"
      "seq/conv/Relu\tRelu\tseq/conv/BiasAdd\n"
      "seq/conv/BiasAdd\tBiasAdd\tseq/conv/convolution\n",
      &bad);
  std::unordered_set<std::string> ran = {"P/seq/dense/Relu", "P/seq/flatten/Reshape",
                                         "P/seq/conv/Relu"};
  TfOpCost m = TfCostOf(c, &g, &ran, "P/seq/dense/Relu", "_MklNativeFusedMatMul", 8);
  EXPECT_EQ(m.float_ops, 8 * 16384);  // not the convolution: Reshape ran
  TfOpCost v = TfCostOf(c, &g, &ran, "P/seq/conv/Relu", "_FusedConv2D", 8);
  EXPECT_EQ(v.float_ops, 221184);
  EXPECT_TRUE(v.framework);
  // Not a fused type: its own node only.
  EXPECT_EQ(TfCostOf(c, &g, &ran, "P/seq/dense/Relu", "Relu", 8).float_ops, -1);
}

}  // namespace
}  // namespace tt
