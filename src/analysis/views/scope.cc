// The scope view (tfprof's scope view): the op name hierarchy "a/b/c:T" as a tree whose every
// node sums its subtree.
#include <algorithm>
#include <map>
#include <set>

#include "analysis/pass/op_names.h"
#include "analysis/views/op_rows.h"
#include "format/module_params.h"

namespace tt::analysis {

namespace {

void InsertScope(std::vector<Row>* level, const std::vector<std::string>& path, size_t i,
                 const Row& leaf) {
  if (i >= path.size()) return;
  auto it =
      std::find_if(level->begin(), level->end(), [&](const Row& r) { return r.name == path[i]; });
  if (it == level->end()) {
    level->push_back(Row{});
    it = level->end() - 1;
    it->name = path[i];
  }
  it->incl.Merge(leaf.incl);
  it->self_ns += leaf.self_ns;
  it->cpu_ns += leaf.cpu_ns;
  it->accel_ns += leaf.accel_ns;
  it->bytes += leaf.bytes;
  it->peak_bytes = std::max(it->peak_bytes, leaf.peak_bytes);
  it->residual_bytes += leaf.residual_bytes;
  it->costs.Merge(leaf.costs);
  InsertScope(&it->children, path, i + 1, leaf);
}

void SetTreeShares(std::vector<Row>* rows, uint64_t total) {
  for (auto& x : *rows) {
    x.share = total ? static_cast<double>(x.self_ns) / total : 0;
    SetTreeShares(&x.children, total);
  }
}

std::string FullName(const std::string& name) { return name; }

// PyTorch ops with the module around them: "Sequential/Conv2d_0/aten::conv2d" (the others by
// name). False when no op has a module.
bool ModuleRows(Aggregates& a, Result* r) {
  std::map<std::string, Agg> by;
  bool any = false;
  uint64_t total = 0;
  for (size_t p = 0; p < a.scoped.size(); ++p)
    for (auto& [key, g] : a.scoped[p]) {
      const model::Process& proc = a.m->processes[p];
      uint32_t module = static_cast<uint32_t>(key >> 32);
      any |= module != 0;
      std::string name(proc.Name(static_cast<uint32_t>(key)));
      if (module) name = std::string(proc.Name(module)) + "/" + name;
      total += g.self;
      by[name].Merge(g);
    }
  if (!any) return false;
  for (auto& [name, g] : by) r->rows.push_back(MakeRow(name, g));
  SetShares(&r->rows, total, r);
  return true;
}

// The parameters of the scope `path`: its own, or, where TensorFlow inlined a function call
// ("StatefulPartitionedCall/sequential_1/conv_1"), those of the path after its call nodes.
const int64_t* ParamsOf(std::string_view path, const std::map<std::string, int64_t>& params) {
  while (true) {
    if (auto it = params.find(std::string(path)); it != params.end()) return &it->second;
    size_t slash = path.find('/');
    if (slash == std::string_view::npos ||
        path.substr(0, slash).find("PartitionedCall") == std::string_view::npos)
      return nullptr;
    path.remove_prefix(slash + 1);
  }
}

// Each module row's trainable parameters, as the bootstrap counted them (module_params.h).
void SetParams(std::vector<Row>* rows, const std::string& prefix,
               const std::map<std::string, int64_t>& params) {
  for (Row& r : *rows) {
    std::string path = prefix.empty() ? r.name : prefix + "/" + r.name;
    if (const int64_t* n = ParamsOf(path, params))
      r.numbers.push_back({"params", static_cast<double>(*n)});
    SetParams(&r.children, path, params);
  }
}

// The params paths some row's ParamsOf finds, into `held`.
void HeldParams(const std::vector<Row>& rows, const std::string& prefix,
                const std::map<std::string, int64_t>& params, std::set<const int64_t*>* held) {
  for (const Row& r : rows) {
    std::string path = prefix.empty() ? r.name : prefix + "/" + r.name;
    held->insert(ParamsOf(path, params));
    HeldParams(r.children, path, params, held);
  }
}

// A params path no row holds (JAX: XLA's op names carry no Flax NNX module path) is a row of
// its own, without time, so that every counted module shows its parameters.
void AddParamRows(std::vector<Row>* tree, const std::map<std::string, int64_t>& params) {
  std::set<const int64_t*> held;
  HeldParams(*tree, "", params, &held);
  for (const auto& [path, n] : params)
    if (!held.count(&n)) InsertScope(tree, ScopePath(path), 0, Row{});
}

void Finish(Aggregates& a, Result* r) {
  bool modules = ModuleRows(a, r);
  if (!modules) FinishOpRows(a, r, FullName);
  std::vector<Row> tree;
  for (const auto& row : r->rows) InsertScope(&tree, ScopePath(row.name), 0, row);
  SetTreeShares(&tree, r->total_ns);
  std::map<std::string, int64_t> params;
  for (const model::Process& p : a.m->processes)
    for (auto& [path, n] : ReadModuleParams(p.recording, p.meta.pid))
      params[path] = std::max(params[path], n);  // ranks hold replicas: one model's count
  if (!params.empty()) {
    AddParamRows(&tree, params);
    SetParams(&tree, "", params);
  }
  r->rows = std::move(tree);
}

}  // namespace

ViewDef ScopeView() {
  ViewDef v = OpLikeView("scope",
                         "the op name hierarchy (\"a/b/c:T\"; PyTorch: the nn.Module hierarchy,\n"
                         "\"Sequential/Conv2d_0/aten::conv2d\") as a tree; --max-depth D cuts it",
                         Finish);
  v.needs.scopes = true;
  v.fields.push_back({"params", ColumnKind::kCount});
  return v;
}

extern const ViewDef kScopeView = ScopeView();

}  // namespace tt::analysis
