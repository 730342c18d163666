// Numbers as people read them, for findings and the report: 1,234; 1.2 GiB; 3.40 ms.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace tt::analysis {

inline std::string WithCommas(uint64_t n) {
  std::string d = std::to_string(n), out;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return out;
}

inline std::string HumanBytes(int64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b < 0 ? -b : b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char s[48];
  if (u == 0)
    std::snprintf(s, sizeof s, "%s%.0f B", b < 0 ? "-" : "", v);
  else
    std::snprintf(s, sizeof s, "%s%.1f %s", b < 0 ? "-" : "", v, units[u]);
  return s;
}

// 950 ns, 12.3 us, 4.56 ms, 7.89 s.
inline std::string HumanDuration(double ns) {
  char s[48];
  if (ns < 1e3)
    std::snprintf(s, sizeof s, "%.0f ns", ns);
  else if (ns < 1e6)
    std::snprintf(s, sizeof s, "%.1f us", ns / 1e3);
  else if (ns < 1e9)
    std::snprintf(s, sizeof s, "%.2f ms", ns / 1e6);
  else
    std::snprintf(s, sizeof s, "%.2f s", ns / 1e9);
  return s;
}

inline std::string Percent(double share) {
  char s[32];
  std::snprintf(s, sizeof s, "%.0f%%", share * 100);
  return s;
}

}  // namespace tt::analysis
