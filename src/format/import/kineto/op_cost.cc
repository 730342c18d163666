// The FLOPs and output bytes of a PyTorch op execution from its recorded shapes (op_cost.h).
// torch's own counts (torch/csrc/profiler/util.cpp, computeFlops): 2*m*k*n for mm and addmm
// (the bias's adds not counted), 2*b*m*k*n for bmm and baddbmm, 2*N*Cout*Cin/groups*out*kernel
// for conv2d, the first input's elements for add and mul.
#include "format/import/kineto/op_cost.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

namespace tt::kineto {

namespace {

using Shape = std::vector<int64_t>;

// Input i's dimensions, when it is a tensor whose every dimension is a sane number.
bool ShapeOf(const json& dims, size_t i, Shape* out) {
  out->clear();
  if (!dims.is_array() || i >= dims.size() || !dims[i].is_array()) return false;
  out->reserve(dims[i].size());
  for (const json& d : dims[i]) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0 || d.get<int64_t>() > (int64_t{1} << 40))
      return false;
    out->push_back(d.get<int64_t>());
  }
  return true;
}

double Numel(const Shape& s) {
  double n = 1;
  for (int64_t d : s) n *= static_cast<double>(d);
  return n;
}

// "Concrete Inputs"[i] as a list of integers: "[2, 2]" or "1"; "True"/"False" as 1/0.
bool IntsOf(const json& concrete, size_t i, Shape* out) {
  out->clear();
  if (!concrete.is_array() || i >= concrete.size() || !concrete[i].is_string()) return false;
  const std::string& s = concrete[i].get_ref<const std::string&>();
  const char *p = s.data(), *end = s.data() + s.size();
  while (p < end) {
    if (*p == ' ' || *p == '[' || *p == ']' || *p == ',') {
      ++p;
      continue;
    }
    int64_t v = 0;
    if (std::string_view(p, static_cast<size_t>(end - p)).starts_with("True")) {
      v = 1, p += 4;
    } else if (std::string_view(p, static_cast<size_t>(end - p)).starts_with("False")) {
      v = 0, p += 5;
    } else {
      auto [next, ec] = std::from_chars(p, end, v);
      if (ec != std::errc() || v < 0 || v > (int64_t{1} << 40)) return false;
      p = next;
    }
    out->push_back(v);
  }
  return !out->empty();
}

// A per-spatial-dimension list (a single value applies to every dimension).
bool Spread(Shape* v, size_t n) {
  if (v->size() == 1) v->resize(n, (*v)[0]);
  return v->size() == n;
}

size_t ElemBytes(const json& types, size_t i) {
  if (!types.is_array() || i >= types.size() || !types[i].is_string()) return 0;
  const std::string& t = types[i].get_ref<const std::string&>();
  if (t == "float") return 4;  // the common case, without DtypeBytes' search
  return DtypeBytes(t);
}

// The bytes of the op's tensor inputs (json_args.h InputBytes, by ElemBytes); 0: unknown.
int64_t TensorInputBytes(const json& dims, const json& types) {
  if (!dims.is_array() || !types.is_array() || dims.size() != types.size()) return 0;
  double total = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!dims[i].is_array() || dims[i].empty()) continue;
    size_t eb = ElemBytes(types, i);
    double n = 1;
    for (const json& d : dims[i]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) return 0;
      n *= static_cast<double>(d.get<int64_t>());
    }
    if (!eb) return 0;
    total += n * static_cast<double>(eb);
  }
  return std::isfinite(total) && total < 9e18 ? static_cast<int64_t>(total) : 0;
}

int64_t Whole(double v) { return std::isfinite(v) && v >= 0 && v < 9e18 ? std::llround(v) : -1; }

int64_t BytesOf(double numel, size_t elem) { return elem ? Whole(numel * elem) : -1; }

// mm (a, b), addmm (bias, a, b), bmm (a, b), baddbmm (bias, a, b): first is a's index.
OpCost MatMul(const json& dims, const json& types, size_t first, size_t rank) {
  Shape a, b;
  OpCost c;
  if (!ShapeOf(dims, first, &a) || !ShapeOf(dims, first + 1, &b) || a.size() != rank ||
      b.size() != rank || a[rank - 1] != b[rank - 2])
    return c;
  double batch = rank == 3 ? static_cast<double>(a[0]) : 1.0;
  double m = static_cast<double>(a[rank - 2]), k = static_cast<double>(a[rank - 1]),
         n = static_cast<double>(b[rank - 1]);
  c.float_ops = Whole(2 * batch * m * k * n);
  c.output_bytes = BytesOf(batch * m * n, ElemBytes(types, first));
  return c;
}

// The output's spatial size of a convolution of `in` (spatial dimensions) by kernel k.
bool ConvOut(const Shape& in, const Shape& k, Shape stride, Shape pad, Shape dil, Shape* out) {
  size_t n = in.size();
  if (k.size() != n || !Spread(&stride, n) || !Spread(&pad, n) || !Spread(&dil, n)) return false;
  out->clear();
  for (size_t i = 0; i < n; ++i) {
    int64_t span = in[i] + 2 * pad[i] - dil[i] * (k[i] - 1) - 1;
    if (stride[i] <= 0 || span < 0) return false;
    out->push_back(span / stride[i] + 1);
  }
  return true;
}

