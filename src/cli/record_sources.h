// `record --sources LIST`: which in-process sources a recording switches on. Every source is on
// unless --sources names a list; the code that sets each source's environment asks SourceOn.
#pragma once
#include <string>

namespace tt::cli {

// The sources --sources knows, in the order `record --help` lists them.
inline constexpr const char* kSourceNames[] = {"cuda", "nvtx", "itt", "python"};

// The lines of `record --help` about --sources.
extern const char kSourcesHelp[];

// Sets the sources from a comma list ("all" or names from kSourceNames; "none" for none).
// Throws tt::Error naming the first unknown source, or on an empty list.
void SetSources(const std::string& list);

// Whether source `name` ("cuda", "nvtx", "itt", "python") is on for this recording.
bool SourceOn(const std::string& name);

// The CUDA source: names the runtime library `lib` (which holds the CUPTI injection entry
// point) in CUDA_INJECTION64_PATH, unless the source is off, the variable is set already (then
// one warning unless `quiet`), or the library was built without the CUDA headers.
void SetCudaEnvironment(const std::string& lib, bool quiet);

}  // namespace tt::cli
