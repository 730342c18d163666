#include "export/parquet_table.h"

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/util/key_value_metadata.h>
#include <parquet/arrow/writer.h>
#include <parquet/exception.h>
#include <parquet/file_reader.h>
#include <parquet/properties.h>

#include "core/error.h"

namespace tt::exporter {

struct ParquetTable::Impl {
  std::string path;
  std::vector<ColumnDef> cols;
  std::shared_ptr<arrow::Schema> schema;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders;
  std::shared_ptr<arrow::io::FileOutputStream> out;
  std::unique_ptr<parquet::arrow::FileWriter> writer;
};

namespace {

std::shared_ptr<arrow::DataType> TypeOf(ColType t) {
  switch (t) {
    case ColType::kInt:
      return arrow::int64();
    case ColType::kText:
      return arrow::utf8();
    case ColType::kBool:
      return arrow::boolean();
    case ColType::kFloat:
      return arrow::float64();
  }
  return arrow::int64();
}

void Check(const arrow::Status& s, const std::string& path) {
  if (!s.ok()) throw Error(path + ": cannot write Parquet: " + s.ToString());
}

// Parquet's strings are UTF-8: bytes that are not (a name cut mid-character) become U+FFFD.
std::string ValidUtf8(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 2;
    if (ok) {
      o.append(s.substr(i, n));
      i += n;
    } else {
      o += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return o;
}

bool IsAscii(std::string_view s) {
  for (unsigned char c : s)
    if (c >= 0x80) return false;
  return true;
}

}  // namespace

ParquetTable::ParquetTable(const std::string& path, const std::string& table,
                           std::vector<ColumnDef> cols)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->cols = std::move(cols);
  arrow::FieldVector fields;
  for (const ColumnDef& c : impl_->cols) {
    fields.push_back(arrow::field(c.name, TypeOf(c.type)));
    impl_->builders.push_back(arrow::MakeBuilder(TypeOf(c.type)).ValueOrDie());
  }
  auto meta = arrow::key_value_metadata({kSchemaVersionKey, "tensortrace.table"},
                                        {std::to_string(kTablesSchemaVersion), table});
  impl_->schema = arrow::schema(fields, meta);
  auto out = arrow::io::FileOutputStream::Open(path);
  if (!out.ok()) throw Error(path + ": cannot create: " + out.status().ToString());
  impl_->out = *out;
  parquet::WriterProperties::Builder props;
  props.compression(parquet::Compression::ZSTD);
  auto w = parquet::arrow::FileWriter::Open(
      *impl_->schema, arrow::default_memory_pool(), impl_->out, props.build(),
      parquet::ArrowWriterProperties::Builder().store_schema()->build());
  Check(w.status(), path);
  impl_->writer = std::move(*w);
}

ParquetTable::~ParquetTable() = default;

ParquetTable& ParquetTable::Int(int64_t v) {
  Check(static_cast<arrow::Int64Builder*>(impl_->builders[col_++].get())->Append(v), impl_->path);
  return *this;
}

ParquetTable& ParquetTable::Text(std::string_view v) {
  auto* b = static_cast<arrow::StringBuilder*>(impl_->builders[col_++].get());
  Check(IsAscii(v) ? b->Append(v) : b->Append(ValidUtf8(v)), impl_->path);
  return *this;
}

ParquetTable& ParquetTable::Bool(bool v) {
  Check(static_cast<arrow::BooleanBuilder*>(impl_->builders[col_++].get())->Append(v), impl_->path);
  return *this;
}

ParquetTable& ParquetTable::Float(double v) {
  Check(static_cast<arrow::DoubleBuilder*>(impl_->builders[col_++].get())->Append(v), impl_->path);
  return *this;
}

ParquetTable& ParquetTable::Null() {
  Check(impl_->builders[col_++]->AppendNull(), impl_->path);
  return *this;
}

void ParquetTable::EndRow() {
  if (col_ != impl_->cols.size())
    throw Error(impl_->path + ": internal error: a row of " + std::to_string(col_) + " cells");
  col_ = 0;
  ++rows_;
  if (++buffered_ >= kRowGroup) Flush();
}

void ParquetTable::Flush() {
  if (buffered_ == 0) return;
  arrow::ArrayVector arrays;
  for (auto& b : impl_->builders) {
    std::shared_ptr<arrow::Array> a;
    Check(b->Finish(&a), impl_->path);
    arrays.push_back(std::move(a));
  }
  auto table = arrow::Table::Make(impl_->schema, arrays, buffered_);
  Check(impl_->writer->WriteTable(*table, kRowGroup), impl_->path);
  buffered_ = 0;
}

void ParquetTable::Close() {
  Flush();
  Check(impl_->writer->Close(), impl_->path);
  Check(impl_->out->Close(), impl_->path);
}

ParquetFileInfo ReadParquetInfo(const std::string& path) {
  ParquetFileInfo info;
  try {
    std::unique_ptr<parquet::ParquetFileReader> r = parquet::ParquetFileReader::OpenFile(path);
    std::shared_ptr<parquet::FileMetaData> meta = r->metadata();
    info.rows = meta->num_rows();
    if (auto kv = meta->key_value_metadata()) {
      int i = kv->FindKey(kSchemaVersionKey);
      if (i >= 0) info.version = kv->value(i);
    }
  } catch (const parquet::ParquetException& e) {
    throw Error(path + ": not a readable Parquet file (" + e.what() + ")");
  }
  return info;
}

}  // namespace tt::exporter
