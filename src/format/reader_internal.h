// What the reader's files share (reader.cc, mapped_stream.cc, stream_decoder.cc); not for
// other users.
#pragma once
#include "format/reader.h"

namespace tt {

// The hooks SetStreamReadHooks set.
StreamReadHooks& StreamHooks();

// Whether stream files are copied into memory before they are read (SetStreamFilesCopied,
// live_read.h).
bool StreamFilesCopied();

}  // namespace tt
