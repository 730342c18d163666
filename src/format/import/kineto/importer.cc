// The Kineto entry of the importer table (importer.h): the PyTorch profiles the bootstrap
// saved under <logdir>/torch/.
#include "format/import/importer.h"

#include "format/import/kineto/import.h"
#include "format/import/untrusted.h"

namespace tt {

namespace {

std::string TorchDir(const std::string& logdir) {
  return "PyTorch profile under " + ValidUtf8(logdir) + "/torch";
}

ImportResult Run(const ImportRequest& r, std::vector<std::string>*) {
  return ImportKineto(r.trace_dir, r.pid, r.files, r.steps, r.max_file_bytes, r.max_memory);
}

}  // namespace

const Importer& KinetoImporter() {
  static const Importer k{"PyTorch profile", FindKinetoFiles, TorchDir, Run};
  return k;
}

}  // namespace tt
