// libFuzzer entry point for the model families' config parsers. The plugins
// read JSON through the host's services, so the process's host table is
// installed first, as a plugin gets it.
#include "fuzz/model_config_fuzzer.h"

#include <cmath>
#include <string>
#include <string_view>

#include "core/host_services.h"
#include "fuzz/fuzz_temp_dir.h"
#include "oxinfer/sdk/common.hpp"
#include "oxinfer/sdk/json.hpp"
#include "plugins/models/gemma4/gemma4_audio_features.h"
#include "plugins/models/gemma4/gemma4_config.h"
#include "plugins/models/gemma4/gemma4_image_preprocess.h"
#include "plugins/models/gemma4/gemma4_vision.h"
#include "plugins/models/qwen35/qwen35_config.h"
#include "plugins/models/sd/clip_text_encoder.h"
#include "plugins/models/sd/scheduler.h"
#include "plugins/models/sd/unet.h"
#include "plugins/models/sd/vae_decoder.h"

namespace oxinfer {
namespace {

bool PositiveFinite(double x) { return x > 0 && std::isfinite(x); }

void CheckGemma4(const gemma4::Gemma4Config& c) {
  if (c.num_layers <= 0 || c.layers.size() != static_cast<size_t>(c.num_layers) ||
      c.vocab_size <= 0 || c.hidden_size <= 0 || !PositiveFinite(c.rms_norm_eps) ||
      c.num_kv_shared_layers < 0 || c.num_kv_shared_layers > c.num_layers) {
    __builtin_trap();
  }
  for (int i = 0; i < c.num_layers; ++i) {
    const gemma4::LayerConfig& l = c.layers[i];
    if (l.head_dim <= 0 || l.num_kv_heads <= 0 || l.intermediate_size <= 0 || l.kv_source < 0 ||
        l.kv_source > i || (!l.kv_shared && l.kv_source != i)) {
      __builtin_trap();
    }
  }
}

void CheckQwen35(const qwen35::Qwen35Config& c) {
  if (c.vocab_size <= 0 || c.hidden_size <= 0 || c.num_hidden_layers <= 0 ||
      c.layer_types.size() != static_cast<size_t>(c.num_hidden_layers) ||
      c.num_attention_heads <= 0 || c.num_key_value_heads <= 0 ||
      c.num_attention_heads % c.num_key_value_heads != 0 || c.head_dim <= 0 || c.rotary_dim < 0 ||
      c.rotary_dim > c.head_dim || c.rotary_dim % 2 != 0 || c.linear_num_key_heads <= 0 ||
      c.linear_num_value_heads % c.linear_num_key_heads != 0 || !PositiveFinite(c.rms_norm_eps)) {
    __builtin_trap();
  }
}

absl::Status FromSdk(const sdk::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.code()), s.message());
}

// An SD component's Load reads dir/config.json, then the weights: stopping at
// the missing weights (NOT_FOUND) means the config was accepted.
template <typename Component>
absl::Status LoadSdComponent(const std::string& name, std::string_view json) {
  const std::string dir = FuzzTempDir(name);
  WriteFuzzFile(dir + "/config.json", absl::string_view(json.data(), json.size()));
  Component c;
  sdk::Status s = c.Load(dir, /*cx=*/nullptr, OXI_DTYPE_F32, /*use_mmap=*/true);
  if (s.ok()) __builtin_trap();  // there are no weights to load
  return s.code() == OXI_NOT_FOUND ? absl::OkStatus() : FromSdk(s);
}

}  // namespace

absl::Status ParseModelConfigFuzzInput(const uint8_t* data, size_t size) {
  static const bool kHost = [] {
    sdk::HostSlot() = HostServices();
    return true;
  }();
  (void)kHost;
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  absl::Status result = absl::InvalidArgumentError("no config parser accepted it");
  auto accept = [&](const absl::Status& s) {
    if (s.ok()) result = s;
  };

  sdk::StatusOr<gemma4::Gemma4Config> g = gemma4::ParseGemma4Config(json);
  if (g.ok()) CheckGemma4(*g);
  accept(FromSdk(g.status()));
  sdk::StatusOr<qwen35::Qwen35Config> q = qwen35::ParseQwen35Config(json, "fuzz/config.json");
  if (q.ok()) CheckQwen35(*q);
  accept(FromSdk(q.status()));

  sdk::StatusOr<sdk::JsonDoc> doc = sdk::JsonDoc::Parse(json, "fuzz.json");
  if (doc.ok()) {
    const sdk::Json root = doc->root();
    gemma4::VisionConfig vc;
    bool present = false;
    sdk::Status v = gemma4::ParseVisionConfig(root, &vc, &present);
    if (v.ok() && present &&
        (vc.hidden_size <= 0 || vc.num_heads <= 0 || vc.head_dim <= 0 || vc.patch_size <= 0 ||
         !PositiveFinite(vc.rms_norm_eps))) {
      __builtin_trap();
    }
    // processor_config.json: the image processor's and the feature extractor's
    // settings, or the same fields at the root (preprocessor_config.json).
    const sdk::Json ip = root.Has("image_processor") ? root["image_processor"] : root;
    sdk::StatusOr<gemma4::ImageProcessorConfig> image = gemma4::ParseImageProcessorConfig(ip);
    if (image.ok() && (image->patch_size <= 0 || image->pooling_kernel_size <= 0)) {
      __builtin_trap();
    }
    if (root.Has("image_processor")) accept(FromSdk(image.status()));
    const sdk::Json fe = root.Has("feature_extractor") ? root["feature_extractor"] : root;
    sdk::StatusOr<gemma4::AudioFeatureConfig> audio = gemma4::ParseAudioFeatureConfig(fe);
    if (audio.ok() &&
        (audio->feature_size <= 0 || audio->hop_length <= 0 || audio->frame_length <= 0 ||
         audio->fft_length < audio->frame_length || audio->sampling_rate <= 0)) {
      __builtin_trap();
    }
    if (root.Has("feature_extractor")) accept(FromSdk(audio.status()));
    // Every scheduler field has a default: a scheduler_config.json is told
    // apart by its class name (EulerDiscreteScheduler, PNDMScheduler...).
    sdk::StatusOr<sd::EulerScheduler> sched = sd::EulerScheduler::FromConfig(root);
    sdk::StatusOr<std::string> cls = root["_class_name"].StringOr("");
    if (cls.ok() && cls->size() > 9 && cls->compare(cls->size() - 9, 9, "Scheduler") == 0) {
      accept(FromSdk(sched.status()));
    }
  }
  // Most SD fields have defaults too: a component's config counts as
  // accepted by its own loader, told by diffusers' _class_name or
  // transformers' model_type.
  auto claims = [&](const char* name) {
    return json.find(std::string("\"") + name + "\"") != std::string_view::npos;
  };
  const absl::Status unet = LoadSdComponent<sd::UNet>("unet", json);
  const absl::Status vae = LoadSdComponent<sd::VaeDecoder>("vae", json);
  const absl::Status clip = LoadSdComponent<sd::ClipTextEncoder>("text_encoder", json);
  if (claims("UNet2DConditionModel")) accept(unet);
  if (claims("AutoencoderKL")) accept(vae);
  if (claims("clip_text_model")) accept(clip);
  return result;
}

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oxinfer::ParseModelConfigFuzzInput(data, size).IgnoreError();
  return 0;
}
