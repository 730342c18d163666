// The trainable parameters per PyTorch module path (module_params.h).
#include "format/module_params.h"

#include <charconv>
#include <fstream>
#include <sstream>

namespace tt {

std::map<std::string, int64_t> ParseModuleParams(const std::string& text) {
  std::map<std::string, int64_t> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t tab = line.rfind('\t');
    if (tab == std::string::npos || tab == 0) continue;
    int64_t n = -1;
    auto [end, ec] = std::from_chars(line.data() + tab + 1, line.data() + line.size(), n);
    if (ec != std::errc() || end != line.data() + line.size() || n < 0) continue;
    out[line.substr(0, tab)] = n;
  }
  return out;
}

std::map<std::string, int64_t> ReadModuleParams(const std::string& recording, int64_t pid) {
  std::map<std::string, int64_t> out;
  std::string dir = recording + "/xspace/" + std::to_string(pid);
  for (const char* file : {"/torch/params.tsv", "/params.tsv"}) {
    std::ifstream f(dir + file);
    if (!f) continue;
    std::string text(1 << 20, '\0');  // bounded: a file past 1 MiB is read as far as that
    f.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(f.gcount()));
    out.merge(ParseModuleParams(text));
  }
  return out;
}

}  // namespace tt
