// Reading a trace that `record` is still writing (`tensortrace top`).
#pragma once

namespace tt {

// When on, each stream file opened from then on (MappedStream) is copied into memory (a memfd)
// as it is at that moment, and read from the copy instead of being mapped: `record` cuts and
// compacts stream files once their processes end, and a mapped page past a file's new end
// would fault (SIGBUS) in the reader. A copy costs memory as large as the stream files read.
// Set it before opening a trace, while no trace is being read.
void SetStreamFilesCopied(bool copied);

}  // namespace tt
