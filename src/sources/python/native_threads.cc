// Each thread's handle (pthread_t) by its tid, for the native Python sampler
// (native_sampler.cc): TensorFlow's profiler names its host lines by std::hash of the thread's
// std::thread::id (a hash of its pthread_t), which the XSpace import can place on a thread only
// where the trace says which tid has that hash. Threads that write a stream of their own say so
// themselves (runtime/process.cc); the pool threads that run TensorFlow's ops write none, so the
// sampler notes theirs (tt_py_thread), which gives their ops the CPU time it reads of them.
//
// glibc's libthread_db lists a process's threads with their handles, as debuggers use it; here
// on this process itself: its proc_service callbacks read this process's memory through
// process_vm_readv (a list changing under the walk reads garbage, never faults), and it runs
// only when a thread not seen before appears.
#include "native_threads.h"

#include <dlfcn.h>
#include <proc_service.h>
#include <signal.h>
#include <sys/uio.h>
#include <thread_db.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <utility>
#include <vector>

// The callbacks libthread_db needs of its host (proc_service.h): found in the global scope, so
// this library makes itself global before it loads libthread_db (LoadThreadDb).
extern "C" {
struct ps_prochandle {
  int unused;
};
#define TT_PS __attribute__((visibility("default")))
TT_PS pid_t ps_getpid(ps_prochandle*) { return getpid(); }
TT_PS ps_err_e ps_pglobal_lookup(ps_prochandle*, const char*, const char* name, psaddr_t* addr) {
  void* p = dlsym(RTLD_DEFAULT, name);
  if (!p) return PS_NOSYM;
  *addr = p;
  return PS_OK;
}
TT_PS ps_err_e ps_pdread(ps_prochandle*, psaddr_t addr, void* buf, size_t n) {
  iovec local{buf, n}, remote{const_cast<void*>(addr), n};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n) ? PS_OK
                                                                                         : PS_ERR;
}
TT_PS ps_err_e ps_pdwrite(ps_prochandle*, psaddr_t, const void*, size_t) { return PS_ERR; }
TT_PS ps_err_e ps_lgetregs(ps_prochandle*, lwpid_t, prgregset_t) { return PS_ERR; }
TT_PS ps_err_e ps_lsetregs(ps_prochandle*, lwpid_t, const prgregset_t) { return PS_ERR; }
TT_PS ps_err_e ps_lgetfpregs(ps_prochandle*, lwpid_t, prfpregset_t*) { return PS_ERR; }
TT_PS ps_err_e ps_lsetfpregs(ps_prochandle*, lwpid_t, const prfpregset_t*) { return PS_ERR; }
TT_PS ps_err_e ps_get_thread_area(ps_prochandle*, lwpid_t, int, psaddr_t*) { return PS_ERR; }
}

namespace tt_native {

namespace {

using TaNew = td_err_e (*)(ps_prochandle*, td_thragent_t**);
using ThrIter = td_err_e (*)(const td_thragent_t*, td_thr_iter_f*, void*, td_thr_state_e, int,
                             sigset_t*, unsigned int);
using GetInfo = td_err_e (*)(const td_thrhandle_t*, td_thrinfo_t*);

struct ThreadDb {
  td_thragent_t* agent = nullptr;
  ThrIter iter = nullptr;
  GetInfo info = nullptr;
};

ps_prochandle g_self;

// libthread_db on this process, or an empty one where it cannot be had.
ThreadDb LoadThreadDb() {
  ThreadDb db;
  Dl_info me;
  if (!dladdr(reinterpret_cast<void*>(&ps_getpid), &me) || !me.dli_fname) return db;
  if (!dlopen(me.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) return db;
  void* lib = dlopen("libthread_db.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return db;
  auto init = reinterpret_cast<td_err_e (*)()>(dlsym(lib, "td_init"));
  auto ta_new = reinterpret_cast<TaNew>(dlsym(lib, "td_ta_new"));
  db.iter = reinterpret_cast<ThrIter>(dlsym(lib, "td_ta_thr_iter"));
  db.info = reinterpret_cast<GetInfo>(dlsym(lib, "td_thr_get_info"));
  if (!init || !ta_new || !db.iter || !db.info || init() != TD_OK ||
      ta_new(&g_self, &db.agent) != TD_OK)
    db.agent = nullptr;
  return db;
}

struct Walk {
  const ThreadDb* db;
  std::vector<std::pair<long, size_t>> found;  // (tid, hash of its handle)
};

int OneThread(const td_thrhandle_t* t, void* arg) {
  auto* w = static_cast<Walk*>(arg);
  td_thrinfo_t ti;
  std::memset(&ti, 0, sizeof ti);
  if (w->db->info(t, &ti) != TD_OK || ti.ti_lid <= 0) return 0;
  pthread_t handle = static_cast<pthread_t>(ti.ti_tid);
  w->found.emplace_back(ti.ti_lid, std::_Hash_impl::hash(&handle, sizeof handle));
  return w->found.size() >= 100000;  // a list that changed under the walk: stop
}

}  // namespace

std::vector<std::pair<long, size_t>> ThreadHandleHashes() {
  static const ThreadDb db = LoadThreadDb();
  if (!db.agent) return {};
  Walk w{&db, {}};
  sigset_t all;
  sigfillset(&all);
  db.iter(db.agent, OneThread, &w, TD_THR_ANY_STATE, TD_THR_LOWEST_PRIORITY, &all,
          TD_THR_ANY_USER_FLAGS);
  return w.found;
}

}  // namespace tt_native
