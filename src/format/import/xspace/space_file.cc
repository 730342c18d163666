// Finding a profiler's XSpace files in its log directory, and parsing one.
#include "format/import/xspace/space_file.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include "core/files.h"
#include "format/import/untrusted.h"
#include "format/import/xspace/import.h"
#include "format/proto/xplane.pb.h"

namespace tt {

namespace xp = tensorflow::profiler;

std::vector<std::string> FindXSpaceFiles(const std::string& logdir,
                                         std::vector<std::string>* skipped) {
  std::vector<std::string> out;
  // The traced program made these directories: a link among them could lead anywhere.
  auto real_dir = [&](const std::string& d) {
    if (IsRealDirectory(d)) return true;
    if (skipped && EntryExists(d))
      skipped->push_back(ValidUtf8(d) + ": not a directory (a symbolic link?); not entered");
    return false;
  };
  std::string profile = logdir + "/plugins/profile";
  if (!EntryExists(profile) || !real_dir(logdir + "/plugins") || !real_dir(profile)) return out;
  for (const auto& run : ListDirectory(profile)) {
    std::string rd = profile + "/" + run;
    if (!real_dir(rd)) continue;
    for (const auto& f : ListDirectory(rd)) {
      // Whatever its type: reading refuses (and reports) what is not a regular file.
      if (f.size() > kXPlaneSuffix.size() && f.ends_with(kXPlaneSuffix))
        out.push_back(rd + "/" + f);
    }
  }
  return out;
}

bool ParseSpaceSkippingEmpty(const std::string& data, xp::XSpace* space) {
  namespace io = google::protobuf::io;
  using google::protobuf::internal::WireFormatLite;
  io::CodedInputStream in(reinterpret_cast<const uint8_t*>(data.data()),
                          static_cast<int>(data.size()));
  std::string rest, plane;
  {
    io::StringOutputStream rest_stream(&rest);
    io::CodedOutputStream rest_out(&rest_stream);
    while (uint32_t tag = in.ReadTag()) {
      if (tag != ((1u << 3) | 2u)) {
        if (!WireFormatLite::SkipField(&in, tag, &rest_out)) return false;
        continue;
      }
      uint32_t len = 0;
      if (!in.ReadVarint32(&len) || !in.ReadString(&plane, static_cast<int>(len))) return false;
      if (len == 0) continue;
      if (!space->add_planes()->ParseFromString(plane)) return false;
    }
  }
  if (in.CurrentPosition() != static_cast<int>(data.size())) return false;
  return rest.empty() || space->MergeFromString(rest);
}

}  // namespace tt
