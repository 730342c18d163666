// The costs of a process's TensorFlow matrix products and convolutions (tf_op_cost.h).
#include "format/import/xspace/tf_op_cost.h"

#include <algorithm>
#include <charconv>

#include "core/error.h"
#include "core/files.h"
#include "format/import/untrusted.h"

namespace tt {

namespace {

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (true) {
    size_t tab = line.find('\t', at);
    out.push_back(line.substr(at, tab == std::string_view::npos ? tab : tab - at));
    if (tab == std::string_view::npos) return out;
    at = tab + 1;
  }
}

bool Number(std::string_view s, int64_t* n) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *n);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && *n >= 0;
}

// "" (unknown), "N", "P/row" or "N+P/row"; false where it is none of them.
bool Count(std::string_view s, TfCount* c) {
  if (s.empty()) return true;
  constexpr std::string_view kRow = "/row";
  if (s.size() <= kRow.size() || s.substr(s.size() - kRow.size()) != kRow)
    return Number(s, &c->fixed);
  s.remove_suffix(kRow.size());
  size_t plus = s.find('+');
  c->fixed = 0;
  if (plus != std::string_view::npos && !Number(s.substr(0, plus), &c->fixed)) return false;
  return Number(plus == std::string_view::npos ? s : s.substr(plus + 1), &c->per_row);
}

bool ParseNode(std::string_view line, TfOpCosts* out) {
  std::vector<std::string_view> f = Fields(line);
  TfNodeCost c;
  if (f.size() != 6 || f[0].empty() || !Count(f[2], &c.flops) || !Count(f[3], &c.output_bytes) ||
      !Count(f[4], &c.input_bytes) || c.flops.fixed < 0)
    return false;
  c.framework = f[5] == "framework";
  bool per_row = c.flops.per_row || c.output_bytes.per_row || c.input_bytes.per_row;
  (per_row ? out->per_row : out->fixed)[std::string(f[0])] = c;
  return true;
}

// The cost of the node the graphs name `node`, or of the longest tail of it after a call
// prefix ("StatefulPartitionedCall/dense/MatMul"); the count per row where the rows are known.
const TfNodeCost* Find(const TfOpCosts& c, std::string_view node, int64_t rows) {
  for (size_t from = 0; from != std::string_view::npos;) {
    std::string key(node.substr(from));
    if (rows >= 0)
      if (auto it = c.per_row.find(key); it != c.per_row.end()) return &it->second;
    if (auto it = c.fixed.find(key); it != c.fixed.end()) return &it->second;
    size_t slash = node.find('/', from);
    from = slash == std::string_view::npos ? slash : slash + 1;
  }
  return nullptr;
}

void Add(const TfNodeCost& n, int64_t rows, TfOpCost* out) {
  auto sum = [](int64_t* to, int64_t v) { *to = (*to < 0 || v < 0) ? -1 : *to + v; };
  if (out->float_ops < 0) {  // the first
    out->float_ops = n.flops.At(rows);
    out->output_bytes = n.output_bytes.At(rows);
    out->input_bytes = n.input_bytes.At(rows);
    out->framework = n.framework;
    return;
  }
  sum(&out->float_ops, n.flops.At(rows));
  sum(&out->output_bytes, n.output_bytes.At(rows));
  sum(&out->input_bytes, n.input_bytes.At(rows));
  out->framework = out->framework && n.framework;
}

// A fused op's cost: that of the costed nodes among its producers that did not run.
TfOpCost Fused(const TfOpCosts& c, const TfGraphInputs& g,
               const std::unordered_set<std::string>& ran, std::string_view node, int64_t rows) {
  TfOpCost out;
  std::vector<std::string> todo = TfDirectProducers(g, node);
  std::unordered_set<std::string> seen = {std::string(node)};
  size_t hops = 0;
  while (!todo.empty() && ++hops <= kMaxHops) {
    std::string p = std::move(todo.back());
    todo.pop_back();
    if (ran.count(p) || !seen.insert(p).second) continue;
    if (const TfNodeCost* n = Find(c, p, rows)) {
      Add(*n, rows, &out);
      if (out.float_ops < 0) return out;  // one unknown: the sum is
    }
    std::vector<std::string> next = TfDirectProducers(g, p);
    todo.insert(todo.end(), next.begin(), next.end());
  }
  return out;
}

}  // namespace

TfOpCosts ParseTfOpCosts(std::string_view text, size_t* bad) {
  TfOpCosts out;
  *bad = 0;
  constexpr std::string_view kRows = "# rows ";
  for (size_t at = 0; at < text.size();) {
    size_t nl = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    if (line.empty()) continue;
    if (line.substr(0, kRows.size()) == kRows) {
      int64_t n;
      if (!Number(line.substr(kRows.size()), &n) || n == 0)
        ++*bad;
      else if (std::find(out.row_bytes.begin(), out.row_bytes.end(), n) == out.row_bytes.end())
        out.row_bytes.push_back(n);
      continue;
    }
    if (line[0] != '#' && !ParseNode(line, &out)) ++*bad;
  }
  return out;
}

TfOpCosts ReadTfOpCosts(const std::string& path, uint64_t max_bytes,
                        std::vector<std::string>* errors) {
  return ReadUntrustedTable<TfOpCosts>(
      path, max_bytes, errors, ParseTfOpCosts, "; its ops' FLOPs are unknown",
      "NODE<TAB>OP<TAB>FLOPS<TAB>OUTPUT<TAB>INPUT<TAB>METHOD or # rows BYTES");
}

int64_t TfRowsOf(const TfOpCosts& c, int64_t element_bytes) {
  int64_t rows = -1;
  for (int64_t b : c.row_bytes) {
    if (element_bytes <= 0 || element_bytes % b) continue;
    if (rows >= 0 && rows != element_bytes / b) return -1;
    rows = element_bytes / b;
  }
  return rows;
}

void TfStepRows::Sort() { std::sort(reads_.begin(), reads_.end()); }

int64_t TfStepRows::At(uint64_t t) const {
  auto it = std::upper_bound(reads_.begin(), reads_.end(), std::make_pair(t, INT64_MAX));
  return it == reads_.begin() ? -1 : std::prev(it)->second;
}

TfOpCost TfCostOf(const TfOpCosts& c, const TfGraphInputs* g,
                  const std::unordered_set<std::string>* ran, std::string_view node,
                  std::string_view op_type, int64_t rows) {
  TfOpCost out;
  if (const TfNodeCost* n = Find(c, node, rows)) {
    Add(*n, rows, &out);
    return out;
  }
  if (g && ran && op_type.find("Fused") != std::string_view::npos)
    return Fused(c, *g, *ran, node, rows);
  return out;
}

}  // namespace tt
