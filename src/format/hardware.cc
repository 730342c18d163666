// The recording host's compute peak (hardware.h).
#include "format/hardware.h"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "core/files.h"

namespace tt {

namespace {

// The value of cpuinfo's first "key\t: value" line, "" when none.
std::string_view Field(std::string_view text, std::string_view key) {
  size_t at = 0;
  while (at < text.size()) {
    size_t eol = text.find('\n', at);
    std::string_view line = text.substr(at, eol == std::string_view::npos ? eol : eol - at);
    at = eol == std::string_view::npos ? text.size() : eol + 1;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view k = line.substr(0, colon);
    while (!k.empty() && (k.back() == ' ' || k.back() == '\t')) k.remove_suffix(1);
    if (k != key) continue;
    std::string_view v = line.substr(colon + 1);
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    return v;
  }
  return {};
}

double Number(std::string_view s) {
  double v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

size_t CountLines(std::string_view text, std::string_view key) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find(key, at)) != std::string_view::npos; at += key.size())
    if (at == 0 || text[at - 1] == '\n') ++n;
  return n;
}

std::string Fixed(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

}  // namespace

CpuPeak CpuPeakOf(std::string_view cpuinfo, double max_mhz) {
  CpuPeak p;
  std::set<std::string, std::less<>> flags;
  std::istringstream in{std::string(Field(cpuinfo, "flags"))};
  for (std::string f; in >> f;) flags.insert(f);
  auto has = [&](std::string_view f) { return flags.count(f) > 0; };
  double per_cycle = has("avx512f") && has("fma") ? 64
                     : has("avx2") && has("fma")  ? 32
                     : has("avx")                 ? 16
                     : has("sse2")                ? 8
                                                  : 0;
  std::string isa = per_cycle == 64   ? "avx512f+fma: 2 FMA units x 16 lanes x 2"
                    : per_cycle == 32 ? "avx2+fma: 2 FMA units x 8 lanes x 2"
                    : per_cycle == 16 ? "avx: 8-lane add and multiply"
                                      : "sse2: 4-lane add and multiply";
  double bf16 = has("amx_bf16") ? 1024 : has("avx512_bf16") ? 128 : per_cycle;
  size_t cpus = CountLines(cpuinfo, "processor");
  double siblings = Number(Field(cpuinfo, "siblings")), cores = Number(Field(cpuinfo, "cpu cores"));
  // Hyper-threads share a core's FMA units: count cores, not logical CPUs.
  double per_core = siblings > 0 && cores > 0 && siblings >= cores ? siblings / cores : 1;
  double n = static_cast<double>(cpus) / per_core;
  double mhz = max_mhz > 0 ? max_mhz : Number(Field(cpuinfo, "cpu MHz"));
  if (per_cycle == 0 || n < 1 || mhz <= 0) return p;
  p.fp32 = n * mhz * 1e6 * per_cycle;
  p.bf16 = n * mhz * 1e6 * bf16;
  p.source = "CPU " + std::string(Field(cpuinfo, "model name")) + ": " + Fixed(n, 0) + " cores x " +
             Fixed(mhz, 0) + " MHz (" +
             (max_mhz > 0 ? "cpufreq's cpuinfo_max_freq" : "/proc/cpuinfo's cpu MHz") + ") x " +
             Fixed(per_cycle, 0) + " FP32 FLOPs a cycle (" + isa + "); BF16 " + Fixed(bf16, 0) +
             " a cycle" +
             (has("amx_bf16")      ? " (amx_bf16)"
              : has("avx512_bf16") ? " (avx512_bf16)"
                                   : "");
  return p;
}

GpuPeak GpuPeakOf(std::string_view model) {
  struct Sheet {
    const char* name;   // matched as a substring, most specific first
    double fp32, bf16;  // TFLOP/s, dense
    double memory;      // GB/s
  };
  static constexpr Sheet kSheets[] = {
      {"H100 PCIe", 51.2, 756, 2000}, {"H100 NVL", 0, 0, 0},      {"H100", 67, 989.4, 3350},
      {"H200", 67, 989.4, 4800},      {"GH200", 67, 989.4, 4900}, {"A100", 19.5, 312, 2039},
      {"A10", 31.2, 125, 600},        {"L40S", 91.6, 362, 864},   {"L4", 30.3, 121, 300},
      {"V100-PCIE", 14, 0, 900},      {"V100", 15.7, 0, 900},     {"T4", 8.1, 0, 320},
  };
  GpuPeak p;
  for (const Sheet& s : kSheets)
    if (model.find(s.name) != std::string_view::npos) {
      if (s.fp32 <= 0) break;  // a model whose sheet this does not hold
      p.fp32 = s.fp32 * 1e12;
      p.bf16 = s.bf16 * 1e12;
      p.bandwidth = s.memory * 1e9;
      p.source = "GPU " + std::string(model) + ": the data sheet's " + Fixed(s.fp32, 1) +
                 " TFLOP/s FP32" + (s.bf16 > 0 ? ", " + Fixed(s.bf16, 1) + " BF16 (dense)" : "") +
                 ", " + Fixed(s.memory, 0) + " GB/s memory";
      break;
    }
  return p;
}

