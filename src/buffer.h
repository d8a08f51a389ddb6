// Scratch memory for the core that never throws. A request that cannot be met (a byte count
// past size_t, or malloc returning null) is a `false` the caller turns into
// Status::kOutOfMemory: C++ exceptions cannot be caught in the wasm build, and an uncaught
// std::bad_alloc would reach JS as a bare number with the stack and the heap left unwound.
#ifndef ATTENTION_WASM_SRC_BUFFER_H_
#define ATTENTION_WASM_SRC_BUFFER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace attn {

template <typename T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { std::free(data_); }

  // Makes room for `count` elements, keeping the block when it is already big enough.
  // Contents are unspecified afterwards. data() is never null after a success, even for
  // count 0. Returns false (and holds nothing) on failure.
  [[nodiscard]] bool Resize(uint64_t count) {
    if (count <= capacity_ && data_ != nullptr) {
      size_ = static_cast<size_t>(count);
      return true;
    }
    std::free(data_);
    data_ = nullptr;
    size_ = capacity_ = 0;
    if (count > SIZE_MAX / sizeof(T)) return false;
    data_ =
        static_cast<T*>(std::malloc(std::max<size_t>(1, static_cast<size_t>(count)) * sizeof(T)));
    if (data_ == nullptr) return false;
    size_ = static_cast<size_t>(count);
    capacity_ = std::max<size_t>(1, size_);
    return true;
  }

  // Resize, then fill with `value`.
  [[nodiscard]] bool Assign(uint64_t count, T value) {
    if (!Resize(count)) return false;
    std::fill(data_, data_ + size_, value);
    return true;
  }

  // Frees the block (data() is null until the next Resize).
  void Clear() {
    std::free(data_);
    data_ = nullptr;
    size_ = capacity_ = 0;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace attn

#endif  // ATTENTION_WASM_SRC_BUFFER_H_
