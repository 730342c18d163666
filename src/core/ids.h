// Identifiers: UUIDs for traces and the host's boot id (the identity of its monotonic clock).
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace tt {

using Uuid = std::array<uint8_t, 16>;

Uuid RandomUuid();
std::string UuidToString(const Uuid& u);
// Parses "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"; false if malformed.
bool ParseUuid(const std::string& s, Uuid* out);
// The kernel's boot id: CLOCK_MONOTONIC values are comparable only within one boot.
std::string BootId();
std::string HostName();

}  // namespace tt
