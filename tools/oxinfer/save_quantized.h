// --save-quantized DIR: the model written at --quant precision, in the
// layouts the backend holds (core/quantized_writer.h, docs/quantisation.md).
#ifndef OXINFER_TOOLS_OXINFER_SAVE_QUANTIZED_H_
#define OXINFER_TOOLS_OXINFER_SAVE_QUANTIZED_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/engine/engine.h"
#include "core/quantized_writer.h"

namespace oxinfer {

// Checks `dir` and starts the writer before anything loads, and points
// options->record_weight at it. quant: --quant's type; OXI_DTYPE_INVALID
// takes a --save-quantized source folder's own precision, else is refused.
absl::StatusOr<std::unique_ptr<QuantizedWriter>> StartSave(const std::string& dir, oxi_dtype quant,
                                                           engine::EngineOptions* options);

// After Engine::Open: writes the rest and renames the folder into place;
// prints what was saved on stderr.
absl::Status FinishSave(QuantizedWriter* writer, const engine::Engine& engine);

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_SAVE_QUANTIZED_H_
