// The XSpace entry of the importer table (importer.h): the .xplane.pb files TensorFlow's and
// JAX's profilers wrote under <logdir>/plugins/profile/, with the tf.function graphs the
// bootstrap saved beside them.
#include "format/import/importer.h"

#include <sys/stat.h>

#include "format/import/memory_budget.h"
#include "format/import/untrusted.h"
#include "format/import/xspace/import.h"
#include "format/import/xspace/tf_graph.h"
#include "format/import/xspace/tf_op_cost.h"

namespace tt {

namespace {

std::string ProfileDir(const std::string& logdir) {
  return ".xplane.pb file under " + ValidUtf8(logdir) + "/plugins/profile";
}

// Parsing an XSpace builds the whole message: about this many bytes of memory per byte of file
// (measured: a 63 MB profile of structured planes took 680 MB).
constexpr uint64_t kParseBytesPerByte = 12;

// The files record's memory budget can parse (r.max_memory); each other one is a line.
std::vector<std::string> WithinBudget(const ImportRequest& r, std::vector<std::string>* skipped) {
  if (!r.max_memory) return r.files;
  std::vector<std::string> keep;
  for (const auto& f : r.files) {
    struct stat st {};
    uint64_t need = lstat(f.c_str(), &st) == 0 ? kParseBytesPerByte * st.st_size : 0;
    if (ResidentBytes() + need <= r.max_memory) {
      keep.push_back(f);
      continue;
    }
    skipped->push_back(ValidUtf8(f) + ": not imported: parsing it needs about " + BudgetText(need) +
                       ", over record's memory budget of " + BudgetText(r.max_memory) +
                       " (record --import-max-memory)");
  }
  return keep;
}

ImportResult Run(const ImportRequest& r, std::vector<std::string>* problems) {
  TfGraphInputs graph = ReadTfGraph(r.logdir + "/" + kTfGraphFile, r.max_file_bytes, problems);
  TfOpCosts costs = ReadTfOpCosts(r.logdir + "/" + kTfOpCostFile, r.max_file_bytes, problems);
  std::vector<std::string> files = WithinBudget(r, problems);
  ImportResult out =
      ImportXSpace(r.trace_dir, r.pid, files, r.steps, r.max_file_bytes, &graph, &costs);
  out.format = "XSpace";
  return out;
}

}  // namespace

const Importer& XSpaceImporter() {
  static const Importer k{"XSpace", FindXSpaceFiles, ProfileDir, Run};
  return k;
}

}  // namespace tt
