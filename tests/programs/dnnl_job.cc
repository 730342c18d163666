// A program that runs oneDNN primitives (Debian's libdnnl) a known number of times, each call
// inside its own tensortrace range, for the ITT collector's tests:
//   conv_op     convolution    N times
//   dense_op    inner_product  N + 1 times
//   relu_op     eltwise        N + 2 times
//   reorder_op  reorder        N + 3 times
// Usage: tt_dnnl_job [N]   (N defaults to 3)
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"
#include "tensortrace/tensortrace.h"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

memory Filled(const memory::desc& md, const engine& eng, float v) {
  memory m(md, eng);
  auto* p = static_cast<float*>(m.get_data_handle());
  for (size_t i = 0; i < md.get_size() / sizeof(float); ++i) p[i] = v * static_cast<float>(i % 7);
  return m;
}

// Runs `prim` `times` times, each inside a range named `op`.
void Run(const char* op, int times, primitive& prim, stream& s,
         const std::unordered_map<int, memory>& args) {
  for (int i = 0; i < times; ++i) {
    tt_range_push(op);
    prim.execute(s, args);
    s.wait();
    tt_range_pop();
  }
}

}  // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 3;
  if (n < 0) {
    std::fprintf(stderr, "usage: tt_dnnl_job [N >= 0]\n");
    return 2;
  }
  engine eng(engine::kind::cpu, 0);
  stream s(eng);

  // Convolution: 1x3x16x16 input, 8 filters of 3x3, stride 1, padding 1.
  memory::desc conv_src({1, 3, 16, 16}, dt::f32, tag::nchw);
  memory::desc conv_wei({8, 3, 3, 3}, dt::f32, tag::oihw);
  memory::desc conv_dst({1, 8, 16, 16}, dt::f32, tag::nchw);
  convolution_forward::desc conv_d(prop_kind::forward_inference, algorithm::convolution_direct,
                                   conv_src, conv_wei, conv_dst, {1, 1}, {1, 1}, {1, 1});
  convolution_forward conv(convolution_forward::primitive_desc(conv_d, eng));
  memory cs = Filled(conv_src, eng, 0.5f), cw = Filled(conv_wei, eng, 0.25f);
  memory cd(conv_dst, eng);
  Run("conv_op", n, conv, s, {{DNNL_ARG_SRC, cs}, {DNNL_ARG_WEIGHTS, cw}, {DNNL_ARG_DST, cd}});

  // Inner product: 4x64 input to 4x16 output.
  memory::desc ip_src({4, 64}, dt::f32, tag::nc);
  memory::desc ip_wei({16, 64}, dt::f32, tag::oi);
  memory::desc ip_dst({4, 16}, dt::f32, tag::nc);
  inner_product_forward::desc ip_d(prop_kind::forward_inference, ip_src, ip_wei, ip_dst);
  inner_product_forward ip(inner_product_forward::primitive_desc(ip_d, eng));
  memory is = Filled(ip_src, eng, 1.0f), iw = Filled(ip_wei, eng, 0.5f);
  memory id(ip_dst, eng);
  Run("dense_op", n + 1, ip, s, {{DNNL_ARG_SRC, is}, {DNNL_ARG_WEIGHTS, iw}, {DNNL_ARG_DST, id}});

  // ReLU in place on the convolution's output.
  eltwise_forward::desc relu_d(prop_kind::forward_inference, algorithm::eltwise_relu, conv_dst);
  eltwise_forward relu(eltwise_forward::primitive_desc(relu_d, eng));
  Run("relu_op", n + 2, relu, s, {{DNNL_ARG_SRC, cd}, {DNNL_ARG_DST, cd}});

  // Reorder of the convolution's output from NCHW to NHWC.
  memory nhwc({{1, 8, 16, 16}, dt::f32, tag::nhwc}, eng);
  reorder ro(cd, nhwc);
  Run("reorder_op", n + 3, ro, s, {{DNNL_ARG_FROM, cd}, {DNNL_ARG_TO, nhwc}});

  std::printf("dnnl_job: %d conv, %d inner_product, %d relu, %d reorder\n", n, n + 1, n + 2, n + 3);
  return 0;
}
