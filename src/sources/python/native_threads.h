// Each thread of this process with the hash of its handle (native_threads.cc).
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

namespace tt_native {

// The process's threads: (tid, libstdc++'s std::hash of its std::thread::id, that of its
// pthread_t), through glibc's libthread_db; empty where it cannot be loaded.
std::vector<std::pair<long, size_t>> ThreadHandleHashes();

}  // namespace tt_native
