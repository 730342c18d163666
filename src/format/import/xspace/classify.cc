#include "format/import/xspace/classify.h"

#include <cctype>
#include <charconv>
#include <utility>

#include "format/keys.h"

namespace tt {

using layout::Category;

const XStatValue* FindStat(const std::vector<XStatValue>& stats, std::string_view key) {
  // The event's own stats come last and win over its metadata's.
  for (auto it = stats.rbegin(); it != stats.rend(); ++it)
    if (it->key == key) return &*it;
  return nullptr;
}

bool StatInt(const std::vector<XStatValue>& stats, std::string_view key, int64_t* out) {
  const XStatValue* s = FindStat(stats, key);
  if (!s) return false;
  if (s->type == XStatValue::kInt)
    *out = s->i;
  else if (s->type == XStatValue::kUint)
    *out = static_cast<int64_t>(s->u);
  else
    return false;
  return true;
}

bool SplitTfOpName(std::string_view name, std::string_view* op_name, std::string_view* op_type) {
  name = name.substr(0, name.find('#'));
  if (name.find(' ') != std::string_view::npos || name.find("::") != std::string_view::npos)
    return false;
  size_t c = name.rfind(':');
  if (c == std::string_view::npos || c == 0 || c + 1 >= name.size()) return false;
  std::string_view type = name.substr(c + 1);
  // Op types are identifiers: MatMul, _MklMatMul, AddV2.
  if (!std::isupper(static_cast<unsigned char>(type[0])) && type[0] != '_') return false;
  for (char ch : type)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
  *op_name = name.substr(0, c);
  *op_type = type;
  return true;
}

void SplitTraceMeName(std::string_view* name, std::vector<XStatValue>* stats) {
  size_t h = name->find('#');
  if (h == std::string_view::npos || h == 0) return;
  std::string_view suffix = name->substr(h + 1);
  *name = name->substr(0, h);
  if (!suffix.empty() && suffix.back() == '#') suffix.remove_suffix(1);
  while (!suffix.empty()) {
    size_t comma = std::string_view::npos;
    for (size_t i = 0, depth = 0; i < suffix.size() && comma == std::string_view::npos; ++i) {
      if (suffix[i] == '(' || suffix[i] == '[')
        depth++;
      else if ((suffix[i] == ')' || suffix[i] == ']') && depth)
        depth--;
      else if (suffix[i] == ',' && depth == 0)
        comma = i;
    }
    std::string_view kv = suffix.substr(0, comma);
    size_t eq = kv.find('=');
    if (eq != std::string_view::npos && eq > 0) {
      XStatValue v;
      v.key = kv.substr(0, eq);
      v.type = XStatValue::kString;
      v.s = kv.substr(eq + 1);
      stats->push_back(v);
    }
    suffix = comma == std::string_view::npos ? std::string_view() : suffix.substr(comma + 1);
  }
}

std::string_view TfCollective(std::string_view t) {
  static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
      {"CollectiveReduceScatter", "reducescatter"},
      {"CollectiveReduce", "allreduce"},
      {"CollectiveGather", "allgather"},
      {"CollectiveBcast", "broadcast"},
      {"CollectiveAllToAll", "alltoall"},
      {"NcclAllReduce", "allreduce"},
      {"NcclReduce", "reduce"},
      {"NcclBroadcast", "broadcast"},
  };
  for (const auto& [prefix, collective] : kTypes)
    if (t.starts_with(prefix)) return collective;
  return {};
}

static bool ParseInt(std::string_view s, int64_t* out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Root events that mark a training step: TensorFlow's and JAX's step annotations (Keras 2
// too), tf.compat.v1 Session::Run, and Keras 3's step functions (its TraceMe per call).
static bool IsStepName(std::string_view n) {
  return n == "train" || n == "test" || n == "predict" || n == "TraceContext" ||
         n == "SessionRun" || n == "Session::Run" || n == "multi_step_on_iterator" ||
         n == "one_step_on_iterator" || n == "one_step_on_data" ||
         n == "one_step_on_data_distributed";  // Keras 3 predict
}

XEventKind ClassifyXEvent(PlaneKind plane, std::string_view line, std::string_view name,
                          const std::vector<XStatValue>& stats) {
  XEventKind k;
  int64_t n;
  if (plane == PlaneKind::kDevice) {
    if (line == "Steps") {
      k.category = Category::kStep;
      k.step = true;
      if (ParseInt(name, &n) || StatInt(stats, keys::xstat::kStepNum, &n) ||
          StatInt(stats, keys::xstat::kGroupId, &n))
        k.step_number = n;
    } else if (line == "XLA Modules") {
      k.category = Category::kUser;
    } else if (line == "TensorFlow Ops" || line == "TensorFlow Name Scope" ||
               line == "Framework Ops") {
      k.category = Category::kFrameworkOp;
      k.op = SplitTfOpName(name, &k.op_name, &k.op_type);
    } else if (name.find("emcpy") != std::string_view::npos ||
               name.find("MemcpyH2D") != std::string_view::npos) {
      k.category = Category::kMemcpy;
    } else if (name.find("emset") != std::string_view::npos) {
      k.category = Category::kMemset;
    } else {
      k.category = Category::kGpuKernel;  // kernels, and XLA ops run on the device
    }
    return k;
  }
  if (name == keys::kMemoryAllocation || name == keys::kMemoryDeallocation) {
    k.category = Category::kAllocation;
    k.instant = true;
    return k;
  }
  if (IsStepName(name) ||
      (FindStat(stats, keys::xstat::kStepNum) && FindStat(stats, keys::xstat::kRootLevel))) {
    k.category = Category::kStep;
    k.step = true;
    if (StatInt(stats, keys::xstat::kStepNum, &n) || StatInt(stats, keys::xstat::kIterNum, &n) ||
        (name == "SessionRun" && StatInt(stats, keys::xstat::kId, &n)))
      k.step_number = n;
    return k;
  }
  if (SplitTfOpName(name, &k.op_name, &k.op_type)) {
    k.category = Category::kFrameworkOp;
    k.op = true;
    return k;
  }
  // XLA ops run by the CPU client (JAX, tf.function(jit_compile=True)) carry their HLO op.
  if (const XStatValue* hlo = FindStat(stats, keys::xstat::kHloOp);
      (hlo && hlo->type == XStatValue::kString && hlo->s == name) || line == "XLA Ops") {
    k.category = Category::kFrameworkOp;
    k.op = true;
    k.op_name = name;
    const XStatValue* cat = FindStat(stats, keys::xstat::kHloCategory);
    k.op_type = cat && cat->type == XStatValue::kString ? cat->s : name;
    return k;
  }
  if (!name.empty() && name[0] == '$') k.category = Category::kPython;  // the Python tracer
  return k;
}

}  // namespace tt
