// The export formats, in one table: each format's name, its paragraph of `export --help`,
// whether it writes a file or a log directory, and one writer behind the same interface. A new
// format is its writer's file plus one entry in formats.cc.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "export/walk.h"

namespace tt::exporter {

struct ExportOutcome {
  uint64_t events = 0;
  uint64_t left_out = 0;           // events past --max-events
  std::vector<std::string> lines;  // what was written, one line each, for the user
  std::vector<std::string> notes;  // advice, after the line on what --max-events left out
};

struct ExportFormat {
  const char* name;
  const char* help;  // its paragraph under "formats:" in `export --help`
  bool directory;    // PATH is a log directory (else a file, written atomically)
  bool gzip;         // may be gzipped (--gzip, or a PATH ending in .gz)
  ExportOutcome (*write)(const model::TraceModel& m, const Selection& sel, const std::string& path,
                         bool gzip, std::vector<Problem>* problems);
};

const std::vector<ExportFormat>& ExportFormats();
const ExportFormat* FindExportFormat(const std::string& name);
// "perfetto, chrome, csv, xspace"
std::string ExportFormatList();

}  // namespace tt::exporter
