// One XSpace file (a profiler's .xplane.pb) as bytes: parsed into its message without the
// empty planes. (FindXSpaceFiles, import.h, finds the files; space_file.cc defines both.)
#pragma once
#include <string>

namespace tensorflow::profiler {
class XSpace;
}

namespace tt {

// Parses an XSpace plane by plane and leaves out empty planes: an empty XPlane is two bytes in
// the file but hundreds in memory, so a file of them made the import's memory follow the file's
// count of planes instead of the events kept (issue 40). False where `data` is not an XSpace.
bool ParseSpaceSkippingEmpty(const std::string& data, tensorflow::profiler::XSpace* space);

}  // namespace tt
