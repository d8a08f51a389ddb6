// A persistent pool of worker threads for the kernels' outer loops.
//
// The threaded wasm builds (compiled with -pthread, ATTN_THREADS defined) start the workers
// once, at init, when JS asks for more than one thread; every other build runs each loop on
// the calling thread. Work is split into tasks whose results do not depend on which thread
// runs them or how many threads there are (no task reduces across another's data), so every
// thread count gives the same bits.
//
// Rules for a task: it must not allocate (size every workspace on the calling thread before
// ParallelFor: a worker that grows the wasm memory would leave the main thread's JS views of
// the heap stale), must not call ParallelFor itself (nested calls run inline), and must not
// block on anything but memory it owns.
#ifndef ATTENTION_WASM_SRC_PARALLEL_H_
#define ATTENTION_WASM_SRC_PARALLEL_H_

#include <cstdint>

namespace attn {

// A task body: runs task `index` on the pool's slot `slot` (0 .. ThreadCount() - 1; the
// calling thread is slot 0). Slots index per-thread scratch. A plain function pointer plus a
// context, so nothing is allocated per call.
struct ParallelTask {
  void (*run)(void* context, int index, int slot) = nullptr;
  void* context = nullptr;
};

// Sets the number of threads the kernels use (the caller included). Without threads in the
// build, or if a worker cannot be started, fewer are used. Returns the count in effect.
// Call it from the thread that calls the kernels, while no ParallelFor is running.
int SetThreadCount(int count);

// The number of threads in effect (1 without a pool).
int ThreadCount();

// Runs task(i, slot) for every i in [0, count), spread over the pool, and returns when all
// are done. Runs inline (slot 0) with one thread, inside another ParallelFor, or when
// `work` (an estimate of the floating-point operations, all tasks together) is below
// kParallelMinWork: waking the workers costs more than small calls gain.
void ParallelFor(int count, uint64_t work, ParallelTask task);

// Below this many flops a call stays on the calling thread: waking the workers and waiting
// for them costs microseconds. One head (d = 64), one thread against two, Chromium / Node:
// N = 64 (1 MFLOP) 30 / 36-44 µs against 35-40 / 44-45; N = 96 55-60 / 70-97 against 60-70 /
// 72-76; N = 128 (4.2 MFLOP) 100 / 119-127 against 95-100 / 107-114; N = 192 210 / 256
// against 185-190 / 212-244. See README "Threads".
constexpr uint64_t kParallelMinWork = uint64_t{1} << 22;

// Convenience: ParallelFor over a lambda or other callable, without allocating.
template <typename F>
void ParallelForEach(int count, uint64_t work, F& body) {
  ParallelTask task;
  task.context = &body;
  task.run = [](void* context, int index, int slot) { (*static_cast<F*>(context))(index, slot); };
  ParallelFor(count, work, task);
}

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_PARALLEL_H_
