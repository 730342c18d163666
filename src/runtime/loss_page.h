// This process's side of the loss page (format/loss_page.h): where it counts the events it
// loses when it cannot write a trace of its own, and where it learns that `record` has ended.
#pragma once
#include <cstdint>

#include "format/loss_page.h"

namespace tt::rt {

// Maps the page at load time: the descriptor named by TENSORTRACE_LOSSES_FD ("FD:DEV:INO",
// used only if it is that file), else `root`/losses. Without it nothing is counted here.
void MapLossPage(const char* root);
bool HaveLossPage();
// Adds `n` lost events of cause `c` to this process's slot (taken at its first loss). False
// without a page or a free slot.
bool CountLost(LossCause c, uint64_t n);
// In a forked child: the slot is the parent's.
void ForgetLossSlot();
// Whether `record` has finished: no packet is mapped any more, so that nothing is written past
// what it closed (docs/trace-format.md).
bool RecordingEnded();
// The page's capture word (read-only to the process), or null without a page.
const uint32_t* CaptureWord();

}  // namespace tt::rt
