// The recording host's compute peak (format/hardware.h): FLOPs per cycle from the ISA flags,
// cores (not hyper-threads) and clock; this machine's own /proc/cpuinfo both ways (the formula
// by hand from its flags against CpuPeakOf), and hardware.json written and read back.
#include "format/hardware.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "test_util.h"

namespace tt {
namespace {

std::string CpuInfo(int cpus, int siblings, int cores, const std::string& flags) {
  std::string s;
  for (int i = 0; i < cpus; ++i)
    s += "processor\t: " + std::to_string(i) + "\nmodel name\t: Test CPU\ncpu MHz\t\t: 2000.000\n" +
         "siblings\t: " + std::to_string(siblings) + "\ncpu cores\t: " + std::to_string(cores) +
         "\nflags\t\t: " + flags + "\n\n";
  return s;
}

TEST(CpuPeak, FlopsPerCycleFromTheIsaFlags) {
  CpuPeak avx512 = CpuPeakOf(CpuInfo(4, 4, 4, "fpu sse2 avx avx2 fma avx512f"), 0);
  EXPECT_DOUBLE_EQ(avx512.fp32, 4 * 2e9 * 64);
  EXPECT_DOUBLE_EQ(avx512.bf16, avx512.fp32);  // no BF16 instructions: FP32's rate
  EXPECT_NE(avx512.source.find("4 cores x 2000 MHz"), std::string::npos) << avx512.source;
  EXPECT_NE(avx512.source.find("avx512f+fma"), std::string::npos) << avx512.source;
  EXPECT_DOUBLE_EQ(CpuPeakOf(CpuInfo(4, 4, 4, "sse2 avx avx2 fma"), 0).fp32, 4 * 2e9 * 32);
  EXPECT_DOUBLE_EQ(CpuPeakOf(CpuInfo(4, 4, 4, "sse2 avx"), 0).fp32, 4 * 2e9 * 16);
  EXPECT_DOUBLE_EQ(CpuPeakOf(CpuInfo(4, 4, 4, "sse2"), 0).fp32, 4 * 2e9 * 8);
  CpuPeak amx = CpuPeakOf(CpuInfo(2, 2, 2, "avx2 fma avx512f avx512_bf16 amx_bf16 amx_tile"), 0);
  EXPECT_DOUBLE_EQ(amx.bf16, 2 * 2e9 * 1024);
  EXPECT_NE(amx.source.find("amx_bf16"), std::string::npos) << amx.source;
  EXPECT_DOUBLE_EQ(CpuPeakOf(CpuInfo(2, 2, 2, "avx2 fma avx512f avx512_bf16"), 0).bf16,
                   2 * 2e9 * 128);
  // Two hyper-threads a core share its FMA units; cpufreq's maximum clock wins over cpu MHz.
  CpuPeak ht = CpuPeakOf(CpuInfo(8, 8, 4, "avx2 fma"), 3000);
  EXPECT_DOUBLE_EQ(ht.fp32, 4 * 3e9 * 32);
  EXPECT_NE(ht.source.find("cpuinfo_max_freq"), std::string::npos) << ht.source;
  EXPECT_EQ(CpuPeakOf(CpuInfo(4, 4, 4, "fpu"), 0).fp32, 0);  // unknown ISA: no peak
  EXPECT_EQ(CpuPeakOf("", 0).fp32, 0);
}

// NVIDIA GPUs: the data sheet's dense peaks by the driver's model name, the most specific
// name first (an A10 is no A100, an H100 PCIe no SXM part); a model the table lacks has none.
TEST(GpuPeak, DataSheetPeaksByModelName) {
  EXPECT_DOUBLE_EQ(GpuPeakOf("NVIDIA H200").fp32, 67e12);
  EXPECT_DOUBLE_EQ(GpuPeakOf("NVIDIA H200").bf16, 989.4e12);
  EXPECT_DOUBLE_EQ(GpuPeakOf("NVIDIA H200").bandwidth, 4.8e12);  // memory, bytes/s
  EXPECT_DOUBLE_EQ(GpuPeakOf("NVIDIA A100-SXM4-80GB").bandwidth, 2.039e12);
  EXPECT_DOUBLE_EQ(GpuPeakOf("NVIDIA H100 80GB HBM3").fp32, 67e12);
  EXPECT_DOUBLE_EQ(GpuPeakOf("NVIDIA H100 PCIe").fp32, 51.2e12);
  EXPECT_DOUBLE_EQ(GpuPeakOf("NVIDIA A100-SXM4-80GB").bf16, 312e12);
  EXPECT_DOUBLE_EQ(GpuPeakOf("NVIDIA A10").fp32, 31.2e12);
  EXPECT_DOUBLE_EQ(GpuPeakOf("Tesla V100-PCIE-16GB").fp32, 14e12);
  EXPECT_EQ(GpuPeakOf("Tesla V100-SXM2-16GB").bf16, 0);  // no BF16 tensor cores
  EXPECT_EQ(GpuPeakOf("NVIDIA H100 NVL").fp32, 0);
  EXPECT_EQ(GpuPeakOf("NVIDIA GeForce RTX 4090").fp32, 0);
  EXPECT_EQ(GpuPeakOf("").fp32, 0);
  EXPECT_NE(GpuPeakOf("NVIDIA H200").source.find("data sheet"), std::string::npos);
  test::TempDir d;
  std::ofstream(d / "hardware.json")
      << "{\n  \"cpu_fp32_flops_per_second\": 100,\n  \"cpu_bf16_flops_per_second\": 200,\n"
         "  \"cpu_peak_source\": \"CPU x\",\n  \"gpu_fp32_flops_per_second\": 67000000000000,\n"
         "  \"gpu_bf16_flops_per_second\": 989400000000000,\n  \"gpu_peak_source\": \"GPU y\"\n}\n";
  EXPECT_DOUBLE_EQ(ReadGpuPeak(d.path()).fp32, 67e12);
  EXPECT_EQ(ReadGpuPeak(d.path()).source, "GPU y");
  EXPECT_DOUBLE_EQ(ReadHardwareFile(d.path()).fp32, 100);
}

// This machine's cpuinfo: the peak is its cores x clock x the FLOPs a cycle its flags give.
TEST(CpuPeak, ThisMachineBothWays) {
  std::ifstream f("/proc/cpuinfo");
  std::stringstream s;
  s << f.rdbuf();
  std::string text = s.str();
  if (text.find("flags") == std::string::npos) GTEST_SKIP() << "no x86 flags in /proc/cpuinfo";
  CpuPeak p = CpuPeakOf(text, 0);
  std::string line = text.substr(text.find("\nflags"));
  line = line.substr(0, line.find('\n', 1)) + " ";
  auto has = [&](const char* f) {
    return line.find(" " + std::string(f) + " ") != std::string::npos;
  };
  double per_cycle = has("avx512f") && has("fma") ? 64
                     : has("avx2") && has("fma")  ? 32
                     : has("avx")                 ? 16
                                                  : 8;
  ASSERT_GT(p.fp32, 0) << p.source;
  double cycles_per_second = p.fp32 / per_cycle;  // cores x clock
  EXPECT_GT(cycles_per_second, 1e8);
  EXPECT_LT(cycles_per_second, 1e13);
  EXPECT_NE(p.source.find(std::to_string(static_cast<int>(per_cycle)) + " FP32 FLOPs a cycle"),
            std::string::npos)
      << p.source;
  test::TempDir d;
  ASSERT_TRUE(WriteHardwareFile(d.path()));
  CpuPeak back = ReadHardwareFile(d.path());
  EXPECT_NEAR(back.fp32, p.fp32, p.fp32 * 1e-9);
  EXPECT_FALSE(back.source.empty());
  EXPECT_EQ(ReadHardwareFile(d / "nothing").fp32, 0);
}

}  // namespace
}  // namespace tt
