// A chain of exec'ing shims (pyenv, env, wrapper scripts) is one process: the image it became,
// the pid's newest exec generation (DESIGN.md, the job's meaning). The one definition that
// record, info and the report use.
#pragma once
#include <cstdint>
#include <map>

#include "format/metadata.h"

namespace tt::model {

class NewestImages {
 public:
  // `processes`: anything whose elements have `.meta` (a ProcessMeta).
  template <class Processes>
  explicit NewestImages(const Processes& processes) {
    for (const auto& p : processes) {
      uint32_t& g = newest_[p.meta.pid];
      if (p.meta.exec_generation > g) g = p.meta.exec_generation;
    }
  }
  // True for the image the pid became (a pid seen once is its own newest image).
  bool IsNewest(const ProcessMeta& m) const {
    auto it = newest_.find(m.pid);
    return it == newest_.end() || m.exec_generation >= it->second;
  }

 private:
  std::map<int64_t, uint32_t> newest_;
};

}  // namespace tt::model
