#include "model/meaning.h"

#include <array>
#include <cctype>

namespace tt::model {

using layout::Category;

namespace {

constexpr std::string_view kEager = "EagerLocalExecute: ";

bool StartsWithAny(std::string_view n, std::initializer_list<std::string_view> prefixes) {
  for (auto p : prefixes)
    if (n.starts_with(p)) return true;
  return false;
}

// TensorFlow's and XLA's input pipeline ops (by type).
bool IsInputOpType(std::string_view t) {
  return t.starts_with("IteratorGetNext") || t.ends_with("Dataset") || t.ends_with("DatasetV2") ||
         t.ends_with("DatasetV3") ||
         StartsWithAny(t, {"AnonymousIterator", "MakeIterator", "MultiDeviceIterator",
                           "InfeedDequeue", "InfeedEnqueue", "OutfeedEnqueue"});
}

bool IsCommunicationOpType(std::string_view t) {
  return StartsWithAny(
      t, {"_Send", "_Recv", "_HostSend", "_HostRecv", "Collective", "Nccl", "c10d::", "all-reduce",
          "all-gather", "reduce-scatter", "all-to-all", "collective-permute", "send", "recv",
          // XLA's collectives as JAX names their instructions (psum_invariant.7, all_gather.3)
          "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute", "psum",
          "pmax", "pmin", "ppermute"});
}

// TraceMes of tracing and compilation (TensorFlow, XLA, JAX, MLIR).
bool IsCompileName(std::string_view n) {
  return StartsWithAny(
             n, {"tf.function-graph_building", "tf.function-trace", "XlaCompile", "backend_compile",
                 "lower_sharding_computation", "lower_jaxpr", "trace_to_jaxpr", "jax_", "Codegen",
                 "HLO passes", "mlir::", "compile_or_get_cached", "TfrtCompile"}) ||
         n.find("Compiler::") != std::string_view::npos ||
         n.find("Client::Compile") != std::string_view::npos ||
         n.find("JitCompiler") != std::string_view::npos || n.starts_with("ThunkEmitter::") ||
         // torch.compile: Dynamo's and Inductor's timed phases, their data, the async compiles
         n.ends_with("(dynamo_timed)") || n.find(": compile_id=") != std::string_view::npos ||
         n.starts_with("async_compile.") || n == "dynamo" ||
         // Inductor's phases, which Kineto records as ops without their timed twin when the
         // backward compiles on its first call
         n == "inductor_compile" || n == "code_gen" || n == "fx_codegen_and_compile" ||
         n.starts_with("compile_fx") || n.starts_with("GraphLowering.") ||
         n.starts_with("Scheduler.") || n == "create_aot_dispatcher_function" ||
         // entire_frame_compile, entire_backward_compile: a whole compilation's range
         (n.starts_with("entire_") && n.ends_with("_compile") && n.find(' ') == n.npos) ||
         n.starts_with("compile_attempt_") || (n.ends_with("Pass") && n.find(' ') == n.npos);
}

// tf.data's iterator ranges and the work they schedule.
bool IsInputName(std::string_view n) {
  return StartsWithAny(n, {"Iterator::", "MakeIterator::", "IteratorGetNextOp::", "IteratorGetNext",
                           "tf.data", "enumerate(DataLoader)", "DataLoader fetch"}) ||
         n.ends_with("Produce") || n.ends_with("Consume");
}

// The framework's own machinery: TensorFlow's eager and graph runtimes, thread pools, the
// Python API's conversions, JAX's dispatch, XLA's executors.
bool IsRuntimeName(std::string_view n) {
  return StartsWithAny(n, {"TFE_",
                           "Eager",
                           "Executor",
                           "ThreadpoolListener::",
                           "ParallelFor",
                           "KernelAndDevice",
                           "FunctionRun",
                           "InstantiatedCapturedFunction::",
                           "ValidateInputTypeAndPlacement",
                           "ProcessFunctionLibraryRuntime",
                           "FunctionLibraryRuntime",
                           "__inference_",
                           "convert_to_tensor",
                           "tf.constant",
                           "PjitFunction(",
                           "TaskDispatcher::",
                           "TorchDynamo Cache Lookup",
                           "ThunkExecutor::",
                           "CommonPjRt",
                           "DevicePut",
                           "BatchedDevicePut",
                           "pjit",
                           "ExecuteReplicated",
                           "shard_args",
                           "PjRt",
                           "TfrtCpuExecutable",
                           "DirectSession::",
                           "RunGraph",
                           "CallOp",
                           "PartitionedCallOp",
                           "Rendezvous",
                           "ScopedAllocatorOptimizer",
                           "Grappler",
                           "grappler"}) ||
         n.find("Allocator::") != std::string_view::npos;
}

// JAX's and PjRt's dispatch of a jitted call (argument parsing, input buffers and their holds,
// output allocation, batched transfers, garbage collection of Python references) and the XLA
// CPU thunk executor's completion of an op ("end: dot.2", inside the op "dot.2"): runtime, whose
// time belongs to the call or op it serves.
// Also their waits ("Wait for LaunchOnDevice completion", "Wait: pending_threads=1/2", a
// thread pool's Await), host-to-device dispatch, the rendezvous of a collective's participants
// and a device's share of a multi-device launch ("[1] CommonPjRtLoadedExecutable::Execute").
bool IsJaxRuntimeName(std::string_view n) {
  if (n.size() > 3 && n[0] == '[') {  // "[N] name": device N's part of a runtime range
    size_t close = n.find("] ");
    bool index = close != n.npos && close > 1;
    for (size_t i = 1; index && i < close; ++i)
      index = std::isdigit(static_cast<unsigned char>(n[i])) != 0;
    if (index) n.remove_prefix(close + 2);
  }
  return n.starts_with("end: ") || n.find("ThreadPool::Await") != n.npos ||
         StartsWithAny(
             n, {"ParseArguments", "Handle inputs", "Handle input event recording", "Wait for ",
                 "Wait: ", "AllocateOutputBuffers",
                 "PythonRefManager::", "batched_copy_array_to_devices", "BatchedCopyToDevice",
                 "copy_array_to_devices", "H2D Dispatch", "D2H Dispatch", "InvokeRendezvous",
                 "CopyToMemorySpace", "np.asarray(jax.Array)", "CommonPjRt", "PjRt"});
}

Meaning OfAnnotation(std::string_view n) {
  // TensorFlow's eager dispatch of one op: the kernel runs inside it, but xprof's framework op
  // stats do not count it as an op (TensorFlow 2.21 writes no op TraceMe for it), so that the
  // op view equals xprof's it has its own kind, shown in the runtime view.
  if (n.starts_with(kEager)) {
    std::string_view type = n.substr(kEager.size());
    return IsInputOpType(type) ? Meaning::kInput : Meaning::kEagerOp;
  }
  if (IsCompileName(n)) return Meaning::kCompile;
  if (IsInputName(n)) return Meaning::kInput;
  if (IsRuntimeName(n) || IsJaxRuntimeName(n)) return Meaning::kRuntime;
  // A library's range of one collective, "Library::collective" ("FSDP::all_gather (0)"): the
  // ops inside it copy in and out, and its own time is the wait for the collective that the
  // backend runs on its worker thread.
  if (size_t c = n.rfind("::"); c != n.npos && IsCommunicationOpType(n.substr(c + 2)))
    return Meaning::kCommunication;
  return Meaning::kAnnotation;
}

// The dispatcher's machinery, which Kineto records as ops: its Python keys (a dispatch mode's
// and a tensor subclass's __torch_dispatch__, DTensor's under FSDP2 and tensor parallelism: the
// subclass's Python around the aten ops it runs) and torch.compile's AOTAutograd runtime
// wrappers (their time is the code's they run).
bool IsTorchRuntimeOp(std::string_view n) {
  return StartsWithAny(n, {"AOTDispatcher Runtime Wrapper", "PythonDispatchMode", "PythonSubclass",
                           "TorchDynamo Cache Lookup"});
}

Meaning OfFrameworkOp(std::string_view name) {
  // torch.compile's phases reach Kineto as ops ("entire_frame_compile", "... (dynamo_timed)").
  if (IsCompileName(name)) return Meaning::kCompile;
  if (IsTorchRuntimeOp(name)) return Meaning::kRuntime;
  std::string type = OpTypeOf(name);
  if (IsInputOpType(type)) return Meaning::kInput;
  if (IsCommunicationOpType(type)) return Meaning::kCommunication;
  return Meaning::kOp;
}

}  // namespace

const char* MeaningName(Meaning m) {
  static constexpr std::array<const char*, 13> names = {
      "op",     "runtime", "compile", "input",  "communication", "step", "primitive",
      "memory", "device",  "api",     "python", "annotation",    "eager"};
  return names[static_cast<size_t>(m)];
}

Meaning MeaningOf(Category c, std::string_view name) {
  switch (c) {
    case Category::kFrameworkOp:
      return OfFrameworkOp(name);
    case Category::kUser:
      return OfAnnotation(name);
    case Category::kRuntimeApi:
      return Meaning::kApi;
    case Category::kGpuKernel:
    case Category::kMemcpy:
    case Category::kMemset:
    case Category::kSync:
      return Meaning::kDevice;
    case Category::kAllocation:
      return Meaning::kMemory;
    case Category::kCommunication:
      return Meaning::kCommunication;
    case Category::kPython:
      return Meaning::kPython;
    case Category::kPrimitive:
      return Meaning::kPrimitive;
    case Category::kStep:
      return Meaning::kStep;
    default:
      return Meaning::kAnnotation;
  }
}

bool IsInputWait(std::string_view name) {
  // PyTorch: the loop's wait for its DataLoader's next batch.
  if (name.starts_with("enumerate(DataLoader)")) return true;
  std::string type = OpTypeOf(name);
  return StartsWithAny(type, {"IteratorGetNext", "InfeedDequeue", "MultiDeviceIteratorGetNext"});
}

std::string OpTypeOf(std::string_view name) {
  if (name.starts_with(kEager)) name.remove_prefix(kEager.size());
  // Inductor's call of a compiled graph, "## Call CompiledFxGraph <hash> ##" (no "#k=v#"
  // arguments): the graph by the start of its hash, forward and backward apart.
  if (name.starts_with("## ") && name.ends_with(" ##") && name.size() > 6) {
    std::string_view g = name.substr(3, name.size() - 6);
    if (g.starts_with("Call ")) g.remove_prefix(5);
    size_t space = g.find(' ');
    return std::string(space == g.npos ? g : g.substr(0, std::min(g.size(), space + 1 + 10)));
  }
  std::string_view n = name.substr(0, name.find('#'));
  size_t c = n.rfind(':');
  // "node:Type"; not a label "what: detail" (its detail starts with a space, and is no type).
  if (c != std::string_view::npos && c + 1 < n.size() && n.find("::") == n.npos && n[c + 1] != ' ')
    return std::string(n.substr(c + 1));
  // An XLA instruction "fusion.3": its opcode, without the instance number.
  size_t dot = n.rfind('.');
  if (c == std::string_view::npos && dot != std::string_view::npos && dot > 0 &&
      dot + 1 < n.size() && n.find_first_of(" /") == n.npos) {
    bool digits = true;
    for (size_t i = dot + 1; i < n.size(); ++i)
      digits &= std::isdigit(static_cast<unsigned char>(n[i])) != 0;
    if (digits) return std::string(n.substr(0, dot));
  }
  return std::string(n);
}

}  // namespace tt::model
