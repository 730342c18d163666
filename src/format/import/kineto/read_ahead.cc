#include "format/import/kineto/read_ahead.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "format/import/kineto/stream.h"

namespace tt::kineto {

namespace {

constexpr size_t kBatch = 512;  // events handed over at once (one lock per batch)
constexpr size_t kQueued = 4;   // batches read ahead at most

// Batches of events from the reader's thread to the importer's, and the importer's spent
// batches back, so that the reader reuses or frees their storage: an event's memory is allocated
// and freed on one thread (freed on the importer's thread, glibc's cross-thread frees and
// consolidation were a third of reading a large profile).
template <typename Event>
class EventQueue {
 public:
  // Reader: false once the importer stopped (the batch is dropped). *batch comes back empty,
  // with *spare's capacity; *spare, a spent batch whose events' storage the next ones reuse.
  bool Push(std::vector<Event>* batch, std::vector<Event>* spare) {
    std::vector<Event> spent;
    {
      std::unique_lock<std::mutex> lock(mu_);
      room_.wait(lock, [&] { return stopped_ || batches_.size() < kQueued; });
      if (stopped_) return false;
      batches_.push_back(std::move(*batch));
      if (!spent_.empty()) {
        spent = std::move(spent_.front());
        spent_.pop_front();
      }
      ready_.notify_one();
    }
    spare->clear();  // events moved from
    *batch = std::move(*spare);
    *spare = std::move(spent);
    return true;
  }
  void Finish(std::exception_ptr error) {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    error_ = std::move(error);
    ready_.notify_one();
  }
  // Importer: gives back *batch (its events handed over) and takes the next, or false when the
  // reader is done (its error in *error).
  bool Pop(std::vector<Event>* batch, std::exception_ptr* error) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!batch->empty() && spent_.size() <= kQueued) spent_.push_back(std::move(*batch));
    batch->clear();
    ready_.wait(lock, [&] { return done_ || !batches_.empty(); });
    if (batches_.empty()) {
      *error = error_;
      return false;
    }
    *batch = std::move(batches_.front());
    batches_.pop_front();
    room_.notify_one();
    return true;
  }
  void Stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    batches_.clear();
    room_.notify_one();
  }

 private:
  std::mutex mu_;
  std::condition_variable ready_, room_;
  std::deque<std::vector<Event>> batches_, spent_;
  bool done_ = false, stopped_ = false;
  std::exception_ptr error_;
};

EventSink SinkOf(const EventFn* f) { return {f, nullptr}; }
EventSink SinkOf(const KinetoEventFn* f) { return {nullptr, f}; }

// The reader's thread: the file's events in batches; its header into *header.
template <typename Event>
void ReadInto(const std::string& path, uint64_t max_bytes, json* header, EventQueue<Event>* queue) {
  std::vector<Event> batch, spare;
  batch.reserve(kBatch);
  bool open = true;  // the importer still takes events
  // The reader parses the next event into `e`: there goes the storage of the spent event that
  // had the same place in its batch (events in the same place are often alike).
  std::function<void(Event&)> keep = [&](Event& e) {
    if (!open) return;
    batch.push_back(std::move(e));
    if (batch.size() == kBatch) open = queue->Push(&batch, &spare);
    if (open && batch.size() < spare.size()) e = std::move(spare[batch.size()]);
  };
  std::exception_ptr error;
  try {
    ReadKinetoFile(path, max_bytes, header, SinkOf(&keep));
  } catch (...) {
    error = std::current_exception();
  }
  if (open && !batch.empty()) queue->Push(&batch, &spare);
  queue->Finish(error);
}

template <typename Event>
void ReadAhead(const std::string& path, uint64_t max_bytes, json* header,
               const std::function<void(Event&)>& on_event) {
  EventQueue<Event> queue;
  json read_header = *header;
  std::thread reader(ReadInto<Event>, path, max_bytes, &read_header, &queue);
  std::vector<Event> batch;
  std::exception_ptr error;
  try {
    while (queue.Pop(&batch, &error))
      for (Event& e : batch) on_event(e);
  } catch (...) {
    queue.Stop();
    reader.join();
    throw;
  }
  reader.join();
  *header = std::move(read_header);
  if (error) std::rethrow_exception(error);
}

}  // namespace

void ReadKinetoFileAhead(const std::string& path, uint64_t max_bytes, json* header,
                         const EventFn& on_event) {
  ReadAhead<json>(path, max_bytes, header, on_event);
}

void ReadKinetoFileAhead(const std::string& path, uint64_t max_bytes, json* header,
                         const KinetoEventFn& on_event) {
  ReadAhead<KinetoEvent>(path, max_bytes, header, on_event);
}

}  // namespace tt::kineto
