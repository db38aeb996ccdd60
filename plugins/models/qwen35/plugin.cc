// The Qwen 3.5 / 3.6 / 3.8 dense model plugin: the oxi_model_iface table over
// Qwen35Model. Exports only oxinfer_plugin_entry.
#include "oxinfer/plugin.hpp"

#include <cstring>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "plugins/models/qwen35/ops.h"
#include "plugins/models/qwen35/qwen35_config.h"
#include "plugins/models/qwen35/qwen35_model.h"

struct oxi_model {
  std::unique_ptr<oxinfer::qwen35::Qwen35Model> model;
};

namespace oxinfer {
namespace qwen35 {
namespace {

const oxi_host_services* g_host = nullptr;

int32_t ToOxi(const absl::Status& st, char* error, size_t error_size) {
  if (st.ok()) return OXI_OK;
  sdk::WriteMessage(error, error_size, std::string(st.message()));
  return static_cast<int32_t>(st.code());
}

int32_t Probe(const char* model_dir, const char* config_json, char* reason, size_t reason_size) {
  return sdk::Guard(reason, reason_size, [&]() -> int32_t {
    (void)model_dir;
    if (config_json == nullptr) {
      sdk::WriteMessage(reason, reason_size, "no config.json");
      return 0;
    }
    absl::StatusOr<Qwen35Config> c = ParseQwen35Config(config_json);
    if (!c.ok()) {
      sdk::WriteMessage(reason, reason_size, std::string(c.status().message()));
      return 0;
    }
    return 100;
  });
}

int32_t Open(const oxi_model_open_params* params, oxi_model** model, char* error,
             size_t error_size) {
  return sdk::Guard(error, error_size, [&]() -> int32_t {
    if (params == nullptr || model == nullptr || params->model_dir == nullptr) {
      sdk::WriteMessage(error, error_size, "open: null argument");
      return OXI_INVALID_ARGUMENT;
    }
    *model = nullptr;
    ModelOptions o;
    if (OXI_HAS_FIELD(params, oxi_model_open_params, weight_dtype))
      o.weight_dtype = params->weight_dtype;
    if (OXI_HAS_FIELD(params, oxi_model_open_params, use_mmap)) o.use_mmap = params->use_mmap != 0;
    if (OXI_HAS_FIELD(params, oxi_model_open_params, context_length))
      o.context_length = params->context_length;
    if (OXI_HAS_FIELD(params, oxi_model_open_params, prefill_chunk))
      o.prefill_chunk = params->prefill_chunk;
    if (OXI_HAS_FIELD(params, oxi_model_open_params, progress_ctx)) {
      o.progress = params->progress;
      o.progress_ctx = params->progress_ctx;
    }
    const oxi_backend_iface* backend =
        OXI_HAS_FIELD(params, oxi_model_open_params, backend) ? params->backend : nullptr;
    Ops ops(backend, g_host);
    absl::StatusOr<std::unique_ptr<Qwen35Model>> m = Qwen35Model::Open(params->model_dir, ops, o);
    if (!m.ok()) return ToOxi(m.status(), error, error_size);
    *model = new oxi_model{std::move(*m)};
    return OXI_OK;
  });
}

void Close(oxi_model* model) { delete model; }

int32_t VocabSize(const oxi_model* model) {
  return model == nullptr ? 0 : static_cast<int32_t>(model->model->config().vocab_size);
}

int32_t Forward(oxi_model* model, const int32_t* tokens, int64_t n, float* logits, char* error,
                size_t error_size) {
  return sdk::Guard(error, error_size, [&]() -> int32_t {
    if (model == nullptr || (tokens == nullptr && n > 0)) {
      sdk::WriteMessage(error, error_size, "forward: null argument");
      return OXI_INVALID_ARGUMENT;
    }
    return ToOxi(model->model->Forward(tokens, n, logits), error, error_size);
  });
}

int32_t Truncate(oxi_model* model, int64_t n_keep) {
  return sdk::Guard([&]() -> int32_t {
    if (model == nullptr) return OXI_INVALID_ARGUMENT;
    return ToOxi(model->model->Truncate(n_keep), nullptr, 0);
  });
}

oxi_model_iface MakeIface() {
  oxi_model_iface t;
  std::memset(&t, 0, sizeof t);  // optional entries (generate_image, ...) stay NULL
  t.struct_size = sizeof t;
  t.probe = &Probe;
  t.open = &Open;
  t.close = &Close;
  t.vocab_size = &VocabSize;
  t.forward = &Forward;
  t.truncate = &Truncate;
  return t;
}

const oxi_model_iface kIface = MakeIface();

int32_t Score(const oxi_host_services* host, char* reason, size_t reason_size) {
  (void)host;
  (void)reason;
  (void)reason_size;
  return 1;
}

const void* GetInterface(const oxi_host_services* host, char* error, size_t error_size) {
  (void)error;
  (void)error_size;
  g_host = host;
  return &kIface;
}

const oxi_plugin kPlugin = {
    sizeof(oxi_plugin),
    OXI_ABI_MAJOR,
    OXI_ABI_MINOR,
    OXI_PLUGIN_MODEL,
    "qwen35",
    "0.1.0",
    "Qwen 3.5 / 3.6 / 3.8 dense text models (Gated DeltaNet + gated attention)",
    &Score,
    &GetInterface,
};

}  // namespace
}  // namespace qwen35
}  // namespace oxinfer

OXINFER_DEFINE_PLUGIN(oxinfer::qwen35::kPlugin)
