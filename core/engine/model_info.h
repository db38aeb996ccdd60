// What the engine knows about an opened checkpoint: oxi_model_info (model
// ABI 2) as C++ values that outlive nothing and borrow nothing.
#ifndef OXINFER_CORE_ENGINE_MODEL_INFO_H_
#define OXINFER_CORE_ENGINE_MODEL_INFO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "oxinfer/model_abi.h"

namespace oxinfer::engine {

struct ModelInfo {
  uint32_t capabilities = 0;  // OXI_MODEL_*
  std::string family;         // the plugin's name for the architecture; for display only
  int32_t vocab_size = 0;
  int32_t hidden_size = 0;
  int64_t context_length = 0;  // 0: not limited by the plugin
  int32_t max_sequences = 1;
  // Sequences can be cut to any length (else only to 0 or their full length).
  bool can_rewind = false;
  std::string default_chat_template;  // "": none
  std::vector<int32_t> stop_tokens;
  std::vector<std::pair<std::string, int32_t>> special_tokens;  // role ("bos", ...), id
  std::string reasoning_start, reasoning_end;                   // "": the model does not reason

  bool generates_text() const { return (capabilities & OXI_MODEL_TEXT) != 0; }
  bool generates_images() const { return (capabilities & OXI_MODEL_IMAGE_OUTPUT) != 0; }
  bool reasons() const { return !reasoning_start.empty() && !reasoning_end.empty(); }
  // The id of the special token with this role, if the model names one.
  std::optional<int32_t> SpecialToken(absl::string_view role) const;
};

// Copies what the plugin filled (fields past its struct_size stay default)
// and checks it: a text model needs a vocabulary and at least one sequence.
absl::StatusOr<ModelInfo> ModelInfoFromOxi(const oxi_model_info& info);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_MODEL_INFO_H_
