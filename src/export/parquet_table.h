// One Parquet file of one table, written through Apache Arrow's C++ library: rows are appended
// column by column and flushed as a row group every kRowGroup rows, so memory stays bounded
// whatever the number of rows. Each file carries the tables' schema version in its key-value
// metadata, which readers check (docs/tables.md).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tt::exporter {

// The version of the tables' schema (docs/tables.md); readers refuse a dataset of another.
inline constexpr int kTablesSchemaVersion = 1;
inline constexpr const char* kSchemaVersionKey = "tensortrace.schema_version";

enum class ColType { kInt, kText, kBool, kFloat };

struct ColumnDef {
  const char* name;
  ColType type;
};

class ParquetTable {
 public:
  static constexpr int64_t kRowGroup = 65536;
  // Throws tt::Error when `path` cannot be created.
  ParquetTable(const std::string& path, const std::string& table, std::vector<ColumnDef> cols);
  ~ParquetTable();
  ParquetTable(const ParquetTable&) = delete;
  ParquetTable& operator=(const ParquetTable&) = delete;

  // The next cell of the row being written, in the columns' order.
  ParquetTable& Int(int64_t v);
  ParquetTable& Text(std::string_view v);
  ParquetTable& Bool(bool v);
  ParquetTable& Float(double v);
  ParquetTable& Null();
  void EndRow();
  // Writes what is buffered and the file's footer. Throws tt::Error on failure.
  void Close();
  uint64_t rows() const { return rows_; }

 private:
  struct Impl;
  void Flush();
  std::unique_ptr<Impl> impl_;
  size_t col_ = 0;
  int64_t buffered_ = 0;
  uint64_t rows_ = 0;
};

// What a reader checks of a Parquet file: its rows and its schema version (the key-value
// metadata's kSchemaVersionKey, "" where absent). Throws tt::Error where it is not Parquet.
struct ParquetFileInfo {
  int64_t rows = 0;
  std::string version;
};
ParquetFileInfo ReadParquetInfo(const std::string& path);

}  // namespace tt::exporter
