#include "parallel.h"

#ifdef ATTN_THREADS
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#endif

namespace attn {

#ifndef ATTN_THREADS

int SetThreadCount(int) { return 1; }
int ThreadCount() { return 1; }
void ParallelFor(int count, uint64_t, ParallelTask task) {
  for (int i = 0; i < count; ++i) task.run(task.context, i, 0);
}

#else

namespace {

constexpr int kMaxThreads = 64;
// Checks of the generation a worker makes before it sleeps (a few hundred microseconds).
constexpr int kSpinChecks = 200000;

// Workers sleep on a condition variable between calls; a call publishes its task under the
// mutex, bumps the generation and wakes them; everyone (the caller too) takes task indices
// from one atomic counter until none are left; the caller then waits for the workers to
// report back. pthread_create, not std::thread: with exceptions off a failed std::thread
// aborts, and a wasm build refuses threads past its preloaded Web Workers.
class Pool {
 public:
  int Resize(int count);
  int size() const { return num_workers_ + 1; }
  void Run(int count, ParallelTask task);

 private:
  static void* WorkerMain(void* arg);
  void WorkerLoop(int slot);
  void Drain(int slot);
  void Stop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<uint64_t> generation_{0};  // bumped (under mutex_) for each call
  bool stop_ = false;                    // guarded by mutex_
  std::atomic<bool> stopping_{false};    // stop_, for spinning workers
  pthread_t threads_[kMaxThreads];
  int num_workers_ = 0;
  // The call in flight: written by the caller before the generation bump.
  ParallelTask task_;
  int count_ = 0;
  std::atomic<int> next_{0};  // next task index to take
  std::atomic<int> busy_{0};  // workers not yet done with this call
};

thread_local bool in_parallel_task = false;  // nested ParallelFor runs inline

struct WorkerStart {
  Pool* pool;
  int slot;
};
WorkerStart worker_starts[kMaxThreads];

void* Pool::WorkerMain(void* arg) {
  const WorkerStart* start = static_cast<const WorkerStart*>(arg);
  in_parallel_task = true;
  start->pool->WorkerLoop(start->slot);
  return nullptr;
}

void Pool::WorkerLoop(int slot) {
  uint64_t seen = 0;
  for (;;) {
    // Spin a while before sleeping: calls that come back to back (a benchmark, a training
    // loop, the layers of one forward) then find the worker awake, without the futex wake-up
    // (tens of microseconds in wasm).
    uint64_t now = generation_.load(std::memory_order_acquire);
    for (int spin = 0; spin < kSpinChecks && now == seen && !stopping_.load(); ++spin) {
      now = generation_.load(std::memory_order_acquire);
    }
    if (now == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_.load() != seen; });
      if (stop_) return;
      now = generation_.load();
    }
    if (stopping_.load()) return;
    seen = now;
    Drain(slot);
    busy_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void Pool::Drain(int slot) {
  for (int i = next_.fetch_add(1); i < count_; i = next_.fetch_add(1)) {
    task_.run(task_.context, i, slot);
  }
}

void Pool::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    stopping_.store(true);
  }
  wake_.notify_all();
  for (int w = 0; w < num_workers_; ++w) pthread_join(threads_[w], nullptr);
  num_workers_ = 0;
  stop_ = false;
  stopping_.store(false);
}

int Pool::Resize(int count) {
  if (count < 1) count = 1;
  if (count > kMaxThreads) count = kMaxThreads;
  Stop();
  generation_.store(0);
  for (int w = 0; w + 1 < count; ++w) {
    worker_starts[w] = WorkerStart{this, w + 1};
    if (pthread_create(&threads_[w], nullptr, &Pool::WorkerMain, &worker_starts[w]) != 0) break;
    ++num_workers_;
  }
  return size();
}

void Pool::Run(int count, ParallelTask task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = task;
    count_ = count;
    next_.store(0);
    busy_.store(num_workers_);
    generation_.fetch_add(1);
  }
  wake_.notify_all();
  in_parallel_task = true;
  Drain(0);
  in_parallel_task = false;
  // The caller's share is done: wait (spinning: the page's main thread may not block) for
  // the workers to finish theirs.
  while (busy_.load(std::memory_order_acquire) != 0) {
  }
}

Pool& ThePool() {
  static Pool pool;
  return pool;
}

}  // namespace

int SetThreadCount(int count) { return ThePool().Resize(count); }

int ThreadCount() { return ThePool().size(); }

void ParallelFor(int count, uint64_t work, ParallelTask task) {
  if (count <= 1 || in_parallel_task || work < kParallelMinWork || ThePool().size() == 1) {
    for (int i = 0; i < count; ++i) task.run(task.context, i, 0);
    return;
  }
  ThePool().Run(count, task);
}

#endif  // ATTN_THREADS

}  // namespace attn
