// A PyTorch op's FLOPs and output bytes from the shapes Kineto records (format/import/kineto/
// op_cost.h). The arguments are Kineto's own, copied from a torch 2.x profile with
// record_shapes=True; the expected FLOPs are what torch.profiler(with_flops=True) counted for
// the same events (key_averages), the others the formulas' by hand.
#include <gtest/gtest.h>

#include "format/import/kineto/op_cost.h"

namespace tt::kineto {
namespace {

OpCost Cost(const char* name, const char* args) { return TorchOpCost(name, json::parse(args)); }

TEST(KinetoOpCost, MatrixProductsAsTorchCountsThem) {
  // F.linear(x[8,256], W[10,256]) -> addmm(bias, x, W^T): 2*8*256*10.
  OpCost addmm =
      Cost("aten::addmm", R"({"Input type": ["float", "float", "float", "Scalar", "Scalar"],
      "Input Dims": [[10], [8, 256], [256, 10], [], []]})");
  EXPECT_EQ(addmm.float_ops, 40960);
  EXPECT_EQ(addmm.output_bytes, 8 * 10 * 4);
  EXPECT_EQ(addmm.input_bytes, (10 + 8 * 256 + 256 * 10) * 4);  // the Scalars are no tensors
  EXPECT_FALSE(addmm.from_framework);
  OpCost mm = Cost("aten::mm", R"({"Input type": ["float", "float"],
      "Input Dims": [[8, 10], [10, 256]]})");
  EXPECT_EQ(mm.float_ops, 40960);
  EXPECT_EQ(mm.output_bytes, 8 * 256 * 4);
  OpCost bmm = Cost("aten::bmm", R"({"Input type": ["c10::BFloat16", "c10::BFloat16"],
      "Input Dims": [[2, 5, 7], [2, 7, 3]]})");
  EXPECT_EQ(bmm.float_ops, 420);
  EXPECT_EQ(bmm.output_bytes, 2 * 5 * 3 * 2);
  OpCost baddbmm = Cost("aten::baddbmm", R"({"Input type": ["float", "float", "float", "Scalar",
      "Scalar"], "Input Dims": [[2, 5, 3], [2, 5, 7], [2, 7, 3], [], []]})");
  EXPECT_EQ(baddbmm.float_ops, 420);
}

TEST(KinetoOpCost, ConvolutionsFromShapesAndConcreteInputs) {
  // Conv2d(3, 4, 3, stride=2, padding=1) on [8, 3, 16, 16]: out 8x8, 2*8*64*(3*3*3)*4.
  OpCost conv2d = Cost("aten::conv2d", R"({"Concrete Inputs": ["", "", "", "[2, 2]", "[1, 1]",
      "[1, 1]", "1"], "Input type": ["float", "float", "float", "ScalarList", "ScalarList",
      "ScalarList", "Scalar"], "Input Dims": [[8, 3, 16, 16], [4, 3, 3, 3], [4], [], [], [], []]})");
  EXPECT_EQ(conv2d.float_ops, 110592);
  EXPECT_EQ(conv2d.output_bytes, 8 * 4 * 8 * 8 * 4);
  // conv1d [2, 3, 10] by [4, 3, 3]: out 8, 2*2*8*3*3*4; torch counts none.
  OpCost conv1d = Cost("aten::conv1d", R"({"Concrete Inputs": ["", "", "", "[1]", "[0]", "[1]",
      "1"], "Input type": ["float", "float", "", "ScalarList", "ScalarList", "ScalarList",
      "Scalar"], "Input Dims": [[2, 3, 10], [4, 3, 3], [], [], [], [], []]})");
  EXPECT_EQ(conv1d.float_ops, 2 * 2 * 8 * 3 * 3 * 4);
  // Its backward: the input's and the weight's gradients each the forward's, the bias's one
  // add per grad_output element.
  OpCost back = Cost("aten::convolution_backward", R"({"Concrete Inputs": ["", "", "", "[4]",
      "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "[True, True, True]"],
      "Input type": ["float", "float", "float", "ScalarList", "ScalarList", "ScalarList",
      "ScalarList", "Scalar", "ScalarList", "Scalar", "ScalarList"],
      "Input Dims": [[8, 4, 8, 8], [8, 3, 16, 16], [4, 3, 3, 3], [], [], [], [], [], [], [], []]})");
  EXPECT_EQ(back.float_ops, 2 * 110592 + 8 * 4 * 8 * 8);
  EXPECT_EQ(back.output_bytes, (8 * 3 * 16 * 16 + 4 * 3 * 3 * 3 + 4) * 4);
  OpCost weight_only = Cost("aten::convolution_backward", R"({"Concrete Inputs": ["", "", "",
      "[4]", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "[False, True, False]"],
      "Input type": ["float", "float", "float"],
      "Input Dims": [[8, 4, 8, 8], [8, 3, 16, 16], [4, 3, 3, 3], [], [], [], [], [], [], [], []]})");
  EXPECT_EQ(weight_only.float_ops, 110592);
}

TEST(KinetoOpCost, ElementwiseAndTheFrameworksOwnCount) {
  OpCost mul = Cost("aten::mul", R"({"Input type": ["float", "long int"],
      "Input Dims": [[5, 7], []]})");
  EXPECT_EQ(mul.float_ops, 35);
  EXPECT_EQ(mul.output_bytes, 35 * 4);
  OpCost add = Cost("aten::add", R"({"Input type": ["float", "float", "Scalar"],
      "Input Dims": [[5, 1], [3, 1, 7], []]})");
  EXPECT_EQ(add.float_ops, 5);
  EXPECT_EQ(add.output_bytes, 3 * 5 * 7 * 4);
  OpCost with_flops = Cost("aten::mm", R"({"flops": 1234, "Input Dims": [[2, 3], [3, 4]],
      "Input type": ["float", "float"]})");
  EXPECT_EQ(with_flops.float_ops, 1234);
  EXPECT_TRUE(with_flops.from_framework);
}

TEST(KinetoOpCost, UnknownWhereTheShapesDoNotTell) {
  EXPECT_EQ(Cost("aten::relu", R"({"Input Dims": [[5, 7]], "Input type": ["float"]})").float_ops,
            -1);
  EXPECT_EQ(Cost("aten::mm", R"({"Input Dims": [[5, 7], [6, 3]]})").float_ops, -1);  // 7 != 6
  EXPECT_EQ(Cost("aten::mm", R"({"Input Dims": [[5, -7], [-7, 3]]})").float_ops, -1);
  EXPECT_EQ(Cost("aten::mm", R"({"Input Dims": [[5, 7], [7, 3]]})").output_bytes, -1);  // no type
  EXPECT_EQ(Cost("aten::conv2d", R"({"Input Dims": [[8, 3, 16, 16], [4, 3, 3, 3]]})").float_ops,
            -1);  // no stride or padding
  EXPECT_EQ(Cost("aten::mm", R"({"Input Dims": [[1099511627776, 1099511627776],
      [1099511627776, 1099511627776]]})")
                .float_ops,
            -1);  // past int64
  EXPECT_EQ(Cost("aten::mm", "[1, 2]").float_ops, -1);
}

}  // namespace
}  // namespace tt::kineto
