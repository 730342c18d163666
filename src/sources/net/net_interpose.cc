// The socket source's interposers: libtensortrace_net.so, which `record --sources ...,net` adds
// to LD_PRELOAD behind libtensortrace.so (a program recorded without it pays nothing). It
// defines send, sendto, sendmsg, write, writev, recv, recvfrom, recvmsg, read, readv (and the
// fortified __read_chk, __recv_chk, __recvfrom_chk), each calling the next definition
// (dlsym(RTLD_NEXT)). A call on a connected TCP socket (AF_INET, AF_INET6, SOCK_STREAM) that
// moved bytes becomes a net.send or net.recv slice with the connection's byte offset in that
// direction before the call (net_events.h); every other descriptor costs a load and a branch
// once its kind is cached (fd_table.h). Calls that moved no bytes (0, -1, EAGAIN) and peeks
// (MSG_PEEK) are passed through unrecorded. errno is what the real call left.
#include <dlfcn.h>
#include <errno.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sources/net/fd_table.h"
#include "sources/net/net_events.h"

extern "C" int tt_active_;  // libtensortrace.so: nonzero while this process records

namespace tt::net {
namespace {

// The next definition of `name`, resolved at the first call (possibly before our constructor:
// another library's constructor may write). dlsym does not call the functions we define.
template <typename F>
F Next(F* slot, const char* name) {
  F f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (__builtin_expect(f == nullptr, 0)) {
    f = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
    __atomic_store_n(slot, f, __ATOMIC_RELEASE);
  }
  return f;
}

#define TT_NEXT(fn) Next(&g_##fn, #fn)

decltype(&::send) g_send;
decltype(&::sendto) g_sendto;
decltype(&::sendmsg) g_sendmsg;
decltype(&::write) g_write;
decltype(&::writev) g_writev;
decltype(&::recv) g_recv;
decltype(&::recvfrom) g_recvfrom;
decltype(&::recvmsg) g_recvmsg;
decltype(&::read) g_read;
decltype(&::readv) g_readv;
decltype(&::close) g_close;
decltype(&::dup) g_dup;
decltype(&::dup2) g_dup2;
decltype(&::dup3) g_dup3;
decltype(&::socket) g_socket;
decltype(&::accept) g_accept;
decltype(&::accept4) g_accept4;
using ReadChk = ssize_t (*)(int, void*, size_t, size_t);
using RecvChk = ssize_t (*)(int, void*, size_t, size_t, int);
using RecvfromChk = ssize_t (*)(int, void*, size_t, size_t, int, sockaddr*, socklen_t*);
ReadChk g___read_chk;
RecvChk g___recv_chk;
RecvfromChk g___recvfrom_chk;

// The entry of a descriptor whose calls are recorded, else null: not recording, not a
// connected TCP socket, or past the table.
inline FdEntry* Tracked(int fd) {
  // Preloaded only when armed: the process records (the runtime may still turn it off).
  if (__builtin_expect(__atomic_load_n(&tt_active_, __ATOMIC_RELAXED) == 0, 0)) return nullptr;
  if (static_cast<unsigned>(fd) >= kMaxFd) return nullptr;
  FdEntry* e = &g_fds[fd];
  uint8_t k = e->kind.load(std::memory_order_acquire);
  if (__builtin_expect(k == kOther, 1)) return nullptr;
  if (k == kTcp) return e;
  return Classify(fd);
}

// The call's start (event clock); keeps errno (a thread's first call opens its stream).
inline uint64_t Start(FdEntry* e) {
  if (!e) return 0;
  int saved = errno;
  uint64_t t = tt_net_now_();
  errno = saved;
  return t;
}

// Records a call that returned `r` (bytes moved, if positive); keeps errno.
inline ssize_t Done(FdEntry* e, int fd, Dir d, ssize_t r, uint64_t start) {
  if (e && r > 0) {
    int saved = errno;
    Record(e, fd, d, static_cast<uint64_t>(r), start);
    errno = saved;
  }
  return r;
}

// A receive that leaves its bytes in the socket (a peek) or reads urgent data is not recorded.
inline FdEntry* TrackedRecv(int fd, int flags) {
  return flags & (MSG_PEEK | MSG_OOB) ? nullptr : Tracked(fd);
}

inline void Reset(int fd) {
  if (static_cast<unsigned>(fd) < kMaxFd) g_fds[fd].kind.store(kUnknown, std::memory_order_release);
}

__attribute__((constructor)) void ResolveAll() {
  TT_NEXT(send);
  TT_NEXT(sendto);
  TT_NEXT(sendmsg);
  TT_NEXT(write);
  TT_NEXT(writev);
  TT_NEXT(recv);
  TT_NEXT(recvfrom);
  TT_NEXT(recvmsg);
  TT_NEXT(read);
  TT_NEXT(readv);
  TT_NEXT(close);
  TT_NEXT(dup);
  TT_NEXT(dup2);
  TT_NEXT(dup3);
  TT_NEXT(socket);
  TT_NEXT(accept);
  TT_NEXT(accept4);
  TT_NEXT(__read_chk);
  TT_NEXT(__recv_chk);
  TT_NEXT(__recvfrom_chk);
}

}  // namespace
}  // namespace tt::net

using namespace tt::net;  // NOLINT: the C entries below use the namespace's helpers