// aten::conv1d/2d/3d (input, weight, bias, stride, padding, dilation, groups).
OpCost Conv(const json& dims, const json& types, const json& concrete) {
  Shape x, w, stride, pad, dil, groups, out;
  OpCost c;
  if (!ShapeOf(dims, 0, &x) || !ShapeOf(dims, 1, &w) || x.size() < 3 || w.size() != x.size() ||
      !IntsOf(concrete, 3, &stride) || !IntsOf(concrete, 4, &pad) || !IntsOf(concrete, 5, &dil) ||
      !IntsOf(concrete, 6, &groups) || groups[0] == 0)
    return c;
  Shape in(x.begin() + 2, x.end()), k(w.begin() + 2, w.end());
  if (!ConvOut(in, k, stride, pad, dil, &out)) return c;
  double per_out = 2 * Numel(k) * static_cast<double>(x[1]) * static_cast<double>(w[0]) /
                   static_cast<double>(groups[0]);
  c.float_ops = Whole(per_out * static_cast<double>(x[0]) * Numel(out));
  c.output_bytes = BytesOf(static_cast<double>(x[0]) * static_cast<double>(w[0]) * Numel(out),
                           ElemBytes(types, 0));
  return c;
}

// aten::convolution_backward (grad_output, input, weight, bias_sizes, stride, padding, dilation,
// transposed, output_padding, groups, output_mask): the input's gradient and the weight's each
// cost the forward convolution's FLOPs, the bias's one add per element of grad_output.
OpCost ConvBackward(const json& dims, const json& types, const json& concrete) {
  Shape gy, x, w, transposed, groups, mask;
  OpCost c;
  if (!ShapeOf(dims, 0, &gy) || !ShapeOf(dims, 1, &x) || !ShapeOf(dims, 2, &w) || x.size() < 3 ||
      gy.size() != x.size() || w.size() != x.size() || !IntsOf(concrete, 7, &transposed) ||
      transposed[0] != 0 || !IntsOf(concrete, 9, &groups) || groups[0] == 0 ||
      !IntsOf(concrete, 10, &mask) || mask.size() != 3)
    return c;
  Shape k(w.begin() + 2, w.end());
  double numel_gy = Numel(gy);
  double fwd = 2 * numel_gy * Numel(k) * static_cast<double>(x[1]) / static_cast<double>(groups[0]);
  c.float_ops = Whole(fwd * static_cast<double>(mask[0] + mask[1]) + (mask[2] ? numel_gy : 0));
  double out = (mask[0] ? Numel(x) : 0) + (mask[1] ? Numel(w) : 0) +
               (mask[2] ? static_cast<double>(w[0]) : 0);
  c.output_bytes = BytesOf(out, ElemBytes(types, 0));
  return c;
}

// add and mul: torch counts the first input's elements; the output is the inputs' broadcast.
OpCost Elementwise(const json& dims, const json& types) {
  Shape a, b;
  OpCost c;
  if (!ShapeOf(dims, 0, &a)) return c;
  c.float_ops = Whole(Numel(a));
  if (ShapeOf(dims, 1, &b) && !b.empty()) {
    if (b.size() > a.size()) std::swap(a, b);
    for (size_t i = 0; i < b.size(); ++i) {
      int64_t& d = a[a.size() - b.size() + i];
      int64_t e = b[i];
      if (d != e && d != 1 && e != 1) return {c.float_ops, false, -1};
      d = std::max(d, e);
    }
  }
  c.output_bytes = BytesOf(Numel(a), ElemBytes(types, 0));
  return c;
}

OpCost FromShapes(std::string_view name, const json& args) {
  const json& dims = Field(args, "Input Dims");
  const json& types = Field(args, "Input type");
  if (name == "aten::mm") return MatMul(dims, types, 0, 2);
  if (name == "aten::addmm") return MatMul(dims, types, 1, 2);
  if (name == "aten::bmm") return MatMul(dims, types, 0, 3);
  if (name == "aten::baddbmm") return MatMul(dims, types, 1, 3);
  if (name == "aten::conv1d" || name == "aten::conv2d" || name == "aten::conv3d")
    return Conv(dims, types, Field(args, "Concrete Inputs"));
  if (name == "aten::convolution_backward")
    return ConvBackward(dims, types, Field(args, "Concrete Inputs"));
  if (name == "aten::add" || name == "aten::mul") return Elementwise(dims, types);
  return {};
}

}  // namespace

OpCost TorchOpCost(std::string_view name, const json& args) {
  if (!name.starts_with("aten::") || !args.is_object()) return {};
  OpCost c = FromShapes(name, args);
  if (c.float_ops >= 0)  // the bytes it reads, for its arithmetic intensity
    if (int64_t in = TensorInputBytes(Field(args, "Input Dims"), Field(args, "Input type")); in > 0)
      c.input_bytes = in;
  // Kineto's own count, when the program profiled with with_flops=True.
  if (int64_t f = JsonInt(Field(args, "flops"), -1); f >= 0) {
    c.float_ops = f;
    c.from_framework = true;
  }
  return c;
}

}  // namespace tt::kineto
