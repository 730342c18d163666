// What the native sampler and the native tracer read of a code object (CPython 3.11): its file
// and qualified name, and whether it is the bootstrap's own. Include after <Python.h>.
#pragma once
#include <string>
#include <string_view>

namespace tt_native {

struct CodeNames {
  const char* file;  // "?" where it cannot be read
  const char* name;
  bool own;  // a file under the bootstrap's directory `own_dir`: not the program's
};

// With the GIL. The texts live as long as the code object.
inline CodeNames NamesOf(PyCodeObject* code, const std::string& own_dir) {
  const char* file = PyUnicode_AsUTF8(code->co_filename);
  const char* name = PyUnicode_AsUTF8(code->co_qualname);
  if (!file || !name) {
    PyErr_Clear();
    file = file ? file : "?";
    name = name ? name : "?";
  }
  return {file, name, !own_dir.empty() && std::string_view(file).starts_with(own_dir)};
}

}  // namespace tt_native
