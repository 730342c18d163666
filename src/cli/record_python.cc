// `record`'s options for the frameworks' own profilers, passed to the Python bootstrap.
#include "cli/record_python.h"

namespace tt::cli {

const char kPythonCaptureHelp[] =
    R"(Python (any framework): TensorFlow's graph functions record where each op was created, and
a thread of tensortrace's reads every thread's Python stack every few milliseconds and records
it when it changed; `stats --view code` maps op time to the program's lines.
  --python-sample-ms N     sample the Python stacks every N ms (default 5; 0: off). In CPython
                           3.11 a native thread does it and creates no Python object; in other
                           versions sampling runs in Python, only when this option asks for
                           it: its objects move the interpreter's garbage collections (one may
                           run on its thread), so a memory peak may differ from untraced
TensorFlow and JAX: in every Python process, once `tensorflow` is imported (`jax`: once it
first sets up its backends), the framework's own profiler runs until the process ends or the
program starts that profiler itself; record then converts what it wrote (DIR/xspace/PID/) into
the trace.
  --tf-host-level 1|2|3    the profiler's host tracer level: 1 critical, 2 info, 3 verbose
                           (default 2)
  --python-tracer          the profiler's Python function tracer too (slow). TensorFlow 2.21
                           ignores both options (it says "expects an i value" on stderr and
                           keeps level 2, no Python tracer); JAX applies them
  --steps A:B              keep only steps A to B (inclusive; A: or :B open), by the numbers
                           the framework gives them (Keras 3's are counted by record from 0:
                           the process's train, test and predict calls): the profiler captures
                           the whole run and record's import keeps the events inside those
                           steps (and every allocation). Without numbered steps (a custom
                           tf.function loop, JAX) everything is kept: select with
                           `stats --steps`
  --window-s N             capture in windows of N seconds (at least 1): the profiler's data
                           is written and its memory freed every N seconds (default: one
                           window; a PyTorch rank of a multi-rank job: 5 s, so that a rank
                           killed mid-run keeps its windows before the last;
                           TENSORTRACE_RANK_WINDOW_S=N changes that, 0: one). With Keras 3
                           a window ends between two steps (the program waits while it is
                           written), so no step is lost; otherwise events in
                           the short gaps between windows are lost, and `info` names the
                           numbered steps missing. A thread keeps one track across windows
  --tf-cpu-allocator auto|bfc|default
                           TensorFlow's CPU allocator. auto (the default): a BFC allocator
                           (TF_CPU_ALLOCATOR_USE_BFC=true) when TensorFlow runs with oneDNN
                           off (TF_ENABLE_ONEDNN_OPTS=0, or its default on a CPU without
                           AVX-512 VNNI/BF16/AMX), TensorFlow's own otherwise, and the
                           program's when it sets TF_CPU_ALLOCATOR_USE_BFC itself. Under
                           TensorFlow's profiler the default allocator of oneDNN off costs
                           about 45% per step (fresh pages for each step's big buffers) and
                           reports no allocation; a BFC allocator keeps its memory and reports
                           each one. It changes the program's allocator, not what it computes.
                           bfc: always; default: as TensorFlow decides
)";

bool ParsePythonCaptureOption(ArgReader& a, PythonCaptureOptions* o) {
  std::string v;
  if (a.Option("--tf-host-level", &v)) {
    if (v != "1" && v != "2" && v != "3")
      throw Error("record: --tf-host-level must be 1, 2 or 3, got '" + v + "'");
    o->host_level = v[0] - '0';
  } else if (a.Flag("--python-tracer")) {
    o->python_tracer = true;
  } else if (a.Option("--steps", &v)) {
    analysis::StepRange r = ParseStepRange(v);
    o->steps = std::to_string(r.first) + ":" +
               (r.last == INT64_MAX ? std::string() : std::to_string(r.last));
  } else if (a.Option("--tf-cpu-allocator", &v)) {
    if (v != "auto" && v != "bfc" && v != "default")
      throw Error("record: --tf-cpu-allocator must be auto, bfc or default, got '" + v + "'");
    o->tf_cpu_allocator = v;
  } else if (a.Option("--python-sample-ms", &v)) {
    o->sample_ms = ParseNonNegativeDouble("--python-sample-ms", v, 1000, "milliseconds");
    if (o->sample_ms != 0 && o->sample_ms < 0.5)
      throw Error("record: --python-sample-ms must be 0 (off) or at least 0.5, got " + v);
  } else if (a.Option("--window-s", &v)) {
    o->window_s = ParseSeconds("--window-s", v);
    // The profiler names each window's directory by the second it was written in.
    if (o->window_s < 1) throw Error("record: --window-s must be at least 1 second, got " + v);
  } else {
    return false;
  }
  return true;
}

}  // namespace tt::cli
