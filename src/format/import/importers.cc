// The importer table (importer.h): one line per format, in the order they are tried.
#include "format/import/importer.h"

namespace tt {

const Importer& KinetoImporter();  // kineto/importer.cc: PyTorch's Kineto JSON
const Importer& XSpaceImporter();  // xspace/importer.cc: TensorFlow's and JAX's XSpace

const std::vector<const Importer*>& Importers() {
  static const std::vector<const Importer*> table = {&KinetoImporter(), &XSpaceImporter()};
  return table;
}

}  // namespace tt