#define TT_EXPORT extern "C" __attribute__((visibility("default")))

TT_EXPORT ssize_t send(int fd, const void* buf, size_t n, int flags) {
  FdEntry* e = Tracked(fd);
  uint64_t t = Start(e);
  return Done(e, fd, kSend, TT_NEXT(send)(fd, buf, n, flags), t);
}

TT_EXPORT ssize_t sendto(int fd, const void* buf, size_t n, int flags, const sockaddr* to,
                         socklen_t len) {
  FdEntry* e = Tracked(fd);
  uint64_t t = Start(e);
  return Done(e, fd, kSend, TT_NEXT(sendto)(fd, buf, n, flags, to, len), t);
}

TT_EXPORT ssize_t sendmsg(int fd, const msghdr* msg, int flags) {
  FdEntry* e = Tracked(fd);
  uint64_t t = Start(e);
  return Done(e, fd, kSend, TT_NEXT(sendmsg)(fd, msg, flags), t);
}

TT_EXPORT ssize_t write(int fd, const void* buf, size_t n) {
  FdEntry* e = Tracked(fd);
  uint64_t t = Start(e);
  return Done(e, fd, kSend, TT_NEXT(write)(fd, buf, n), t);
}

TT_EXPORT ssize_t writev(int fd, const iovec* iov, int n) {
  FdEntry* e = Tracked(fd);
  uint64_t t = Start(e);
  return Done(e, fd, kSend, TT_NEXT(writev)(fd, iov, n), t);
}

TT_EXPORT ssize_t recv(int fd, void* buf, size_t n, int flags) {
  FdEntry* e = TrackedRecv(fd, flags);
  uint64_t t = Start(e);
  return Done(e, fd, kRecv, TT_NEXT(recv)(fd, buf, n, flags), t);
}

TT_EXPORT ssize_t recvfrom(int fd, void* buf, size_t n, int flags, sockaddr* from, socklen_t* len) {
  FdEntry* e = TrackedRecv(fd, flags);
  uint64_t t = Start(e);
  return Done(e, fd, kRecv, TT_NEXT(recvfrom)(fd, buf, n, flags, from, len), t);
}

TT_EXPORT ssize_t recvmsg(int fd, msghdr* msg, int flags) {
  FdEntry* e = TrackedRecv(fd, flags);
  uint64_t t = Start(e);
  return Done(e, fd, kRecv, TT_NEXT(recvmsg)(fd, msg, flags), t);
}

TT_EXPORT ssize_t read(int fd, void* buf, size_t n) {
  FdEntry* e = Tracked(fd);
  uint64_t t = Start(e);
  return Done(e, fd, kRecv, TT_NEXT(read)(fd, buf, n), t);
}

TT_EXPORT ssize_t readv(int fd, const iovec* iov, int n) {
  FdEntry* e = Tracked(fd);
  uint64_t t = Start(e);
  return Done(e, fd, kRecv, TT_NEXT(readv)(fd, iov, n), t);
}

TT_EXPORT ssize_t __read_chk(int fd, void* buf, size_t n, size_t buflen) {
  FdEntry* e = Tracked(fd);
  uint64_t t = Start(e);
  return Done(e, fd, kRecv, TT_NEXT(__read_chk)(fd, buf, n, buflen), t);
}

TT_EXPORT ssize_t __recv_chk(int fd, void* buf, size_t n, size_t buflen, int flags) {
  FdEntry* e = TrackedRecv(fd, flags);
  uint64_t t = Start(e);
  return Done(e, fd, kRecv, TT_NEXT(__recv_chk)(fd, buf, n, buflen, flags), t);
}

TT_EXPORT ssize_t __recvfrom_chk(int fd, void* buf, size_t n, size_t buflen, int flags,
                                 sockaddr* from, socklen_t* len) {
  FdEntry* e = TrackedRecv(fd, flags);
  uint64_t t = Start(e);
  return Done(e, fd, kRecv, TT_NEXT(__recvfrom_chk)(fd, buf, n, buflen, flags, from, len), t);
}

// A descriptor's number may come back as another file: its cached kind is forgotten when it
// is closed or replaced, and when a socket call hands it out (which covers closes we do not
// see, such as fclose).
TT_EXPORT int close(int fd) {
  Reset(fd);
  return TT_NEXT(close)(fd);
}

TT_EXPORT int dup(int fd) {
  int r = TT_NEXT(dup)(fd);
  Reset(r);
  return r;
}

TT_EXPORT int dup2(int fd, int to) {
  if (fd != to) Reset(to);
  return TT_NEXT(dup2)(fd, to);
}

TT_EXPORT int dup3(int fd, int to, int flags) {
  Reset(to);
  return TT_NEXT(dup3)(fd, to, flags);
}

TT_EXPORT int socket(int domain, int type, int protocol) {
  int r = TT_NEXT(socket)(domain, type, protocol);
  Reset(r);
  return r;
}

TT_EXPORT int accept(int fd, sockaddr* addr, socklen_t* len) {
  int r = TT_NEXT(accept)(fd, addr, len);
  Reset(r);
  return r;
}

TT_EXPORT int accept4(int fd, sockaddr* addr, socklen_t* len, int flags) {
  int r = TT_NEXT(accept4)(fd, addr, len, flags);
  Reset(r);
  return r;
}
