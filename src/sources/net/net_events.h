// The socket source's entries into the runtime (libtensortrace.so exports them; the preloaded
// interposers in libtensortrace_net.so, net_interpose.cc, call them). C names, so that the
// small library needs none of the runtime's internals.
#pragma once
#include <stdint.h>

extern "C" {

// The calling thread's event clock (ns), to stamp a call's start.
uint64_t tt_net_now_(void);
// A call that moved `bytes` bytes on connection `conn` (recv: 1 for a receive, 0 for a send),
// starting at byte `offset` of that direction, that began at `start_ns`; it ends now.
void tt_net_io_(int recv, uint64_t conn, uint64_t offset, uint64_t bytes, uint64_t start_ns);
// Connection `conn` (an id unique in the process), first used in this process on `fd`, between
// `local` and `peer` ("127.0.0.1:5000"); 0 where it was not written (tracing off, names
// exhausted): the caller announces it again at its next call.
int tt_net_conn_(uint64_t conn, int fd, const char* local, const char* peer);
}
