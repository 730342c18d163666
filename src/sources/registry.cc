#include "sources/registry.h"

namespace tt::sources {

namespace {

// clang-format off
constexpr Source kSources[] = {
    {"cuda", "cuda (CUPTI: CUDA API calls, kernels, copies; nothing happens in a process that "
             "never loads CUDA)", ArmCuda},
    {"nvtx", "nvtx", ArmNvtx},
    {"itt", "itt (oneDNN...)", ArmItt},
    {"python", "python (the TensorFlow/JAX profiler bootstrap)", ArmPython},
    {"net", "net (TCP send/receive calls with bytes, peers and byte offsets; off unless named)",
     ArmNet, true},
    {"nccl", "nccl (NCCL's profiler plugin: collectives, point-to-point, proxy and network "
             "work; nothing happens in a process that never loads NCCL)", ArmNccl},
};
// clang-format on

// The order of arming (indices in kSources): ITT, Python, CUDA, NVTX, as record always did,
// then sockets and NCCL.
constexpr size_t kArmOrder[] = {2, 3, 0, 1, 4, 5};
static_assert(std::size(kArmOrder) == std::size(kSources));

// The help's continuation lines start in this column and end by it.
constexpr size_t kIndent = 27, kWidth = 90;

std::string BuildHelp() {
  std::string text;
  for (const Source& s : kSources) text += (text.empty() ? "" : ", ") + std::string(s.help);
  text += "; or none";
  std::string out =
      "  --sources LIST           comma list of the sources to switch on (default: all but net):\n";
  std::string line;
  size_t start = 0;
  while (start < text.size()) {  // greedy wrap of the words at kWidth columns
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(start, end - start);
    if (!line.empty() && kIndent + line.size() + 1 + word.size() > kWidth) {
      out += std::string(kIndent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out + std::string(kIndent, ' ') + line + "\n";
}

}  // namespace

std::span<const Source> All() { return kSources; }

const Source* Find(std::string_view name) {
  for (const Source& s : kSources)
    if (name == s.name) return &s;
  return nullptr;
}

const std::string& SourcesHelp() {
  static const std::string help = BuildHelp();
  return help;
}

std::string NameList() {
  std::string out;
  for (const Source& s : kSources) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

void ArmSources(bool (*on)(const std::string& name), const ArmOptions& o) {
  for (size_t i : kArmOrder)
    if (on(kSources[i].name)) kSources[i].arm(o);
}

}  // namespace tt::sources
