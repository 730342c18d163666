#include "export/spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <queue>

#include "core/error.h"

namespace tt::exporter {

namespace {

// A record on disk: the key's three integers, the payload's length, the payload.
constexpr size_t kHead = 3 * 8 + 4;

void PutU64(char* p, uint64_t v) { std::memcpy(p, &v, 8); }
uint64_t GetU64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

std::string FileError(const std::string& what, const std::string& dir) {
  return "cannot " + what + " a temporary file in " + dir + ": " + std::strerror(errno) +
         " (the export sorts its events there; is the disk full?)";
}

// Sequential reads of one run through a buffer.
class RunReader {
 public:
  RunReader(int fd, uint64_t off, uint64_t len, size_t buffer, const std::string* dir)
      : fd_(fd), pos_(off), end_(off + len), dir_(dir) {
    buf_.resize(std::max<size_t>(buffer, kHead));
  }
  bool Next(SpillKey* key, std::string_view* payload) {
    if (!Ensure(kHead)) return false;
    const char* h = buf_.data() + at_;
    key->a = GetU64(h);
    key->b = GetU64(h + 8);
    key->c = GetU64(h + 16);
    uint32_t len;
    std::memcpy(&len, h + 24, 4);
    if (!Ensure(kHead + len)) throw Error("a temporary file in " + *dir_ + " ends early");
    *payload = std::string_view(buf_.data() + at_ + kHead, len);
    at_ += kHead + len;
    return true;
  }

 private:
  // At least n bytes buffered from at_ (false at the end of the run).
  bool Ensure(size_t n) {
    if (have_ - at_ >= n) return true;
    std::memmove(buf_.data(), buf_.data() + at_, have_ - at_);
    have_ -= at_;
    at_ = 0;
    if (buf_.size() < n) buf_.resize(n);
    while (have_ < n && pos_ < end_) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(buf_.size() - have_, end_ - pos_));
      ssize_t got = pread(fd_, buf_.data() + have_, want, static_cast<off_t>(pos_));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        if (got == 0) errno = EIO;
        throw Error(FileError("read", *dir_));
      }
      have_ += static_cast<size_t>(got);
      pos_ += static_cast<uint64_t>(got);
    }
    return have_ - at_ >= n;
  }
  int fd_;
  uint64_t pos_, end_;
  const std::string* dir_;
  std::string buf_;
  size_t at_ = 0, have_ = 0;
};

// Buffered appends of records to the temporary file.
class RunWriter {
 public:
  RunWriter(std::function<void(uint64_t, const char*, size_t)> write, uint64_t off)
      : write_(std::move(write)), start_(off), off_(off) {
    buf_.reserve(kBuffer);
  }
  void Put(const SpillKey& k, std::string_view payload) {
    char h[kHead];
    PutU64(h, k.a);
    PutU64(h + 8, k.b);
    PutU64(h + 16, k.c);
    uint32_t len = static_cast<uint32_t>(payload.size());
    std::memcpy(h + 24, &len, 4);
    buf_.append(h, kHead);
    buf_.append(payload);
    if (buf_.size() >= kBuffer) Flush();
  }
  void Flush() {
    if (buf_.empty()) return;
    write_(off_, buf_.data(), buf_.size());
    off_ += buf_.size();
    buf_.clear();
  }
  uint64_t written() const { return off_ - start_; }

 private:
  static constexpr size_t kBuffer = size_t{1} << 20;
  std::function<void(uint64_t, const char*, size_t)> write_;
  uint64_t start_, off_;
  std::string buf_;
};

// The k-way merge of some runs, ties to the earlier run.
class Merger {
 public:
  Merger(int fd, const std::vector<std::pair<uint64_t, uint64_t>>& runs, size_t buffer,
         const std::string* dir) {
    readers_.reserve(runs.size());
    cur_.resize(runs.size());
    for (size_t i = 0; i < runs.size(); ++i) {
      readers_.emplace_back(fd, runs[i].first, runs[i].second, buffer, dir);
      Advance(i);
    }
  }
  bool Next(SpillKey* key, std::string_view* payload) {
    if (last_ != SIZE_MAX) Advance(last_);  // its payload was valid until now
    last_ = SIZE_MAX;
    if (heap_.empty()) return false;
    size_t i = heap_.top().second;
    heap_.pop();
    *key = cur_[i].first;
    *payload = cur_[i].second;
    last_ = i;
    return true;
  }

 private:
  void Advance(size_t i) {
    if (readers_[i].Next(&cur_[i].first, &cur_[i].second)) heap_.push({cur_[i].first, i});
  }
  using Item = std::pair<SpillKey, size_t>;
  std::vector<RunReader> readers_;
  std::vector<std::pair<SpillKey, std::string_view>> cur_;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap_;
  size_t last_ = SIZE_MAX;
};

}  // namespace

struct SpillSorter::Cursor::Impl {
  // In memory: the sorted index. On disk: the merge of every run.
  const SpillSorter* s = nullptr;
  size_t i = 0;
  std::unique_ptr<Merger> merger;
};

SpillSorter::Cursor::Cursor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SpillSorter::Cursor::~Cursor() = default;
SpillSorter::Cursor::Cursor(Cursor&&) noexcept = default;

bool SpillSorter::Cursor::Next(SpillKey* key, std::string_view* payload) {
  if (impl_->merger) return impl_->merger->Next(key, payload);
  const auto& index = impl_->s->index_;
  if (impl_->i >= index.size()) return false;
  const Entry& e = index[impl_->i++];
  *key = e.key;
  *payload = std::string_view(impl_->s->arena_).substr(e.off, e.len);
  return true;
}

