// Each XLA instruction's FLOPs and output bytes from its program's HLO (hlo_cost.h).
#include "format/import/xspace/hlo_cost.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <initializer_list>
#include <vector>

#include "format/import/xspace/hlo_wire.h"

namespace tt {

namespace {

using hlo_wire::Each;
using hlo_wire::ElementBytes;
using hlo_wire::Wire;

struct Shape {
  uint64_t type = 0;
  std::vector<int64_t> dims;
  std::vector<Shape> tuple;
  double Elements() const {
    double n = 1;
    for (int64_t d : dims) n *= static_cast<double>(d);
    return n;
  }
  double Bytes() const {
    if (type == 13) {  // TUPLE
      double b = 0;
      for (const Shape& t : tuple) b += t.Bytes();
      return b;
    }
    int64_t e = ElementBytes(type);
    return e ? Elements() * static_cast<double>(e) : -1;
  }
};

struct Instruction {
  std::string_view name, opcode;
  Shape shape;
  uint64_t id = 0;
  std::vector<uint64_t> operands, called, dims, lhs_contracting;
  std::vector<int64_t> window;  // the kernel's spatial sizes
  int64_t kernel_input_feature = -1, feature_groups = 1;
};

// Repeated varint fields, packed or not.
void Varints(uint32_t type, uint64_t v, std::string_view b, std::vector<uint64_t>* out, bool* ok) {
  if (type == 0) {
    out->push_back(v);
    return;
  }
  Wire p(b);
  uint64_t x = 0;
  while (p.p < p.end && p.Varint(&x)) out->push_back(x);
  if (!p.ok) *ok = false;
}

Shape ReadShape(std::string_view s, int depth, bool* ok) {
  Shape sh;
  Wire w(s);
  uint32_t field, type;
  uint64_t v = 0;
  std::string_view b;
  std::vector<uint64_t> dims;
  while (w.Next(&field, &type, &v, &b))
    if (field == 2 && type == 0)
      sh.type = v;
    else if (field == 3)
      Varints(type, v, b, &dims, ok);
    else if (field == 4 && type == 2 && depth < 8)
      sh.tuple.push_back(ReadShape(b, depth + 1, ok));
  for (uint64_t d : dims) sh.dims.push_back(d > (uint64_t{1} << 40) ? int64_t{1} << 40 : d);
  if (!w.ok) *ok = false;
  return sh;
}

// A message's repeated varint field `want`.
std::vector<uint64_t> VarintField(std::string_view msg, uint32_t want, bool* ok) {
  std::vector<uint64_t> out;
  Wire w(msg);
  uint32_t field, type;
  uint64_t v = 0;
  std::string_view b;
  while (w.Next(&field, &type, &v, &b))
    if (field == want) Varints(type, v, b, &out, ok);
  if (!w.ok) *ok = false;
  return out;
}

// xla.Window: its dimensions' (1) sizes (1).
std::vector<int64_t> WindowSizes(std::string_view window, bool* ok) {
  std::vector<int64_t> sizes;
  *ok &= Each(window, 1, [&](std::string_view dim) {
    std::vector<uint64_t> s = VarintField(dim, 1, ok);
    sizes.push_back(s.empty() ? 1 : static_cast<int64_t>(s[0]));
  });
  return sizes;
}

// xla.HloInstructionProto: name (1), opcode (2), shape (3), dimensions (14), window (15),
// convolution_dimension_numbers (16: kernel_input_feature_dimension 3), dot_dimension_numbers
// (30: lhs_contracting_dimensions 1), id (35), operand_ids (36), called_computation_ids (38),
// feature_group_count (50).
Instruction ReadInstruction(std::string_view in, bool* ok) {
  Instruction i;
  Wire w(in);
  uint32_t field, type;
  uint64_t v = 0;
  std::string_view b;
  while (w.Next(&field, &type, &v, &b)) {
    if (type == 2 && field == 1) i.name = b;
    if (type == 2 && field == 2) i.opcode = b;
    if (type == 2 && field == 3) i.shape = ReadShape(b, 0, ok);
    if (field == 14) Varints(type, v, b, &i.dims, ok);
    if (type == 2 && field == 15) i.window = WindowSizes(b, ok);
    if (type == 2 && field == 16) {
      std::vector<uint64_t> f = VarintField(b, 3, ok);
      if (!f.empty()) i.kernel_input_feature = static_cast<int64_t>(f[0]);
    }
    if (type == 2 && field == 30) i.lhs_contracting = VarintField(b, 1, ok);
    if (type == 0 && field == 35) i.id = v;
    if (field == 36) Varints(type, v, b, &i.operands, ok);
    if (field == 38) Varints(type, v, b, &i.called, ok);
    if (type == 0 && field == 50) i.feature_groups = v ? static_cast<int64_t>(v) : 1;
  }
  if (!w.ok) *ok = false;
  return i;
}

bool OneOf(std::string_view op, std::initializer_list<std::string_view> list) {
  for (std::string_view x : list)
    if (op == x) return true;
  return false;
}

// XLA's elementwise ops that count one flop per output element.
bool Arithmetic(std::string_view op) {
  return OneOf(op, {"add",
                    "subtract",
                    "multiply",
                    "divide",
                    "maximum",
                    "minimum",
                    "negate",
                    "abs",
                    "compare",
                    "clamp",
                    "select",
                    "remainder",
                    "sign",
                    "floor",
                    "ceil",
                    "round-nearest-afz",
                    "round-nearest-even",
                    "and",
                    "or",
                    "xor",
                    "not",
                    "convert",
                    "shift-left",
                    "shift-right-logical",
                    "shift-right-arithmetic",
                    "is-finite",
                    "real",
                    "imag",
                    "complex",
                    "popcnt",
                    "clz",
                    "reduce-precision"});
}

// No flops: moving or naming data, communicating, and the transcendental functions (XLA's
// "transcendentals").
bool NoFlops(std::string_view op) {
  return OneOf(op, {"parameter",
                    "constant",
                    "broadcast",
                    "reshape",
                    "transpose",
                    "copy",
                    "bitcast",
                    "slice",
                    "dynamic-slice",
                    "dynamic-update-slice",
                    "concatenate",
                    "pad",
                    "iota",
                    "tuple",
                    "get-tuple-element",
                    "reverse",
                    "gather",
                    "scatter",
                    "copy-start",
                    "copy-done",
                    "bitcast-convert",
                    "partition-id",
                    "replica-id",
                    "after-all",
                    "opt-barrier",
                    "domain",
                    "add-dependency",
                    "rng-get-and-update-state",
                    "exp",
                    "log",
                    "log-plus-one",
                    "exponential-minus-one",
                    "rsqrt",
                    "sqrt",
                    "cbrt",
                    "tanh",
                    "sine",
                    "cosine",
                    "tan",
                    "atan2",
                    "logistic",
                    "erf",
                    "power",
                    "all-reduce-done",
                    "all-gather-done",
                    "collective-permute-done",
                    "send-done",
                    "recv-done",
                    "send",
                    "recv",
                    "infeed",
                    "outfeed"});
}

class Program {
 public:
  void Add(uint64_t computation, std::vector<Instruction> ins) {
    for (auto& i : ins) {
      Instruction& x = ins_.emplace_back(std::move(i));
      by_id_[x.id] = &x;
      computations_[computation].push_back(&x);
    }
  }
  // -1: unknown.
  double Flops(const Instruction& i, int depth) {
    if (depth > 16) return -1;
    std::string_view op = i.opcode;
    if (NoFlops(op)) return 0;
    if (Arithmetic(op)) return i.shape.Elements();
    if (op == "dot") {
      const Instruction* lhs = Operand(i, 0);
      if (!lhs) return -1;
      double k = 1;
      for (uint64_t d : i.lhs_contracting)
        k *= d < lhs->shape.dims.size() ? static_cast<double>(lhs->shape.dims[d]) : 1;
      return 2 * i.shape.Elements() * k;
    }
    if (op == "convolution") {
      const Instruction* kernel = Operand(i, 1);
      if (!kernel || i.kernel_input_feature < 0 ||
          static_cast<size_t>(i.kernel_input_feature) >= kernel->shape.dims.size())
        return -1;
      double window = 1;
      for (int64_t s : i.window) window *= static_cast<double>(s);
      return 2 * i.shape.Elements() * window *
             static_cast<double>(kernel->shape.dims[i.kernel_input_feature]);
    }
    if (op == "reduce" || op == "reduce-window") {
      const Instruction* in = Operand(i, 0);
      double per = i.called.empty() ? -1 : ComputationFlops(i.called[0], depth + 1);
      if (!in || per < 0) return -1;
      double n = op == "reduce" ? in->shape.Elements() - Outputs(i) : Outputs(i) * Window(i);
      return std::max(0.0, n) * per;
    }
    if (op == "fusion" && !i.called.empty()) return ComputationFlops(i.called[0], depth + 1);
    return -1;
  }
  const std::deque<Instruction>& instructions() const { return ins_; }

