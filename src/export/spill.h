// Sorting more records than memory holds: records (a key of three integers and a payload of
// bytes) are buffered up to a budget, then sorted and written to an anonymous temporary file
// as one sorted run; reading them back in key order merges the runs. Ties keep the order the
// records were added in. Memory: the budget, plus a read buffer per run merged (at most
// `fan_in` runs are merged at once; more are first merged into fewer, on disk).
#pragma once
#include <compare>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tt::exporter {

struct SpillKey {
  uint64_t a = 0, b = 0, c = 0;
  auto operator<=>(const SpillKey&) const = default;
};

struct SpillOptions {
  size_t budget = size_t{16} << 20;        // bytes of records (and their index) held in memory
  size_t fan_in = 64;                      // runs merged at once (at least 2)
  size_t read_buffer = size_t{128} << 10;  // per run, while merging
};

class SpillSorter {
 public:
  // `dir`: where the temporary file goes (created on the first spill, unlinked at once, so
  // nothing is left behind whatever happens).
  SpillSorter(std::string dir, SpillOptions o);
  ~SpillSorter();
  SpillSorter(const SpillSorter&) = delete;
  SpillSorter& operator=(const SpillSorter&) = delete;

  // Throws tt::Error when the temporary file cannot be written.
  void Add(const SpillKey& key, std::string_view payload);
  uint64_t records() const { return records_; }
  size_t runs() const { return runs_.size(); }

  // Every record, in no particular order: f(key, payload).
  template <typename F>
  void Scan(F&& f) {
    ScanRuns([&](const SpillKey& k, std::string_view p) { f(k, p); });
    for (const Entry& e : index_) f(e.key, std::string_view(arena_).substr(e.off, e.len));
  }

  // Reads the records back in key order (ties in the order added). Adding is over once a
  // cursor is made; one cursor at a time.
  class Cursor {
   public:
    ~Cursor();
    Cursor(Cursor&&) noexcept;
    // False at the end; `payload` stays valid until the next call.
    bool Next(SpillKey* key, std::string_view* payload);

   private:
    friend class SpillSorter;
    struct Impl;
    explicit Cursor(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
  };
  Cursor Sorted();

  // Forgets every record (the temporary file is emptied); adding may start again.
  void Clear();

 private:
  struct Entry {
    SpillKey key;
    uint32_t off, len;
  };
  struct Run {
    uint64_t off, len;
  };
  void ScanRuns(const std::function<void(const SpillKey&, std::string_view)>& f);
  void Spill();       // the buffered records, sorted, as one more run
  void ReduceRuns();  // merges the oldest runs until at most fan_in are left
  void OpenFile();
  void WriteAt(uint64_t off, const char* data, size_t n);

  std::string dir_;
  SpillOptions o_;
  std::string arena_;
  std::vector<Entry> index_;
  std::vector<Run> runs_;
  int fd_ = -1;
  uint64_t file_end_ = 0;
  uint64_t records_ = 0;
};

}  // namespace tt::exporter
