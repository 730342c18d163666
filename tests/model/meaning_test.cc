// What each event means (model/meaning.h), on names taken from real TensorFlow 2.21 and JAX
// 0.10 captures (the Keras CNN and JAX loop of tests/programs), and op types split cleanly.
#include "model/meaning.h"

#include <gtest/gtest.h>

namespace tt::model {
namespace {

using layout::Category;

TEST(Meaning, TensorFlowHostEventsByKind) {
  struct Case {
    Category c;
    const char* name;
    Meaning want;
  } cases[] = {
      {Category::kFrameworkOp,
       "StatefulPartitionedCall/sequential_1/conv2d_1/Relu:_MklNativeFusedConv2D", Meaning::kOp},
      {Category::kFrameworkOp, "StatefulPartitionedCall/adam/Mul_19:Mul", Meaning::kOp},
      {Category::kFrameworkOp, "IteratorGetNext:IteratorGetNext", Meaning::kInput},
      {Category::kFrameworkOp, "_send_range_0:_Send", Meaning::kCommunication},
      {Category::kFrameworkOp, "CollectiveReduceV2:CollectiveReduceV2", Meaning::kCommunication},
      {Category::kUser, "EagerLocalExecute: Mul", Meaning::kEagerOp},
      {Category::kUser, "EagerLocalExecute: __inference_multi_step_on_iterator_1494",
       Meaning::kEagerOp},
      {Category::kUser, "EagerLocalExecute: MakeIterator", Meaning::kInput},
      {Category::kUser, "EagerExecute", Meaning::kRuntime},
      {Category::kUser, "ExecutorState::Process", Meaning::kRuntime},
      {Category::kUser, "KernelAndDeviceFunc::Run", Meaning::kRuntime},
      {Category::kUser, "TFE_DeleteTensorHandle", Meaning::kRuntime},
      {Category::kUser, "ThreadpoolListener::StartRegion", Meaning::kRuntime},
      {Category::kUser, "ParallelFor", Meaning::kRuntime},
      {Category::kUser, "convert_to_tensor", Meaning::kRuntime},
      {Category::kUser, "BasicCPUAllocator::Alloc", Meaning::kRuntime},
      {Category::kUser, "tf.function-graph_building", Meaning::kCompile},
      {Category::kUser, "Iterator::Root::Prefetch::ParallelMapV2", Meaning::kInput},
      {Category::kUser, "MakeIterator::PrefetchDataset", Meaning::kInput},
      {Category::kUser, "ParallelMapProduce", Meaning::kInput},
      {Category::kUser, "IteratorGetNextOp::DoCompute", Meaning::kInput},
      // JAX / XLA
      {Category::kUser, "PjitFunction(update)", Meaning::kRuntime},
      {Category::kUser, "backend_compile_and_load", Meaning::kCompile},
      {Category::kUser, "PjRtCpuClient::Compile", Meaning::kCompile},
      {Category::kUser, "CpuCompiler::RunBackend", Meaning::kCompile},
      {Category::kUser, "CanonicalizerPass", Meaning::kCompile},
      {Category::kUser, "lower_sharding_computation", Meaning::kCompile},
      {Category::kUser, "ThunkExecutor::Execute", Meaning::kRuntime},
      {Category::kUser, "CommonPjRtLoadedExecutable::ExecuteHelperOnSingleDevice",
       Meaning::kRuntime},
      {Category::kUser, "DevicePutWithSharding", Meaning::kRuntime},
      {Category::kFrameworkOp, "dot.2", Meaning::kOp},
      // JAX's dispatch and the XLA CPU thunk executor's end of an op (jax_train_loop.py)
      {Category::kUser, "end: dot.2", Meaning::kRuntime},
      {Category::kUser, "end: broadcast_maximum_fusion", Meaning::kRuntime},
      {Category::kUser, "ParseArguments", Meaning::kRuntime},
      {Category::kUser, "Handle inputs", Meaning::kRuntime},
      {Category::kUser, "Handle input event recording", Meaning::kRuntime},
      {Category::kUser, "Wait for usage holds", Meaning::kRuntime},
      {Category::kUser, "Wait for donation holds", Meaning::kRuntime},
      {Category::kUser, "AllocateOutputBuffersWithInputReuse", Meaning::kRuntime},
      {Category::kUser, "PythonRefManager::CollectGarbage", Meaning::kRuntime},
      {Category::kUser, "batched_copy_array_to_devices_with_sharding", Meaning::kRuntime},
      {Category::kUser, "batched_copy_array_to_devices_with_sharding: assemble device lists",
       Meaning::kRuntime},
      {Category::kUser, "BatchedCopyToDeviceWithSharding create batch", Meaning::kRuntime},
      {Category::kUser, "BatchedCopyToDeviceWithSharding: dispatch", Meaning::kRuntime},
      // JAX 0.10 on two host devices (tests/corpus/jax_shard_map_psum.py): waits, dispatch,
      // a device's part of a launch, and the XLA collective itself
      {Category::kUser, "Wait for LaunchOnDevice completion", Meaning::kRuntime},
      {Category::kUser, "Wait: pending_threads=1/2", Meaning::kRuntime},
      {Category::kUser, "Wait for rendezvous callback", Meaning::kRuntime},
      {Category::kUser, "SlinkyThreadPool::Await", Meaning::kRuntime},
      {Category::kUser, "H2D Dispatch", Meaning::kRuntime},
      {Category::kUser, "InvokeRendezvous", Meaning::kRuntime},
      {Category::kUser, "np.asarray(jax.Array)", Meaning::kRuntime},
      {Category::kUser, "[1] CommonPjRtLoadedExecutable::Execute (jit_train_step)",
       Meaning::kRuntime},
      {Category::kUser, "[12 monkeys] my range", Meaning::kAnnotation},
      {Category::kFrameworkOp, "psum_invariant.28", Meaning::kCommunication},
      {Category::kFrameworkOp, "all_gather.3", Meaning::kCommunication},
      {Category::kFrameworkOp, "multiply_add_fusion.2", Meaning::kOp},
      // PyTorch (Kineto)
      {Category::kFrameworkOp, "aten::mm", Meaning::kOp},
      {Category::kFrameworkOp, "c10d::allreduce_", Meaning::kCommunication},
      {Category::kUser, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
       Meaning::kInput},
      {Category::kUser, "DataLoader fetch", Meaning::kInput},
      {Category::kUser, "_compile.compile_inner (dynamo_timed)", Meaning::kCompile},
      {Category::kUser, "GraphLowering.run_data: compile_id=0/0", Meaning::kCompile},
      {Category::kUser, "async_compile.wait", Meaning::kCompile},
      {Category::kFrameworkOp, "entire_frame_compile", Meaning::kCompile},
      {Category::kFrameworkOp, "entire_backward_compile", Meaning::kCompile},
      {Category::kFrameworkOp, "inductor_compile", Meaning::kCompile},
      {Category::kFrameworkOp, "code_gen", Meaning::kCompile},
      {Category::kFrameworkOp, "Scheduler.codegen", Meaning::kCompile},
      {Category::kFrameworkOp, "_compile.compile_inner (dynamo_timed)", Meaning::kCompile},
      {Category::kFrameworkOp, "## Call CompiledFxGraph f37s3omfbo6e3myyq7iq4p2dg7xomym ##",
       Meaning::kOp},
      {Category::kUser, "TorchDynamo Cache Lookup", Meaning::kRuntime},
      {Category::kFrameworkOp, "AOTDispatcher Runtime Wrapper Prologue", Meaning::kRuntime},
      {Category::kFrameworkOp, "PythonDispatchMode", Meaning::kRuntime},
      {Category::kFrameworkOp, "PythonSubclass", Meaning::kRuntime},
      {Category::kFrameworkOp, "Torch-Compiled Region: 0/0", Meaning::kOp},
      {Category::kUser, "Optimizer.step#SGD.step", Meaning::kAnnotation},
      // The program's own ranges stay annotations; other categories by category.
      {Category::kUser, "my training phase", Meaning::kAnnotation},
      {Category::kUser, "Trainer::step", Meaning::kAnnotation},
      // A library's range of one collective: its own time waits for the backend's.
      {Category::kUser, "FSDP::all_gather (0)", Meaning::kCommunication},
      {Category::kUser, "FSDP::reduce_scatter", Meaning::kCommunication},
      {Category::kUser, "FSDP::post_backward_reduce", Meaning::kAnnotation},
      {Category::kPrimitive, "convolution", Meaning::kPrimitive},
      {Category::kStep, "train", Meaning::kStep},
      {Category::kGpuKernel, "volta_sgemm", Meaning::kDevice},
      {Category::kRuntimeApi, "cudaLaunchKernel", Meaning::kApi},
      {Category::kAllocation, "MemoryAllocation", Meaning::kMemory},
  };
  for (const auto& c : cases)
    EXPECT_EQ(MeaningName(MeaningOf(c.c, c.name)), std::string(MeaningName(c.want))) << c.name;
}

TEST(Meaning, OpTypesSplitCleanly) {
  EXPECT_EQ(OpTypeOf("a/b/c:MatMul"), "MatMul");
  EXPECT_EQ(OpTypeOf("node:_FusedConv2D#shape=(1,2)#"), "_FusedConv2D");
  EXPECT_EQ(OpTypeOf("EagerLocalExecute: Mul"), "Mul");  // no leading space
  EXPECT_EQ(OpTypeOf("fusion.3"), "fusion");
  // Inductor's compiled graph (torch.compile): named by its hash, never "".
  EXPECT_EQ(
      OpTypeOf("## Call CompiledFxGraph f37s3omfbo6e3myyq7iq4p2dg7xomymmusbaazw7eyuzqybnhtfw ##"),
      "CompiledFxGraph f37s3omfbo");
  EXPECT_EQ(OpTypeOf("ynn_fusion.12"), "ynn_fusion");
  EXPECT_EQ(OpTypeOf("broadcast_add_fusion"), "broadcast_add_fusion");
  EXPECT_EQ(OpTypeOf("Iterator::Root"), "Iterator::Root");
  EXPECT_EQ(OpTypeOf("step.1 of 3"), "step.1 of 3");
  EXPECT_EQ(OpTypeOf("trailing:"), "trailing:");
  // A label "what: detail" has no type: never " detail" with its leading space.
  EXPECT_EQ(OpTypeOf("end: dot.2"), "end: dot.2");
  EXPECT_EQ(OpTypeOf("BatchedCopyToDeviceWithSharding: dispatch"),
            "BatchedCopyToDeviceWithSharding: dispatch");
  EXPECT_TRUE(IsOpLike(Meaning::kOp));
  EXPECT_TRUE(IsOpLike(Meaning::kInput));
  EXPECT_FALSE(IsOpLike(Meaning::kRuntime));
  EXPECT_FALSE(IsOpLike(Meaning::kCompile));
}

}  // namespace
}  // namespace tt::model
