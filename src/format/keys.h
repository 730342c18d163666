// The catalogue of the trace's vocabulary: every argument key a source or importer writes, the
// event names that analyses and exporters recognise, and the XSpace stat names read and
// written. Writers pass these constants where they intern a key; readers resolve them to a
// process's interned ids (model/args.h, model::KeyIds). docs/trace-format.md documents every
// entry (tests/format/keys_test.cc checks it through the arrays at the end of each section).
//
// Each constant is a NUL-terminated array, so it is a `const char*` for the runtime's interning
// and a std::string_view for readers. A new key: one line here, one entry in its array, and its
// documentation.
#pragma once
#include <string_view>

namespace tt::keys {

// ---- Argument keys (interned names of event arguments) ----

// Correlation and identity.
// CUPTI correlation id: a launch and its device work share it.
inline constexpr char kCorrelationId[] = "correlation_id";
// The framework's external correlation id pushed around a launch.
inline constexpr char kExternalId[] = "external_id";
// CUDA context id.
inline constexpr char kContext[] = "context";
// CUDA stream id.
inline constexpr char kStream[] = "stream";
// CUDA graph id of a graph launch's work.
inline constexpr char kGraphId[] = "graph_id";
// Node of the CUDA graph a kernel ran as.
inline constexpr char kGraphNodeId[] = "graph_node_id";
// CUDA event id a synchronisation waited on.
inline constexpr char kEvent[] = "event";
// A CUDA API call's return code (0: success).
inline constexpr char kReturnCode[] = "return_code";
// Which CUDA API: "runtime" or "driver".
inline constexpr char kApi[] = "api";

// Kernels.
// Launch grid, "XxYxZ" blocks.
inline constexpr char kGrid[] = "grid";
// Launch block, "XxYxZ" threads.
inline constexpr char kBlock[] = "block";
// Registers per thread.
inline constexpr char kRegisters[] = "registers";
// Static shared memory per block, bytes.
inline constexpr char kStaticShared[] = "static_shared";
// Dynamic shared memory per block, bytes.
inline constexpr char kDynamicShared[] = "dynamic_shared";

// Copies, memsets and memory.
// Size in bytes (copy, memset, allocation, NCCL message).
inline constexpr char kBytes[] = "bytes";
// Copy direction: HtoD, DtoH, DtoD, HtoH, PtoP....
inline constexpr char kKind[] = "kind";
// Copy source memory kind: pageable, pinned, device, managed....
inline constexpr char kSrcKind[] = "src_kind";
// Copy destination memory kind.
inline constexpr char kDstKind[] = "dst_kind";
// Memory kind of a memset or an allocation.
inline constexpr char kMemoryKind[] = "memory_kind";
// A memset's byte value; ITT metadata's first value.
inline constexpr char kValue[] = "value";
// Address of an allocation or a free.
inline constexpr char kAddr[] = "addr";
// The allocator's name ("cuda" for CUDA allocations).
inline constexpr char kAllocator[] = "allocator";
// The allocator's name, as XSpace allocations give it.
inline constexpr char kAllocatorName[] = "allocator_name";
// Bytes the allocator holds after the event (XSpace).
inline constexpr char kBytesAllocated[] = "bytes_allocated";
// The framework op an allocation belongs to (its name).
inline constexpr char kOp[] = "op";

// Framework ops and steps.
// A TensorFlow op's node name ("node" of "node:OpType").
inline constexpr char kOpName[] = "op_name";
// A TensorFlow op's type ("OpType").
inline constexpr char kOpType[] = "op_type";
// A TensorFlow op's producers in its tf.function's graph: their node names, comma-separated
// (from the graphs the bootstrap saved, DIR/xspace/<pid>/tf_graph.tsv).
inline constexpr char kTfInputs[] = "tf_inputs";
// The step number of a step slice.
inline constexpr char kStep[] = "step";
// The TensorFlow op around a device event (an XSpace stat kept as argument).
inline constexpr char kTfOp[] = "tf_op";
// An XSpace event's display name, when it differs from its name.
inline constexpr char kDisplayName[] = "display_name";

// Annotations (NVTX, ITT).
// The NVTX or ITT domain of a user annotation.
inline constexpr char kDomain[] = "domain";
// NVTX event category: its registered name, else its number.
inline constexpr char kCategory[] = "category";
// An NVTX scalar payload.
inline constexpr char kPayload[] = "payload";
// Schema id of an NVTX extended payload with no known schema.
inline constexpr char kPayloadSchema[] = "payload_schema";
// Size of that payload, bytes.
inline constexpr char kPayloadBytes[] = "payload_bytes";
// The thread that started an NVTX start/end range, when not the ender.
inline constexpr char kStartTid[] = "start_tid";
// PyTorch emit_nvtx's sequence number.
inline constexpr char kSeq[] = "seq";
// The rest of a PyTorch emit_nvtx message after the op's name.
inline constexpr char kDetail[] = "detail";
// NCCL collective (its range's name without "nccl").
inline constexpr char kCollective[] = "collective";
// NCCL communicator id (NCCL payload field).
inline constexpr char kCommunicator[] = "communicator";
// NCCL reduction operation.
inline constexpr char kReduction[] = "reduction";
// NCCL number of ranks.
inline constexpr char kNranks[] = "nranks";
// NCCL rank.
inline constexpr char kRank[] = "rank";
// NCCL's CUDA device.
inline constexpr char kDevice[] = "device";
// PyTorch (Kineto) ops and collectives.
// An op's input shapes, as JSON ("[[8,1,28,28],[8]]"; [] for a non-tensor input).
inline constexpr char kInputDims[] = "input_dims";
// An op's input types, as JSON (["float","Scalar"]).
inline constexpr char kInputTypes[] = "input_types";
// The forward thread of a backward op (autograd).
inline constexpr char kFwdTid[] = "fwd_tid";
// A collective's element type.
inline constexpr char kDtype[] = "dtype";
// A collective's process group (its name, or its ranks).
inline constexpr char kProcessGroup[] = "process_group";
// A collective's instance key: the framework's id of one collective instance, the same on
// every rank (TensorFlow's instance_key); `comm` matches instances by it where present.
inline constexpr char kInstanceKey[] = "instance_key";
// A collective's input element count.
inline constexpr char kInNelems[] = "in_nelems";
// A collective's output element count.
inline constexpr char kOutNelems[] = "out_nelems";
// A point-to-point operation's other rank in its process group: a send's destination, a
// receive's source.
inline constexpr char kPeerRank[] = "peer_rank";
// An op execution's floating-point operations (an integer), how they were found
// (kFlopsFramework: the framework's own count, kFlopsShape: a formula over the op's shapes),
// and the bytes of its outputs, where known (absent where not).
inline constexpr char kFloatOps[] = "float_ops";
inline constexpr char kFlopsMethod[] = "flops_method";
inline constexpr char kFlopsFramework[] = "framework";
inline constexpr char kFlopsShape[] = "shape formula";
inline constexpr char kOutputBytes[] = "output_bytes";
// ... and of its inputs (with output_bytes, the bytes it moved: its arithmetic intensity).
inline constexpr char kInputBytes[] = "input_bytes";
// The nn.Module path around a PyTorch op ("Sequential/Conv2d_0"): the scope view's hierarchy.
inline constexpr char kModule[] = "module";
// Bytes the allocator reserves after the event (PyTorch).
inline constexpr char kBytesReserved[] = "bytes_reserved";
// ITT metadata's second value (value2... follow).
inline constexpr char kValue1[] = "value1";
// ITT metadata's third value.
inline constexpr char kValue2[] = "value2";
// ITT metadata's fourth value.
inline constexpr char kValue3[] = "value3";
// ITT metadata's fifth value.
inline constexpr char kValue4[] = "value4";
// ITT metadata's sixth value.
inline constexpr char kValue5[] = "value5";
// ITT metadata's seventh value.
inline constexpr char kValue6[] = "value6";
// ITT metadata's eighth value.
inline constexpr char kValue7[] = "value7";
// The Python source (python.frame, python.sample, python.site).
// A Python frame's number in its process (python.frame).
inline constexpr char kFrameId[] = "frame_id";
// A Python frame's text, "file:line:function" (python.frame).
inline constexpr char kFrame[] = "frame";
// A Python stack: its frames' numbers, outermost first, comma-separated.
inline constexpr char kFrames[] = "frames";
// The thread a Python sample is of (the sampler writes it into its own stream).
inline constexpr char kTid[] = "tid";
// A Python sample's previous look at its thread (CLOCK_MONOTONIC ns), which still saw the
// stack before: the change happened between then and the sample.
inline constexpr char kSince[] = "since";
// When a Python sample's look at the frames was (CLOCK_MONOTONIC ns; the event is written after).
inline constexpr char kAt[] = "at";
// A thread's CPU time so far (its CPU clock, ns) when the sampler read it (python.cpu).
inline constexpr char kCpuNs[] = "cpu_ns";
// The time a thread held the GIL so far, as the sampler's looks saw it (python.gil): each look
// counts the time since the previous one to the thread that held it just before.
inline constexpr char kGilNs[] = "gil_ns";
// The socket source (net.send, net.recv, net.connection): the connection's id in its process,
// the connection's byte offset in the call's direction before the call, and the connection's
// local and peer addresses ("127.0.0.1:5000", "[::1]:5000") and descriptor.
inline constexpr char kConn[] = "conn";
inline constexpr char kOffset[] = "offset";
inline constexpr char kLocal[] = "local";
inline constexpr char kPeer[] = "peer";
inline constexpr char kFd[] = "fd";
// The NCCL source (src/sources/nccl): an operation's element count, root rank, NCCL's
// algorithm ("Ring", "Tree"...), protocol ("LL", "LL128", "Simple") and channels; a proxy
// operation's or kernel channel's channel, its steps and chunk size (bytes); a proxy step's
// number; a network plugin event's id.
inline constexpr char kCount[] = "count";
inline constexpr char kRoot[] = "root";
inline constexpr char kAlgorithm[] = "algorithm";
inline constexpr char kProtocol[] = "protocol";
inline constexpr char kChannels[] = "channels";
inline constexpr char kChannel[] = "channel";
inline constexpr char kSteps[] = "steps";
inline constexpr char kChunkSize[] = "chunk_size";
inline constexpr char kProxyStep[] = "proxy_step";
inline constexpr char kNetPlugin[] = "net_plugin";

// Every argument key above.
// clang-format off
inline constexpr std::string_view kArgKeys[] = {
    kCorrelationId, kExternalId, kContext, kStream, kGraphId, kGraphNodeId, kEvent, kReturnCode,
    kApi, kGrid, kBlock, kRegisters, kStaticShared, kDynamicShared, kBytes, kKind, kSrcKind,
    kDstKind, kMemoryKind, kValue, kAddr, kAllocator, kAllocatorName, kBytesAllocated, kOp, kOpName,
    kOpType, kTfInputs, kStep, kTfOp, kDisplayName, kDomain, kCategory, kPayload, kPayloadSchema,
    kPayloadBytes, kStartTid, kSeq, kDetail, kCollective, kCommunicator, kReduction, kNranks, kRank,
    kDevice, kInputDims, kInputTypes, kFwdTid, kDtype, kProcessGroup, kInstanceKey, kInNelems,
    kOutNelems, kPeerRank, kModule, kBytesReserved, kValue1, kValue2, kValue3, kValue4, kValue5, kValue6,
    kValue7, kFrameId, kFrame, kFrames, kTid, kSince, kAt, kCpuNs, kConn, kOffset, kLocal, kPeer,
    kFd, kCount, kRoot, kAlgorithm, kProtocol, kChannels, kChannel, kSteps, kChunkSize, kProxyStep,
    kNetPlugin, kFloatOps, kFlopsMethod, kOutputBytes, kInputBytes,
};
// clang-format on

// ITT metadata values by position: kValue, kValue1 ... kValue7.
// clang-format off
inline constexpr const char* kIttValues[] = {
    kValue, kValue1, kValue2, kValue3, kValue4, kValue5, kValue6, kValue7,
};
// clang-format on

// ---- Well-known event names ----

// Allocation instant (CUDA, XSpace): bytes, addr.
inline constexpr char kMemoryAllocation[] = "MemoryAllocation";
// Free instant (CUDA, XSpace): addr.
inline constexpr char kMemoryDeallocation[] = "MemoryDeallocation";
// A free instant by another allocator's name.
inline constexpr char kFree[] = "free";
// A CUDA copy on its device track.
inline constexpr char kMemcpy[] = "memcpy";
// A CUDA memset on its device track.
inline constexpr char kMemset[] = "memset";
// Counter of an imported allocator's bytes held.
inline constexpr char kBytesInUse[] = "bytes in use";
// The Python source (python instants in the sampler thread's stream): a frame's definition
// (frame_id, frame), a thread's stack from then on (tid, frames), and where a graph op was
// created (op_name, frames).
inline constexpr char kPythonFrame[] = "python.frame";
inline constexpr char kPythonSample[] = "python.sample";
inline constexpr char kPythonSite[] = "python.site";
// A Python thread's CPU time read by the sampler where it changed (tid, cpu_ns, since, at).
inline constexpr char kPythonCpu[] = "python.cpu";
// A Python thread's time holding the GIL, where a look counted more to it (tid, gil_ns, since, at).
inline constexpr char kPythonGil[] = "python.gil";
// The exact tracer (record --python-tracer) runs in the process: its Python function calls are
// python slices on each thread's own stream, named "file(line): function".
inline constexpr char kPythonTracer[] = "python.tracer";
// A TensorFlow collective op of a traced graph (op_name, op_type, bytes of its input from its
// static shape and dtype), written once when tf.function traces the graph: the bytes its
// XSpace event lacks.
inline constexpr char kTfCollectiveOp[] = "tf.collective_op";
// The socket source (src/sources/net): a call that moved bytes on a TCP connection (a
// communication slice with conn, offset, bytes), and a connection's first use in a process
// (an instant with conn, fd, local, peer).
inline constexpr char kNetSend[] = "net.send";
inline constexpr char kNetRecv[] = "net.recv";
inline constexpr char kNetConnection[] = "net.connection";
// The NCCL source (src/sources/nccl), communication slices: a collective or point-to-point
// operation is "nccl." followed by NCCL's name for it ("nccl.AllReduce", "nccl.Send"; from its
// enqueue to its last proxy or kernel-channel event's end); then a group, a proxy operation
// (one channel's network work), a proxy step (one transfer), a kernel channel and a network
// plugin event.
inline constexpr char kNcclPrefix[] = "nccl.";
inline constexpr char kNcclGroup[] = "nccl.group";
inline constexpr char kNcclProxySend[] = "nccl.proxy_send";
inline constexpr char kNcclProxyRecv[] = "nccl.proxy_recv";
inline constexpr char kNcclStepSend[] = "nccl.step_send";
inline constexpr char kNcclStepRecv[] = "nccl.step_recv";
inline constexpr char kNcclKernelChannel[] = "nccl.kernel_channel";
inline constexpr char kNcclNet[] = "nccl.net";

// Every well-known event name above.
// clang-format off
inline constexpr std::string_view kEventNames[] = {
    kMemoryAllocation, kMemoryDeallocation, kFree, kMemcpy, kMemset, kBytesInUse, kPythonFrame,
    kPythonSample, kPythonSite, kPythonCpu, kPythonGil, kPythonTracer, kTfCollectiveOp, kNetSend, kNetRecv,
    kNetConnection, kNcclGroup, kNcclProxySend, kNcclProxyRecv, kNcclStepSend, kNcclStepRecv,
    kNcclKernelChannel, kNcclNet,
};
// clang-format on

// Whether an allocation event named `name` frees memory: a name holding "Deallocation"
// (MemoryDeallocation, and any allocator's ...Deallocation) or "free". The one rule for every
// analysis and export.
constexpr bool IsFreeEvent(std::string_view name) {
  return name.find("Deallocation") != std::string_view::npos || name == kFree;
}

// ---- XSpace stat names (TensorFlow/JAX profiler data: read by the importer, written by the
// XSpace export; docs/trace-format.md "Imported XSpace" and docs/xspace-export.md) ----
namespace xstat {
// Step number of a step event.
inline constexpr char kStepNum[] = "step_num";
// Step number (older TensorFlow).
inline constexpr char kIterNum[] = "iter_num";
// Step group of a device "Steps" event.
inline constexpr char kGroupId[] = "group_id";
// Root-level TraceMe (a step marker with step_num).
inline constexpr char kRootLevel[] = "_r";
// SessionRun's step number.
inline constexpr char kId[] = "id";
// The TensorFlow op of an event (the same text as the argument key).
using keys::kTfOp;
// An XLA CPU op's HLO op name.
inline constexpr char kHloOp[] = "hlo_op";
// The device (of a multi-device XLA program) an XLA op ran for.
inline constexpr char kDeviceOrdinal[] = "device_ordinal";
// An XLA CPU op's HLO category (its type).
inline constexpr char kHloCategory[] = "hlo_category";
// Bytes of an allocation.
inline constexpr char kAllocationBytes[] = "allocation_bytes";
// Bytes an allocation asked for.
inline constexpr char kRequestedBytes[] = "requested_bytes";
// Address of an allocation.
inline constexpr char kAddr[] = "addr";
// Allocator of an allocation.
inline constexpr char kAllocatorName[] = "allocator_name";
// Bytes the allocator holds after it.
inline constexpr char kBytesAllocated[] = "bytes_allocated";
// The allocator's peak so far.
inline constexpr char kPeakBytesInUse[] = "peak_bytes_in_use";
// Bytes reserved (0 from the export).
inline constexpr char kBytesReserved[] = "bytes_reserved";
// Bytes available (0 from the export).
inline constexpr char kBytesAvailable[] = "bytes_available";
// A tf.function call's TraceMe: how it was called ("traced-nonXla", "notTraced-nonXla", ...).
inline constexpr char kTfFunctionCall[] = "tf_function_call";
// A tf.function call's number: that function's calls in the process counted from 0 (written by
// tensortrace's TensorFlow adapter, python/tensortrace/tf_adapter.py).
inline constexpr char kTensortraceCall[] = "tensortrace_call";
// An XLA CPU op's execution (one per run of a compiled program; JAX's CPU client numbers a
// program's runs one by one).
inline constexpr char kRunId[] = "run_id";
// An XLA CPU op's HLO module ("jit_update" for JAX's jax.jit of `update`).
inline constexpr char kHloModule[] = "hlo_module";
// An XLA CPU op's compiled program (the id its HLO is filed under in the metadata plane).
inline constexpr char kProgramId[] = "program_id";
// The metadata plane: a compiled program's serialised xla.HloProto (bytes).
inline constexpr char kHloProto[] = "Hlo Proto";
// The allocator's fragmentation after an allocation or free (0..1; BFC allocators).
inline constexpr char kFragmentation[] = "fragmentation";
// What an allocation holds: "output", "temp", "persist"... (TensorFlow).
inline constexpr char kRegionType[] = "region_type";
// The allocated tensor's TensorFlow DataType (an enum number).
inline constexpr char kDataType[] = "data_type";
// The allocated tensor's shape, "[d0,d1,...]".
inline constexpr char kShape[] = "shape";
// Task Environment: the epoch of relative times.
inline constexpr char kProfileStartTime[] = "profile_start_time";
// Task Environment: the capture's end.
inline constexpr char kProfileStopTime[] = "profile_stop_time";

// Every XSpace stat name above.
// clang-format off
inline constexpr std::string_view kAll[] = {
    kStepNum, kIterNum, kGroupId, kRootLevel, kId, kTfOp, kHloOp, kHloCategory, kAllocationBytes,
    kRequestedBytes, kAddr, kAllocatorName, kBytesAllocated, kPeakBytesInUse, kBytesReserved,
    kBytesAvailable, kTfFunctionCall, kTensortraceCall, kRunId, kHloModule, kFragmentation,
    kRegionType, kDataType, kShape, kProfileStartTime, kProfileStopTime, kProgramId, kHloProto,
};
// clang-format on
}  // namespace xstat

}  // namespace tt::keys
