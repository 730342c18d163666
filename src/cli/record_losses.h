// record's side of the loss page (format/loss_page.h): created before the command starts,
// marked ended when the command and the children waited for are done.
#pragma once
#include <string>

namespace tt::cli {

// Creates DIR/losses, its blocks allocated, and leaves a descriptor to it open for the command
// (TENSORTRACE_LOSSES_FD). -1 (and a warning) if it cannot: the recording goes on without it.
// `capturing`: whether events are written from the start (false: on demand, between windows).
int CreateLossPage(const std::string& dir, bool quiet, bool capturing);

// Opens or closes a capture window (the page's capture word; every process sees it at once).
void SetCapturing(int fd, bool on);
// The page's count of steps ended inside capture windows (kLossOffSteps).
uint32_t StepsCounted(int fd);
// The count at which the open window has its steps (kLossOffStepTarget; 0: none).
void SetStepTarget(int fd, uint32_t target);

// Tells every traced process that the recording has ended: none maps a further packet.
void EndLossPage(int fd);

}  // namespace tt::cli
