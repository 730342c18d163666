// The graphs of a process's tf.functions as the Python bootstrap saved them
// (DIR/xspace/<pid>/tf_graph.tsv, docs/trace-format.md): for each node name, its producers, which
// the XSpace import gives to the op events of that name (keys::kTfInputs) for replay's edges.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tt {

constexpr char kTfGraphFile[] = "tf_graph.tsv";

// Node name -> its producers' node names, comma-separated, in the order first seen. A name that
// several functions define gets the union of their producers (an edge replay links only where
// the producer ran before the consumer).
using TfGraphInputs = std::unordered_map<std::string, std::string>;

// The producers of the op that ran as `node`, comma-separated ("" when the graphs lack it): the
// node's own, or, where a function call was inlined into its caller (TensorFlow names the
// inlined nodes "<call node>/<node>", "StatefulPartitionedCall/dense/MatMul"), those of the
// longest tail of `node` that the graphs hold, each with the same call prefix.
//
// With `ran` (the node names of the ops the profile shows), a producer that did not run as an
// op of its own (TensorFlow's graph rewrites fuse MatMul, BiasAdd and Relu into one op named
// "Relu", whose saved producer BiasAdd never runs) stands for its own producers, transitively
// (at most kMaxHops nodes looked through); one that the graphs do not hold is left out.
std::string TfProducersOf(const TfGraphInputs& g, std::string_view node,
                          const std::unordered_set<std::string>* ran = nullptr);
inline constexpr size_t kMaxHops = 256;

// The node's own producers, or those of the longest tail of its name the graphs hold, each with
// the same call prefix (as TfProducersOf finds them, looking through nothing).
std::vector<std::string> TfDirectProducers(const TfGraphInputs& g, std::string_view node);

// Parses the file's text: "# function NAME" lines, and "NODE<TAB>OP<TAB>PRODUCER..." lines.
// Lines of another shape are counted in `*bad` and skipped.
TfGraphInputs ParseTfGraph(std::string_view text, size_t* bad);

// Reads `path` as an untrusted file (format/import/untrusted.h); an absent file is an empty
// graph, an unreadable one an empty graph and one line in `errors`.
TfGraphInputs ReadTfGraph(const std::string& path, uint64_t max_bytes,
                          std::vector<std::string>* errors);

}  // namespace tt
