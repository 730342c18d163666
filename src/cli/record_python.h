// `record`'s options for the frameworks' own profilers (TensorFlow, JAX). The environment that
// hands them to the Python bootstrap (python/tensortrace/) is the python source's arming,
// src/sources/python/arm.cc.
#pragma once
#include <string>

#include "cli/args.h"
#include "sources/registry.h"

namespace tt::cli {

using PythonCaptureOptions = sources::PythonOptions;

// The lines of `record --help` about these options.
extern const char kPythonCaptureHelp[];

// Consumes one of the options above if it is next; throws tt::Error on a bad value.
bool ParsePythonCaptureOption(ArgReader& a, PythonCaptureOptions* o);

}  // namespace tt::cli
