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

constexpr size_t kBatch = 512;     // events handed over at once (one lock per batch)
constexpr size_t kQueued = 4;      // batches read ahead at most

// Batches of events from the reader's thread to the importer's.
class EventQueue {
 public:
  // Reader: false once the importer stopped (the batch is dropped).
  bool Push(std::vector<json>* batch) {
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [&] { return stopped_ || batches_.size() < kQueued; });
    if (stopped_) return false;
    batches_.push_back(std::move(*batch));
    batch->clear();
    ready_.notify_one();
    return true;
  }
  void Finish(std::exception_ptr error) {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    error_ = std::move(error);
    ready_.notify_one();
  }
  // Importer: the next batch, or false when the reader is done (its error in *error).
  bool Pop(std::vector<json>* batch, std::exception_ptr* error) {
    std::unique_lock<std::mutex> lock(mu_);
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
  std::deque<std::vector<json>> batches_;
  bool done_ = false, stopped_ = false;
  std::exception_ptr error_;
};

// The reader's thread: the file's events in batches; its header into *header.
void ReadInto(const std::string& path, uint64_t max_bytes, json* header, EventQueue* queue) {
  std::vector<json> batch;
  bool open = true;  // the importer still takes events
  EventFn keep = [&](json& e) {
    if (!open) return;
    batch.push_back(std::move(e));
    if (batch.size() == kBatch) open = queue->Push(&batch);
  };
  std::exception_ptr error;
  try {
    ReadKinetoFile(path, max_bytes, header, &keep);
  } catch (...) {
    error = std::current_exception();
  }
  if (open && !batch.empty()) queue->Push(&batch);
  queue->Finish(error);
}

}  // namespace

void ReadKinetoFileAhead(const std::string& path, uint64_t max_bytes, json* header,
                         const EventFn& on_event) {
  EventQueue queue;
  json read_header = *header;
  std::thread reader(ReadInto, path, max_bytes, &read_header, &queue);
  std::vector<json> batch;
  std::exception_ptr error;
  try {
    while (queue.Pop(&batch, &error))
      for (json& e : batch) on_event(e);
  } catch (...) {
    queue.Stop();
    reader.join();
    throw;
  }
  reader.join();
  *header = std::move(read_header);
  if (error) std::rethrow_exception(error);
}

}  // namespace tt::kineto
