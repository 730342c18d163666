// The messages net_job sends, one per size, client to server; each is answered by an 8-byte
// acknowledgement (net_test.cc derives the expected byte totals from these).
#pragma once
#include <cstddef>
#include <cstdint>

inline constexpr size_t kNetSizes[] = {1,       2,       100,      4096,     65537,
                                       1 << 20, 3 << 20, 10000019, 64u << 20};
inline constexpr size_t kNetAckBytes = sizeof(uint64_t);
