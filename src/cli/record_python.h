// `record`'s options for the frameworks' own profilers (TensorFlow, JAX), and the environment
// that hands them to the Python bootstrap in python/tensortrace/.
#pragma once
#include <string>

#include "cli/args.h"

namespace tt::cli {

struct PythonCaptureOptions {
  int host_level = 2;          // --tf-host-level
  bool python_tracer = false;  // --python-tracer
  std::string steps;           // --steps, normalised to "A:B" ("A:" when open); empty: all
  double window_s = 0;         // --window-s; 0: one window for the whole run
};

// The lines of `record --help` about these options.
extern const char kPythonCaptureHelp[];

// Consumes one of the options above if it is next; throws tt::Error on a bad value.
bool ParsePythonCaptureOption(ArgReader& a, PythonCaptureOptions* o);

// Puts the bootstrap's directory first on PYTHONPATH (keeping the user's) and sets the
// TENSORTRACE_* variables it reads. Without a bootstrap, warns once and changes nothing.
void SetPythonCaptureEnvironment(const PythonCaptureOptions& o);

}  // namespace tt::cli
