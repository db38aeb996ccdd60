// libFuzzer entry point for the safetensors header parser.
//
// Two shapes of input, chosen by the first byte, so that the fuzzer explores
// both the binary framing and the JSON:
//   '{' ...  the input is the header JSON; it is framed with its length and a
//            4 KiB data section is assumed behind it.
//   other    the input is a whole safetensors file.
// A header that parses must satisfy the reader's invariants; a violation
// traps, which libFuzzer reports as a crash.
#include "fuzz/safetensors_header_fuzzer.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/safetensors.h"

namespace oxinfer {
namespace {

void CheckInvariants(const SafetensorsHeader& h, uint64_t file_size) {
  if (h.data_offset != 8 + h.header_size || h.data_offset > file_size ||
      h.data_size != file_size - h.data_offset) {
    __builtin_trap();
  }
  const TensorInfo* prev = nullptr;
  for (const TensorInfo& t : h.tensors) {
    if (prev != nullptr && !(prev->name < t.name)) __builtin_trap();  // sorted, unique
    prev = &t;
    if (t.begin > t.end || t.end > h.data_size) __builtin_trap();
    absl::StatusOr<int64_t> bytes = ShapeByteSize(t.dtype, t.shape);
    if (!bytes.ok() || static_cast<uint64_t>(*bytes) != t.end - t.begin) __builtin_trap();
    if (t.shape.size() > static_cast<size_t>(kMaxTensorDims)) __builtin_trap();
  }
}

}  // namespace

absl::Status ParseFuzzInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (!input.empty() && input[0] == '{') {
    std::string framed(8, '\0');
    const uint64_t n = input.size();
    for (int i = 0; i < 8; ++i) framed[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    framed.append(input);
    const uint64_t file_size = framed.size() + 4096;
    absl::StatusOr<SafetensorsHeader> h = ParseSafetensorsHeader(framed, file_size, "fuzz");
    if (h.ok()) CheckInvariants(*h, file_size);
    return h.status();
  }
  absl::StatusOr<SafetensorsHeader> h = ParseSafetensorsHeader(input, "fuzz");
  if (h.ok()) CheckInvariants(*h, input.size());
  // The same bytes as the prefix of a longer file.
  absl::StatusOr<SafetensorsHeader> h2 =
      ParseSafetensorsHeader(input, uint64_t{size} + 1000, "fuzz");
  if (h2.ok()) CheckInvariants(*h2, uint64_t{size} + 1000);
  return h.status();
}

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)oxinfer::ParseFuzzInput(data, size);
  return 0;
}