namespace {

// The first GPU's model name from the NVIDIA driver's /proc files ("" when none).
std::string FirstGpuModel() {
  for (int i = 0; i < 64; ++i) {
    std::ifstream f("/proc/driver/nvidia/gpus/" + std::to_string(i) + "/information");
    std::stringstream text;
    text << f.rdbuf();
    std::string_view model = Field(text.str(), "Model");
    if (!model.empty()) return std::string(model);
  }
  return "";
}

std::string JsonSafe(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20) out.push_back(c);
  return out;
}

}  // namespace

bool WriteHardwareFile(const std::string& dir) {
  std::ifstream f("/proc/cpuinfo");
  std::stringstream text;
  text << f.rdbuf();
  double khz = 0;
  std::ifstream freq("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  freq >> khz;
  CpuPeak p = CpuPeakOf(text.str(), khz / 1e3);
  GpuPeak g = GpuPeakOf(FirstGpuModel());
  if (p.fp32 <= 0 && g.fp32 <= 0) return false;
  std::string gpu = g.fp32 <= 0
                        ? ""
                        : ",\n  \"gpu_fp32_flops_per_second\": " + Fixed(g.fp32, 0) +
                              ",\n  \"gpu_bf16_flops_per_second\": " + Fixed(g.bf16, 0) +
                              ",\n  \"gpu_memory_bytes_per_second\": " + Fixed(g.bandwidth, 0) +
                              ",\n  \"gpu_peak_source\": \"" + JsonSafe(g.source) + "\"";
  try {
    WriteFileAtomic(dir + "/hardware.json",
                    "{\n  \"cpu_fp32_flops_per_second\": " + Fixed(p.fp32, 0) +
                        ",\n  \"cpu_bf16_flops_per_second\": " + Fixed(p.bf16, 0) +
                        ",\n  \"cpu_peak_source\": \"" + JsonSafe(p.source) + "\"" + gpu + "\n}\n");
  } catch (...) {
    return false;
  }
  return true;
}

namespace {

// A peak's fields in hardware.json: "<prefix>_fp32_flops_per_second", ..._bf16_...,
// "<prefix>_peak_source"; false where the file has none.
bool ReadPeak(const std::string& dir, const std::string& prefix, double* fp32, double* bf16,
              std::string* source, double* memory = nullptr) {
  std::ifstream f(dir + "/hardware.json");
  std::stringstream s;
  s << f.rdbuf();
  std::string text = s.str();
  auto after = [&](const std::string& key) -> std::string_view {
    size_t at = text.find("\"" + key + "\": ");
    return at == std::string::npos ? std::string_view()
                                   : std::string_view(text).substr(at + key.size() + 4);
  };
  *fp32 = Number(after(prefix + "_fp32_flops_per_second"));
  *bf16 = Number(after(prefix + "_bf16_flops_per_second"));
  if (memory) *memory = Number(after(prefix + "_memory_bytes_per_second"));
  std::string_view src = after(prefix + "_peak_source");
  if (src.starts_with('"')) *source = std::string(src.substr(1, src.find('"', 1) - 1));
  return *fp32 > 0 && !source->empty();
}

}  // namespace

CpuPeak ReadHardwareFile(const std::string& dir) {
  CpuPeak p;
  if (!ReadPeak(dir, "cpu", &p.fp32, &p.bf16, &p.source)) p = {};
  return p;
}

GpuPeak ReadGpuPeak(const std::string& dir) {
  GpuPeak p;
  if (!ReadPeak(dir, "gpu", &p.fp32, &p.bf16, &p.source, &p.bandwidth)) p = {};
  return p;
}

}  // namespace tt
