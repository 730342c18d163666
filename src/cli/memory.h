// Why a trace holds no allocation events, and which option of record captures them: said by
// `info`, `memory` and the report (the command is in memory.cc).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tt::cli {

// One line, from what the trace's framework captures say (framework, the environment that
// chose TensorFlow's CPU allocator). For a trace that holds no allocation event.
// pids: only the captures of these processes (all when empty).
std::string MemoryMissingNote(const std::string& trace_dir, const std::vector<int64_t>& pids = {});

}  // namespace tt::cli
