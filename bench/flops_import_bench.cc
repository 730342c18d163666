// What FLOPs cost record (issue 36): the traced program runs as before (record_shapes was
// already on); what is added is the Kineto import's TorchOpCost per op event, after the
// program ended. This times, in one run, over the same synthetic events (a training loop's
// mix of aten ops, a third of them with a FLOPs formula), parsing each event's JSON, which
// every import does, and computing its FLOPs, output and input bytes, and prints the ratio.
//
// usage: tt_bench_flops_import [EVENTS]   (default 300000)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "format/import/kineto/op_cost.h"

namespace {

const char* kEvents[] = {
    R"({"ph":"X","cat":"cpu_op","name":"aten::addmm","ts":1,"dur":5,"args":{"External id":15,
        "Input type":["float","float","float","Scalar","Scalar"],"Input Dims":[[10],[8,256],
        [256,10],[],[]],"Concrete Inputs":["","","","1","1"]}})",
    R"({"ph":"X","cat":"cpu_op","name":"aten::conv2d","ts":1,"dur":5,"args":{"External id":1,
        "Concrete Inputs":["","","","[2, 2]","[1, 1]","[1, 1]","1"],"Input type":["float",
        "float","float","ScalarList","ScalarList","ScalarList","Scalar"],"Input Dims":[[8,3,16,
        16],[4,3,3,3],[4],[],[],[],[]]}})",
    R"({"ph":"X","cat":"cpu_op","name":"aten::relu","ts":1,"dur":5,"args":{"External id":3,
        "Input type":["float"],"Input Dims":[[8,256]],"Concrete Inputs":[""]}})",
    R"({"ph":"X","cat":"cpu_op","name":"aten::empty","ts":1,"dur":5,"args":{"External id":4,
        "Input type":["ScalarList","Scalar"],"Input Dims":[[],[]],"Concrete Inputs":["[8]",""]}})",
    R"({"ph":"X","cat":"cpu_op","name":"aten::mm","ts":1,"dur":5,"args":{"External id":38,
        "Input type":["float","float"],"Input Dims":[[8,10],[10,256]],"Concrete Inputs":["",
        ""]}})",
    R"({"ph":"X","cat":"cpu_op","name":"aten::view","ts":1,"dur":5,"args":{"External id":5,
        "Input type":["float","ScalarList"],"Input Dims":[[8,256],[]],"Concrete Inputs":["",
        "[8, -1]"]}})",
};

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 300000;
  const size_t kinds = sizeof kEvents / sizeof kEvents[0];
  std::vector<tt::kineto::json> parsed;
  parsed.reserve(n);
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < n; ++i) parsed.push_back(tt::kineto::json::parse(kEvents[i % kinds]));
  double parse_s = Seconds(t0);
  int64_t flops = 0, known = 0;
  auto t1 = std::chrono::steady_clock::now();
  for (const auto& e : parsed) {
    tt::kineto::OpCost c = tt::kineto::TorchOpCost(e["name"].get_ref<const std::string&>(),
                                                   tt::kineto::Field(e, "args"));
    if (c.float_ops >= 0) flops += c.float_ops, ++known;
  }
  double cost_s = Seconds(t1);
  std::printf("events %zu (with FLOPs %lld, %lld FLOPs in all)\n", n, static_cast<long long>(known),
              static_cast<long long>(flops));
  std::printf("parse %.1f ns/event, FLOPs and bytes %.1f ns/event, ratio %.3f\n", parse_s / n * 1e9,
              cost_s / n * 1e9, cost_s / parse_s);
  return 0;
}
