// libFuzzer entry point for the GGUF header parser and the dequantisers.
#include "fuzz/gguf_header_fuzzer.h"

#include <string_view>
#include <vector>

#include "core/gguf/dequantize.h"
#include "core/gguf/gguf_file.h"

namespace oxinfer {
namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

absl::Status ParseGgufFuzzInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<gguf::GgufHeader> h = gguf::ParseGguf(bytes, "fuzz");
  if (!h.ok()) return h.status();
  Check(h->data_offset % h->alignment == 0 && h->data_offset >= 24);
  for (const gguf::TensorInfo& t : h->tensors) {
    int64_t block_elems = 0, block_bytes = 0;
    Check(gguf::TensorTypeBlock(static_cast<uint32_t>(t.type), &block_elems, &block_bytes));
    Check(t.cols() % block_elems == 0);
    Check(t.size == static_cast<uint64_t>(t.rows() * t.cols() / block_elems * block_bytes));
    Check(h->data_offset + t.offset + t.size <= size);
    std::vector<float> out(block_elems);
    Check(gguf::Dequantize(t.type, data + h->data_offset + t.offset, block_elems, out.data()).ok());
  }
  return absl::OkStatus();
}

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)oxinfer::ParseGgufFuzzInput(data, size);
  return 0;
}
