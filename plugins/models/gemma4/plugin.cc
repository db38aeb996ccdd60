// The Gemma 4 model plugin: its oxi_plugin descriptor and oxi_model_iface.
// The only exported symbol is oxinfer_plugin_entry (see exports.lds).
#include "oxinfer/plugin.hpp"

#include <cstring>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "oxinfer/plugin_abi.h"
#include "plugins/models/gemma4/gemma4_config.h"
#include "plugins/models/gemma4/gemma4_model.h"

// The opaque handle the ABI hands out.
struct oxi_model {
  std::unique_ptr<oxinfer::gemma4::Gemma4Model> impl;
};

namespace oxinfer {
namespace gemma4 {
namespace {

constexpr char kName[] = "gemma4";
const oxi_host_services* g_host = nullptr;

int32_t Fail(const absl::Status& s, char* error, size_t error_size) {
  sdk::WriteMessage(error, error_size, std::string(s.message()));
  return s.ok() ? OXI_INTERNAL : static_cast<int32_t>(s.code());
}

int32_t Probe(const char* model_dir, const char* config_json, char* reason, size_t reason_size) {
  return sdk::Guard(reason, reason_size, [&]() -> int32_t {
    if (config_json == nullptr) {
      sdk::WriteMessage(reason, reason_size, "no config.json");
      return 0;
    }
    auto cfg = ParseGemma4Config(config_json);
    if (!cfg.ok()) {
      sdk::WriteMessage(reason, reason_size, std::string(cfg.status().message()));
      return 0;
    }
    (void)model_dir;
    return 100;
  });
}

int32_t Open(const oxi_model_open_params* params, oxi_model** model, char* error,
             size_t error_size) {
  return sdk::Guard(error, error_size, [&]() -> int32_t {
    if (params == nullptr || model == nullptr || params->model_dir == nullptr) {
      sdk::WriteMessage(error, error_size, "gemma4: open without parameters");
      return OXI_INVALID_ARGUMENT;
    }
    *model = nullptr;
    ModelOptions opt;
    if (OXI_HAS_FIELD(params, oxi_model_open_params, weight_dtype)) {
      opt.weight_dtype = params->weight_dtype;
    }
    if (OXI_HAS_FIELD(params, oxi_model_open_params, use_mmap))
      opt.use_mmap = params->use_mmap != 0;
    if (OXI_HAS_FIELD(params, oxi_model_open_params, context_length)) {
      opt.context_length = params->context_length;
    }
    if (OXI_HAS_FIELD(params, oxi_model_open_params, prefill_chunk)) {
      opt.prefill_chunk = params->prefill_chunk;
    }
    auto m = Gemma4Model::Open(params->model_dir, params->backend, opt);
    if (!m.ok()) return Fail(m.status(), error, error_size);
    const Gemma4Config& c = (*m)->config();
    sdk::Log(g_host, OXI_LOG_INFO, kName,
             absl::StrCat("opened ", params->model_dir, ": ", c.num_layers, " layers, hidden ",
                          c.hidden_size, ", vocab ", c.vocab_size));
    *model = new oxi_model{std::move(*m)};
    return OXI_OK;
  });
}

void Close(oxi_model* model) { delete model; }

int32_t VocabSize(const oxi_model* model) {
  return model == nullptr ? 0 : model->impl->vocab_size();
}

int32_t Forward(oxi_model* model, const int32_t* tokens, int64_t n, float* logits, char* error,
                size_t error_size) {
  return sdk::Guard(error, error_size, [&]() -> int32_t {
    if (model == nullptr) {
      sdk::WriteMessage(error, error_size, "gemma4: forward on a null model");
      return OXI_INVALID_ARGUMENT;
    }
    absl::Status s = model->impl->Forward(tokens, n, logits);
    return s.ok() ? OXI_OK : Fail(s, error, error_size);
  });
}

int32_t Truncate(oxi_model* model, int64_t n_keep) {
  return sdk::Guard([&]() -> int32_t {
    if (model == nullptr) return OXI_INVALID_ARGUMENT;
    absl::Status s = model->impl->Truncate(n_keep);
    return s.ok() ? OXI_OK : static_cast<int32_t>(s.code());
  });
}

const oxi_model_iface kIface = {
    sizeof(oxi_model_iface), &Probe, &Open, &Close, &VocabSize, &Forward, &Truncate,
};

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
    kName,
    "0.1.0",
    "Gemma 4 text models (E2B, E4B, 31B; gemma4 / gemma4_text checkpoints)",
    &Score,
    &GetInterface,
};

}  // namespace
}  // namespace gemma4
}  // namespace oxinfer

OXINFER_DEFINE_PLUGIN(oxinfer::gemma4::kPlugin)
