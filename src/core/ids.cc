#include "core/ids.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "core/time.h"

namespace tt {

Uuid RandomUuid() {
  Uuid u{};
  if (getrandom(u.data(), u.size(), 0) != static_cast<ssize_t>(u.size())) {
    // Fall back to time and pid: uniqueness within one host is all we need.
    uint64_t a = ReadClockNs(CLOCK_MONOTONIC), b = static_cast<uint64_t>(getpid());
    std::memcpy(u.data(), &a, 8);
    std::memcpy(u.data() + 8, &b, 8);
  }
  u[6] = static_cast<uint8_t>((u[6] & 0x0f) | 0x40);  // version 4
  u[8] = static_cast<uint8_t>((u[8] & 0x3f) | 0x80);  // RFC 4122 variant
  return u;
}

std::string UuidToString(const Uuid& u) {
  char s[37];
  std::snprintf(s, sizeof s,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                u[14], u[15]);
  return s;
}

bool ParseUuid(const std::string& s, Uuid* out) {
  if (s.size() != 36) return false;
  size_t j = 0;
  for (size_t i = 0; i < 36;) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
      ++i;
      continue;
    }
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    int hi = hex(s[i]), lo = hex(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*out)[j++] = static_cast<uint8_t>(hi * 16 + lo);
    i += 2;
  }
  return true;
}

std::string BootId() {
  char buf[64] = {0};
  int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n >= 36) {
      std::string s(buf, 36);
      Uuid u;
      if (ParseUuid(s, &u)) return s;
    }
  }
  return "00000000-0000-4000-8000-000000000000";
}

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

int64_t MeasureRealtimeOffsetNs() {
  // The realtime reading is bracketed by two monotonic ones; the narrowest bracket wins.
  int64_t best_off = 0;
  uint64_t best_width = UINT64_MAX;
  for (int i = 0; i < 8; ++i) {
    uint64_t m0 = ReadClockNs(CLOCK_MONOTONIC);
    uint64_t r = ReadClockNs(CLOCK_REALTIME);
    uint64_t m1 = ReadClockNs(CLOCK_MONOTONIC);
    if (m1 - m0 < best_width) {
      best_width = m1 - m0;
      best_off = static_cast<int64_t>(r) - static_cast<int64_t>(m0 + (m1 - m0) / 2);
    }
  }
  return best_off;
}

}  // namespace tt
