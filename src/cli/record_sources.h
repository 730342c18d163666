// `record --sources LIST`: which in-process sources a recording switches on. Every source is on
// unless --sources names a list. The sources, their help and their arming are the table in
// sources/registry.h.
#pragma once
#include <string>

namespace tt::cli {

// Sets the sources from a comma list ("all" or names from sources::All(); "none" for none).
// Throws tt::Error naming the first unknown source, or on an empty list.
void SetSources(const std::string& list);

// Whether source `name` ("cuda", "nvtx", "itt", "python") is on for this recording.
bool SourceOn(const std::string& name);

}  // namespace tt::cli
