// Small file helpers; they throw tt::Error with the path in the message.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tt {

std::string ReadFile(const std::string& path);
// Writes through a temporary file and rename(), so readers never see half a file.
void WriteFileAtomic(const std::string& path, const std::string& data);
bool IsDirectory(const std::string& path);
bool PathExists(const std::string& path);
// Entries of a directory (no "." or ".."), sorted by name.
std::vector<std::string> ListDirectory(const std::string& path);
uint64_t FileSize(const std::string& path);

}  // namespace tt
