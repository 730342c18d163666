// The output directory of `record`: created owner-only, or checked and (with --force) emptied of
// an earlier trace, and of nothing else.
#pragma once
#include <string>

namespace tt::cli {

// Makes `dir` ready for a new trace. Missing: created (mode 0700, parents as needed). Present:
// it must be a directory this user owns, and empty unless `force`; with `force` it must hold
// nothing but an earlier trace's own entries (TraceEntryProblem), which are removed. Throws
// tt::Error with one line.
void PrepareTraceDir(const std::string& dir, bool force);

// Empty if everything under `dir` is what `record` writes into a trace (tensortrace.json, the
// p<pid>[.N]/ process directories and their metadata and streams, xspace/<pid>/); otherwise
// the first path that is not, with why.
std::string TraceEntryProblem(const std::string& dir);

}  // namespace tt::cli
