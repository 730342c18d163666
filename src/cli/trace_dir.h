// The output directory of `record`: created owner-only, or checked and (with --force) emptied of
// an earlier trace, and of nothing else.
#pragma once
#include <string>

namespace tt::cli {

// Makes `dir` ready for a new trace and takes it for this recording. Missing: created (mode
// 0700, parents as needed). Present: it must be a directory (not a link) this user owns; it is
// made 0700, and must be empty unless `force`; with `force` it must hold nothing but an earlier
// trace's own entries (TraceEntryProblem), which are removed. Either way no other recording
// may be writing into it: the directory is locked (flock) for as long as the returned
// descriptor (O_CLOEXEC) stays open, and a second `record` on it is refused. Throws tt::Error
// with one line.
int PrepareTraceDir(const std::string& dir, bool force);

// Makes everything under `dir` owner-only (directories 0700, other files 0600), whatever the
// modes the traced program created them with (its xspace/ captures, under its own umask).
// Symbolic links are neither followed nor changed. Best effort: what cannot be changed stays.
void MakeTreePrivate(const std::string& dir);

// Empty if everything under `dir` is what `record` writes into a trace (tensortrace.json, the
// p<pid>[.N]/ process directories and their metadata and streams, xspace/<pid>/); otherwise
// the first path that is not, with why.
std::string TraceEntryProblem(const std::string& dir);

}  // namespace tt::cli
