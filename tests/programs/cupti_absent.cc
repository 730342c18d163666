// Calls the CUDA source's InitializeInjection by hand, as the CUDA driver would, in a process
// that has no CUDA (run under `tensortrace record`, which preloads the runtime library).
// Prints "rc N"; exits 2 if the entry point is missing.
#include <dlfcn.h>

#include <cstdio>

int main() {
  auto init = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "InitializeInjection"));
  if (!init) {
    std::printf("no InitializeInjection\n");
    return 2;
  }
  std::printf("rc %d\n", init());
  return 0;
}
