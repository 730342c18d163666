// The capture windows of an on-demand or windowed recording (record --on-demand, --every):
// `record` keeps them in DIR/captures, one "START_NS END_NS" line each (CLOCK_MONOTONIC, the
// trace's clock; END_NS 0 while the window is open), and serves DIR/control.sock, through
// which `tensortrace capture` asks for a window. Between two windows no process writes an
// event. A trace without the file was recorded whole.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tt {

inline constexpr char kCapturesFile[] = "captures";
inline constexpr char kControlSocket[] = "control.sock";

using CaptureWindows = std::vector<std::pair<uint64_t, uint64_t>>;

std::string FormatCaptures(const CaptureWindows& w);
// The windows of DIR/captures; nullopt-like empty `found` when there is no file. Throws
// tt::Error on a line that is not two numbers.
CaptureWindows ReadCaptures(const std::string& dir, bool* found);

}  // namespace tt