  // The bytes of its operands (-1: one's unknown).
  double OperandBytes(const Instruction& i) const {
    double sum = 0;
    for (size_t n = 0; n < i.operands.size(); ++n) {
      const Instruction* o = Operand(i, n);
      double b = o ? o->shape.Bytes() : -1;
      if (b < 0) return -1;
      sum += b;
    }
    return sum;
  }

 private:
  const Instruction* Operand(const Instruction& i, size_t n) const {
    if (n >= i.operands.size()) return nullptr;
    auto it = by_id_.find(i.operands[n]);
    return it == by_id_.end() ? nullptr : it->second;
  }
  // A reduce's outputs (a variadic reduce's tuple: its first element's).
  static double Outputs(const Instruction& i) {
    return i.shape.type == 13 && !i.shape.tuple.empty() ? i.shape.tuple[0].Elements()
                                                        : i.shape.Elements();
  }
  static double Window(const Instruction& i) {
    double w = 1;
    for (int64_t s : i.window) w *= static_cast<double>(s);
    return w;
  }
  double ComputationFlops(uint64_t c, int depth) {
    auto it = computations_.find(c);
    if (it == computations_.end()) return -1;
    double sum = 0;
    for (const Instruction* i : it->second) {
      double f = Flops(*i, depth);
      if (f < 0) return -1;
      sum += f;
    }
    return sum;
  }
  std::deque<Instruction> ins_;
  std::unordered_map<uint64_t, const Instruction*> by_id_;
  std::unordered_map<uint64_t, std::vector<const Instruction*>> computations_;
};

int64_t Whole(double v) { return std::isfinite(v) && v >= 0 && v < 9e18 ? std::llround(v) : -1; }

}  // namespace

bool ReadHloCosts(std::string_view hlo_proto, int64_t program, HloCosts* out) {
  bool ok = true;
  Program p;
  // HloProto.hlo_module (1) -> HloModuleProto.computations (3) -> HloComputationProto: id (5),
  // instructions (2).
  ok &= Each(hlo_proto, 1, [&](std::string_view module) {
    ok &= Each(module, 3, [&](std::string_view computation) {
      std::vector<uint64_t> id = VarintField(computation, 5, &ok);
      std::vector<Instruction> ins;
      ok &= Each(computation, 2,
                 [&](std::string_view in) { ins.push_back(ReadInstruction(in, &ok)); });
      p.Add(id.empty() ? 0 : id[0], std::move(ins));
    });
  });
  auto& names = (*out)[program];
  for (const Instruction& i : p.instructions()) {
    if (i.name.empty()) continue;
    HloCost c;
    c.float_ops = Whole(p.Flops(i, 0));
    c.output_bytes = Whole(i.shape.Bytes());
    c.input_bytes = Whole(p.OperandBytes(i));
    names[std::string(i.name)] = c;
  }
  return ok;
}

}  // namespace tt
