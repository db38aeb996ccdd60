#include "tools/oxinfer/save_quantized.h"

#include <cstdio>
#include <utility>

#include "core/quantized_format.h"

namespace oxinfer {

absl::StatusOr<std::unique_ptr<QuantizedWriter>> StartSave(const std::string& dir, oxi_dtype quant,
                                                           engine::EngineOptions* options) {
  if (quant == OXI_DTYPE_INVALID) {
    absl::StatusOr<oxi_dtype> saved = SavedQuantizedPrecision(options->model_dir);
    if (!saved.ok()) return saved.status();
    quant = *saved;
  }
  absl::StatusOr<std::unique_ptr<QuantizedWriter>> w =
      QuantizedWriter::Create(dir, options->model_dir, quant);
  if (!w.ok()) return w.status();
  QuantizedWriter* writer = w->get();
  options->record_weight = [writer](const oxi_weight_tensor& t) { return writer->Add(t); };
  return w;
}

absl::Status FinishSave(QuantizedWriter* writer, const engine::Engine& engine) {
  const BackendChoice& b = engine.backends();
  const PluginRecord* device = b.accelerator != nullptr ? b.accelerator : b.cpu;
  const absl::Status s =
      writer->Finish(engine.model_dir(), device != nullptr ? device->name : "unknown");
  if (!s.ok()) return s;
  std::fprintf(stderr, "oxinfer: saved %lld tensors (%.2f GiB) in %lld shards to %s\n",
               static_cast<long long>(writer->tensors()),
               static_cast<double>(writer->bytes()) / (1 << 30),
               static_cast<long long>(writer->shards()), writer->out_dir().c_str());
  return absl::OkStatus();
}

}  // namespace oxinfer
