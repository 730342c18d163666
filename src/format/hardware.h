// The recording host's compute peak, kept in the trace directory (hardware.json, written by
// `record`) so that model FLOP utilisation is measured against the machine that ran the job,
// not the one that reads the trace. CPU: cores x clock x FLOPs per cycle from the ISA flags.
#pragma once
#include <string>
#include <string_view>

namespace tt {

struct CpuPeak {
  double fp32 = 0, bf16 = 0;  // FLOP/s; 0: unknown
  std::string source;         // how: cores, clock, FLOPs per cycle and the flags behind them
};

// The peak from /proc/cpuinfo's text; max_mhz: cpufreq's cpuinfo_max_freq in MHz (0: unknown,
// then cpuinfo's "cpu MHz"). FLOPs per cycle and core, FP32: 64 with avx512f and fma (two FMA
// units of 16 lanes), 32 with avx2 and fma, 16 with avx, 8 with sse2; BF16: 1024 with
// amx_bf16 (a tile multiply of 512 multiply-adds a cycle), 128 with avx512_bf16, else FP32's.
CpuPeak CpuPeakOf(std::string_view cpuinfo, double max_mhz);

// An NVIDIA GPU's data-sheet peak (dense, boost clock) by its model name as the driver gives
// it (/proc/driver/nvidia/gpus/*/information: "NVIDIA H200", "NVIDIA A100-SXM4-80GB"): FP32
// (CUDA cores) and BF16 (tensor cores; 0 where it has none), and its memory bandwidth (bytes/s,
// the sheet's; of a model's memory variants the fastest: a roofline's least time). Unknown
// models: fp32 0.
struct GpuPeak {
  double fp32 = 0, bf16 = 0;
  std::string source;
  double bandwidth = 0;
};
GpuPeak GpuPeakOf(std::string_view model);

// Writes <dir>/hardware.json for this machine; false where it could not.
bool WriteHardwareFile(const std::string& dir);
// The peak a recording's hardware.json holds; fp32 0 where it has none.
CpuPeak ReadHardwareFile(const std::string& dir);
// ... and its first GPU's; fp32 0 where it has none.
GpuPeak ReadGpuPeak(const std::string& dir);

}  // namespace tt
