// The FLOPs and bytes of a process's TensorFlow matrix products and convolutions, as the Python
// bootstrap computed them from its tf.functions' graphs (DIR/xspace/<pid>/tf_op_cost.tsv,
// python/tensortrace/tf_costs.py, docs/trace-format.md), which the XSpace import gives to the op
// events of those nodes (keys::kFloatOps, kFlopsMethod, kOutputBytes, kInputBytes). A count the
// graph knows but for the batch's rows is multiplied by the rows of the step's input element:
// its bytes (the profile's IteratorGetNextOp::DoCompute event's element_size) over the bytes of
// one row (the file's "# rows" lines).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "format/import/xspace/tf_graph.h"

namespace tt {

constexpr char kTfOpCostFile[] = "tf_op_cost.tsv";

// A count: a fixed part plus a part per row of the batch; fixed < 0: unknown.
struct TfCount {
  int64_t fixed = -1, per_row = 0;
  int64_t At(int64_t rows) const {
    return fixed < 0 || (per_row && rows < 0) ? -1 : fixed + per_row * std::max<int64_t>(rows, 0);
  }
};

struct TfNodeCost {
  TfCount flops, output_bytes, input_bytes;
  bool framework = false;  // TensorFlow's own count, else the shape formula's
};

struct TfOpCosts {
  // Node name -> its cost: a node of several functions may have a count per row (a retrace
  // with the batch unknown) beside a fixed one; a count per row is taken where the rows are
  // known.
  std::unordered_map<std::string, TfNodeCost> fixed, per_row;
  std::vector<int64_t> row_bytes;  // distinct, each > 0
  bool empty() const { return fixed.empty() && per_row.empty(); }
};

// Parses the file's text; lines of another shape are counted in `*bad` and skipped.
TfOpCosts ParseTfOpCosts(std::string_view text, size_t* bad);

// Reads `path` as an untrusted file; an absent file has no costs, an unreadable one none and
// one line in `errors`.
TfOpCosts ReadTfOpCosts(const std::string& path, uint64_t max_bytes,
                        std::vector<std::string>* errors);

// The batch's rows of an input element of `element_bytes`: -1 where no row size divides it
// or two give different rows.
int64_t TfRowsOf(const TfOpCosts& c, int64_t element_bytes);

// The rows of the input element each step read, by time: the latest one before an op's start.
class TfStepRows {
 public:
  void Add(uint64_t at, int64_t rows) { reads_.emplace_back(at, rows); }
  void Sort();
  int64_t At(uint64_t t) const;  // -1 where none was read before t
  bool empty() const { return reads_.empty(); }
  void clear() { reads_.clear(); }

 private:
  std::vector<std::pair<uint64_t, int64_t>> reads_;
};

struct TfOpCost {
  int64_t float_ops = -1, output_bytes = -1, input_bytes = -1;
  bool framework = false;
};

// The cost of the op that ran as `node` with runtime type `op_type` (rows: the batch's, -1
// unknown): its node's (looked up as tf_graph.h's TfProducersOf looks nodes up: the name, else
// the longest tail after a call prefix), or, for a fused op (a type naming "Fused") whose node
// has none, the sum over the costed nodes it fused: its producers that did not run (`ran`),
// looked through transitively (at most kMaxHops nodes). Unknown (-1) where none is known.
TfOpCost TfCostOf(const TfOpCosts& c, const TfGraphInputs* g,
                  const std::unordered_set<std::string>* ran, std::string_view node,
                  std::string_view op_type, int64_t rows);

}  // namespace tt
