// JS passes wasm heap addresses as numbers; this turns one back into a pointer (0 → null).
#ifndef ATTENTION_WASM_BINDINGS_HEAP_ADDRESS_H_
#define ATTENTION_WASM_BINDINGS_HEAP_ADDRESS_H_

#include <cstdint>

template <typename T>
T* Ptr(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

#endif  // ATTENTION_WASM_BINDINGS_HEAP_ADDRESS_H_
