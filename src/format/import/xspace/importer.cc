// The XSpace entry of the importer table (importer.h): the .xplane.pb files TensorFlow's and
// JAX's profilers wrote under <logdir>/plugins/profile/, with the tf.function graphs the
// bootstrap saved beside them.
#include "format/import/importer.h"

#include "format/import/untrusted.h"
#include "format/import/xspace/import.h"
#include "format/import/xspace/tf_graph.h"
#include "format/import/xspace/tf_op_cost.h"

namespace tt {

namespace {

std::string ProfileDir(const std::string& logdir) {
  return ".xplane.pb file under " + ValidUtf8(logdir) + "/plugins/profile";
}

ImportResult Run(const ImportRequest& r, std::vector<std::string>* problems) {
  TfGraphInputs graph = ReadTfGraph(r.logdir + "/" + kTfGraphFile, r.max_file_bytes, problems);
  TfOpCosts costs = ReadTfOpCosts(r.logdir + "/" + kTfOpCostFile, r.max_file_bytes, problems);
  // Each file over record's memory budget is one line (import.h).
  ImportResult out = ImportXSpace(r.trace_dir, r.pid, r.files, r.steps, r.max_file_bytes, &graph,
                                  r.max_memory, &costs);
  out.format = "XSpace";
  return out;
}

}  // namespace

const Importer& XSpaceImporter() {
  static const Importer k{"XSpace", FindXSpaceFiles, ProfileDir, Run};
  return k;
}

}  // namespace tt