SpillSorter::SpillSorter(std::string dir, SpillOptions o) : dir_(std::move(dir)), o_(o) {
  o_.fan_in = std::max<size_t>(o_.fan_in, 2);
  o_.budget = std::min<size_t>(std::max<size_t>(o_.budget, 1), UINT32_MAX);
}

SpillSorter::~SpillSorter() {
  if (fd_ >= 0) close(fd_);
}

void SpillSorter::OpenFile() {
  if (fd_ >= 0) return;
#ifdef O_TMPFILE
  fd_ = open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  if (fd_ < 0) {  // a file system without O_TMPFILE: a named file, unlinked at once
    std::string name = dir_ + "/.tensortrace-sort-XXXXXX";
    fd_ = mkostemp(name.data(), O_CLOEXEC);
    if (fd_ < 0) throw Error(FileError("create", dir_));
    unlink(name.c_str());
  }
}

void SpillSorter::WriteAt(uint64_t off, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = pwrite(fd_, data, n, static_cast<off_t>(off));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = ENOSPC;
      throw Error(FileError("write", dir_));
    }
    data += w;
    n -= static_cast<size_t>(w);
    off += static_cast<uint64_t>(w);
  }
}

void SpillSorter::Add(const SpillKey& key, std::string_view payload) {
  if (payload.size() > UINT32_MAX) throw Error("a record too large to sort");
  if (arena_.capacity() < o_.budget && index_.empty()) {
    // Room for the budget at once (address space only until used): growing by doubling would
    // copy, and hold old and new buffers together, twice the budget at the peak.
    arena_.reserve(o_.budget);
    index_.reserve(o_.budget / sizeof(Entry) + 1);
  }
  size_t held = arena_.size() + index_.size() * sizeof(Entry);
  if (!index_.empty() && held + payload.size() + sizeof(Entry) > o_.budget) Spill();
  index_.push_back(
      {key, static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(payload.size())});
  arena_.append(payload);
  records_++;
}

void SpillSorter::Spill() {
  if (index_.empty()) return;
  // Offsets grow in the order records came: the tie-break that keeps the sort stable.
  std::sort(index_.begin(), index_.end(), [](const Entry& x, const Entry& y) {
    return x.key != y.key ? x.key < y.key : x.off < y.off;
  });
  OpenFile();
  RunWriter w([this](uint64_t off, const char* d, size_t n) { WriteAt(off, d, n); }, file_end_);
  for (const Entry& e : index_) w.Put(e.key, std::string_view(arena_).substr(e.off, e.len));
  w.Flush();
  runs_.push_back({file_end_, w.written()});
  file_end_ += w.written();
  arena_.clear();
  index_.clear();
  ReduceRuns();
}

void SpillSorter::ReduceRuns() {
  while (runs_.size() > o_.fan_in) {
    // The oldest runs hold the earliest records: merged, they stay first.
    std::vector<std::pair<uint64_t, uint64_t>> some;
    for (size_t i = 0; i < o_.fan_in; ++i) some.push_back({runs_[i].off, runs_[i].len});
    Merger m(fd_, some, o_.read_buffer, &dir_);
    RunWriter w([this](uint64_t off, const char* d, size_t n) { WriteAt(off, d, n); }, file_end_);
    SpillKey k;
    std::string_view p;
    while (m.Next(&k, &p)) w.Put(k, p);
    w.Flush();
    Run merged{file_end_, w.written()};
    file_end_ += w.written();
#ifdef FALLOC_FL_PUNCH_HOLE
    // Give the merged runs' space back where the file system can (not needed to be right).
    for (const auto& [off, len] : some)
      (void)fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(off),
                      static_cast<off_t>(len));
#endif
    runs_.erase(runs_.begin(), runs_.begin() + static_cast<std::ptrdiff_t>(o_.fan_in));
    runs_.insert(runs_.begin(), merged);
  }
}

void SpillSorter::ScanRuns(const std::function<void(const SpillKey&, std::string_view)>& f) {
  for (const Run& r : runs_) {
    RunReader rd(fd_, r.off, r.len, o_.read_buffer, &dir_);
    SpillKey k;
    std::string_view p;
    while (rd.Next(&k, &p)) f(k, p);
  }
}

SpillSorter::Cursor SpillSorter::Sorted() {
  auto impl = std::make_unique<Cursor::Impl>();
  impl->s = this;
  if (runs_.empty()) {
    std::sort(index_.begin(), index_.end(), [](const Entry& x, const Entry& y) {
      return x.key != y.key ? x.key < y.key : x.off < y.off;
    });
    return Cursor(std::move(impl));
  }
  Spill();
  std::vector<std::pair<uint64_t, uint64_t>> all;
  for (const Run& r : runs_) all.push_back({r.off, r.len});
  impl->merger = std::make_unique<Merger>(fd_, all, o_.read_buffer, &dir_);
  return Cursor(std::move(impl));
}

void SpillSorter::Clear() {
  arena_.clear();
  index_.clear();
  runs_.clear();
  records_ = 0;
  if (fd_ >= 0 && file_end_ > 0) {
    if (ftruncate(fd_, 0) != 0) throw Error(FileError("truncate", dir_));
  }
  file_end_ = 0;
}

}  // namespace tt::exporter
