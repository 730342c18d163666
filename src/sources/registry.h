// The sources `record` can switch on, in one table: each source's name in --sources, its words
// in `record --help`, and its arming (the environment a traced process needs for that source to
// start in it), which lives in src/sources/<name>/arm.cc. `record` parses --sources, prints its
// help and arms the sources through this table only; a new source is one arm.cc and one entry.
// Compiled into the tensortrace executable (tt_sources_arm), not into libtensortrace.so.
#pragma once
#include <span>
#include <string>
#include <string_view>

namespace tt::sources {

// The framework profilers' settings (record's --tf-host-level, --python-tracer, --steps,
// --window-s), handed to the Python bootstrap, and TensorFlow's CPU allocator
// (--tf-cpu-allocator), handed to TensorFlow.
struct PythonOptions {
  int host_level = 2;            // --tf-host-level
  bool python_tracer = false;    // --python-tracer
  std::string steps;             // --steps, normalised to "A:B" ("A:" when open); empty: all
  double window_s = 0;           // --window-s; 0: one window for the whole run
  std::string tf_cpu_allocator;  // --tf-cpu-allocator: "auto", "bfc", "default"; empty: auto
  double sample_ms = -1;         // --python-sample-ms: the sampler's period; 0: off; -1: default
};

// What arming needs from `record`.
struct ArmOptions {
  std::string runtime_lib;  // path of libtensortrace.so (the collectors live in it or beside it)
  bool quiet = false;       // record --quiet: no warning when a user's setting wins
  PythonOptions python;
};

struct Source {
  const char* name;  // in --sources
  const char* help;  // its words in the --sources lines of `record --help`
  // Sets the environment variables of record's own process (which the traced command
  // inherits) that switch this source on; warns on stderr (unless quiet) where a user's
  // setting keeps it off.
  void (*arm)(const ArmOptions&);
  // On only where --sources names it (or says all): its cost is not for every recording.
  bool opt_in = false;
};

// Every source, in the order `record --help` lists them.
std::span<const Source> All();

// The source named `name`, or null.
const Source* Find(std::string_view name);

// The lines of `record --help` about --sources (from the table's names and help).
const std::string& SourcesHelp();

// "cuda, nvtx, itt, python, net, nccl": the names, for messages.
std::string NameList();

// Arms the sources for which `on(name)` holds, in the order record always armed them (itt,
// python, cuda, nvtx: the order of their warnings; then net, nccl).
void ArmSources(bool (*on)(const std::string& name), const ArmOptions& o);

// Each source's arming (src/sources/<name>/arm.cc).
void ArmCuda(const ArmOptions& o);
void ArmNvtx(const ArmOptions& o);
void ArmItt(const ArmOptions& o);
void ArmPython(const ArmOptions& o);
void ArmNet(const ArmOptions& o);
void ArmNccl(const ArmOptions& o);

}  // namespace tt::sources
