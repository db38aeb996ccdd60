// libFuzzer entry point for the --save-quantized metadata parser
// (core/quantized_format.cc): version, precision and the per-tensor layouts.
#include "fuzz/quantized_metadata_fuzzer.h"

#include <map>
#include <string>

#include "core/json_util.h"
#include "core/quantized_format.h"

namespace oxinfer {

absl::Status ParseQuantizedMetadataFuzzInput(const uint8_t* data, size_t size) {
  absl::StatusOr<nlohmann::json> j =
      ParseJsonStrict(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!j.ok()) return j.status();
  if (!j->is_object()) return absl::InvalidArgumentError("not an object");
  std::map<std::string, std::string> metadata;
  for (auto it = j->begin(); it != j->end(); ++it) {
    if (!it->is_string()) return absl::InvalidArgumentError("a value is not a string");
    metadata[it.key()] = it->get<std::string>();
  }
  absl::StatusOr<QuantizedMetadata> m = ParseQuantizedMetadata(metadata, "fuzz.safetensors");
  if (!m.ok()) return m.status();
  if (m->precision != OXI_DTYPE_Q8_0 && m->precision != OXI_DTYPE_Q4_0) __builtin_trap();
  for (const auto& [name, layout] : m->tensors) {
    const int64_t bytes = layout.byte_size();
    if (bytes <= 0 || layout.shape.empty() || layout.shape.size() > 8) __builtin_trap();
    if (oxi_dtype_block_elems(layout.dtype) <= 1) __builtin_trap();
    if (oxi_dtype_is_x8(layout.dtype) &&
        (bytes / oxi_dtype_row_bytes(layout.dtype, layout.shape.back())) % OXI_X8_ROWS != 0)
      __builtin_trap();
  }
  // What the writer makes of it parses to the same layouts.
  absl::StatusOr<QuantizedMetadata> again =
      ParseQuantizedMetadata(QuantizedMetadataStrings(*m), "fuzz.safetensors");
  if (!again.ok() || again->tensors.size() != m->tensors.size()) __builtin_trap();
  return absl::OkStatus();
}

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oxinfer::ParseQuantizedMetadataFuzzInput(data, size).IgnoreError();
  return 0;
}
