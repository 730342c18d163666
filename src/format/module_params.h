// The trainable parameters of each PyTorch nn.Module the bootstrap named (python/tensortrace/
// torch_adapter.py writes DIR/xspace/<pid>/torch/params.tsv: "PATH<TAB>N" lines, PATH the
// module hierarchy as the scope view names it, "Sequential/Linear_3", N its parameters and its
// submodules'): the scope view's params. Keras layers likewise, in DIR/xspace/<pid>/params.tsv
// (tf_params.py): PATH the layer's name scope in the TensorFlow graph ("sequential_1/conv_1"),
// N its count_params().
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace tt {

// The paths and counts of one process of a recording (both files); empty where it wrote none.
// Lines of another shape are skipped.
std::map<std::string, int64_t> ReadModuleParams(const std::string& recording, int64_t pid);

// Parses the file's text (the same rules).
std::map<std::string, int64_t> ParseModuleParams(const std::string& text);

}  // namespace tt
