// Error values shared by every module: a message that names what failed and where.
#pragma once
#include <stdexcept>
#include <string>

namespace tt {

// Thrown for bad input (files, options). `what()` is one line a user can act on.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

}  // namespace tt
