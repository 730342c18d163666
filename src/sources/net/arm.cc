// Arming the socket source for `record` (see sources/registry.h).
#include <cstdlib>
#include <string>

#include "sources/registry.h"

namespace tt::sources {

// Sockets: the interposers live in their own library beside the runtime's
// (libtensortrace_net.so), put into LD_PRELOAD right behind it, so that a recording without
// this source pays nothing for them. They need the runtime, which LD_PRELOAD then holds.
void ArmNet(const ArmOptions& o) {
  std::string lib = o.runtime_lib;
  size_t slash = lib.rfind('/');
  std::string net =
      lib.substr(0, slash == std::string::npos ? 0 : slash + 1) + "libtensortrace_net.so";
  const char* old = std::getenv("LD_PRELOAD");
  std::string preload = old ? old : "";
  size_t at = preload.find(lib);
  if (at == std::string::npos)
    preload = net + (preload.empty() ? "" : ":" + preload);
  else
    preload.insert(at + lib.size(), ":" + net);
  setenv("LD_PRELOAD", preload.c_str(), 1);
}

}  // namespace tt::sources
