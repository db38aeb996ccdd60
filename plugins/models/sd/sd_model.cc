#include "plugins/models/sd/sd_model.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "oxinfer/sdk/common.hpp"

namespace oxinfer {
namespace sd {

int32_t SdModel::Probe(const sdk::ProbeInput& in, std::string* reason) {
  std::string index = in.config_json;
  if (index.empty() || index.find("_class_name") == std::string::npos) {
    const std::string path = in.model_dir + "/model_index.json";
    if (!sdk::FileExists(path)) {
      *reason = "no model_index.json (not a diffusers folder)";
      return 0;
    }
    auto text = sdk::ReadFile(path);
    if (!text.ok()) {
      *reason = text.status().message();
      return 0;
    }
    index = *std::move(text);
  }
  return IsStableDiffusionIndex(index, reason) ? 100 : 0;
}

Residency ResidencyWanted() {
  // The model ABI carries no "one image, then exit" hint: the environment
  // does, for hosts that make one image (docs/peers.md measures both).
  const char* v = std::getenv("OXINFER_SD_RESIDENCY");
  return v != nullptr && std::strcmp(v, "stage") == 0 ? Residency::kStage : Residency::kAll;
}

sdk::StatusOr<std::unique_ptr<SdModel>> SdModel::Open(const sdk::OpenParams& p) {
  std::function<void(const char*, int, int)> progress;
  if (p.progress_fn != nullptr) {
    progress = [&p](const char* what, int done, int total) { p.Progress(done, total, what); };
  }
  // Matrices as stored (f16 / bf16 files stay 16-bit, f32 stays f32) unless
  // the host asks for f32, f16 or bf16; Q8_0 / Q4_0 do not fit the
  // convolutions' rows (4 x 3 x 3 is no whole number of blocks): as stored.
  const oxi_dtype w = p.weight_dtype;
  if (p.recorder != nullptr) {
    return sdk::UnimplementedError(
        "sd: --save-quantized: Stable Diffusion keeps every matrix as stored under --quant "
        "(Q8_0 / Q4_0 do not fit its convolutions), so there is nothing to save quantised; "
        "use the diffusers folder as it is");
  }
  const oxi_dtype matrix_dtype =
      (w == OXI_DTYPE_F32 || w == OXI_DTYPE_F16 || w == OXI_DTYPE_BF16) ? w : OXI_DTYPE_INVALID;
  OXI_ASSIGN_OR_RETURN(std::unique_ptr<Pipeline> pipeline,
                       Pipeline::Load(p.model_dir, p.backend, matrix_dtype, p.use_mmap, progress,
                                      ResidencyWanted()));
  if (oxi_dtype_block_elems(w) > 1) {
    sdk::Log(sdk::Host(), OXI_LOG_INFO, "sd",
             sdk::StrCat("quantised 0 matrices to ", oxi_dtype_name(w),
                         ": Stable Diffusion keeps every matrix as stored"));
  }
  return std::unique_ptr<SdModel>(new SdModel(std::move(pipeline)));
}

sdk::ModelInfo SdModel::Info() const {
  sdk::ModelInfo i;
  i.capabilities = OXI_MODEL_IMAGE_OUTPUT;
  i.family = "sd";
  i.vocab_size = static_cast<int32_t>(pipeline_->tokenizer().vocab_size());
  i.hidden_size = static_cast<int32_t>(pipeline_->text_encoder().hidden());
  i.context_length = pipeline_->tokenizer().max_length();
  i.max_sequences = 1;
  i.can_rewind = false;
  return i;
}

sdk::StatusOr<GenerateParams> ParamsFromRequest(const oxi_image_request& req) {
  GenerateParams gp;
  gp.prompt = req.prompt;
  gp.negative_prompt = req.negative_prompt != nullptr ? req.negative_prompt : "";
  gp.steps = req.steps;
  if (req.guidance != req.guidance) return sdk::InvalidArgumentError("guidance is NaN");
  if (req.guidance >= 0.f) gp.guidance = req.guidance;
  if (req.sampler != nullptr && req.sampler[0] != '\0') {
    if (std::strcmp(req.sampler, "euler") == 0) {
      gp.sampler = Sampler::kEuler;
    } else if (std::strcmp(req.sampler, "euler_a") == 0) {
      gp.sampler = Sampler::kEulerAncestral;
    } else {
      return sdk::InvalidArgumentError(
          sdk::StrCat("unknown sampler '", req.sampler, "' (euler or euler_a)"));
    }
  }
  gp.width = req.width;
  gp.height = req.height;
  gp.seed = req.seed;
  return gp;
}

sdk::StatusOr<sdk::Image> SdModel::GenerateImage(const oxi_image_request& req) {
  OXI_ASSIGN_OR_RETURN(GenerateParams gp, ParamsFromRequest(req));
  if (OXI_HAS_FIELD(&req, oxi_image_request, progress_ctx) && req.progress != nullptr) {
    gp.progress = [&req](int step, int total) {
      return req.progress(req.progress_ctx, step, total) == 0;
    };
  }
  // Stage times reach the host's log at info level (--profile shows them).
  gp.stage_time = [](const std::string& stage, double seconds) {
    char line[96];
    std::snprintf(line, sizeof line, "%-13s %8.3f s", stage.c_str(), seconds);
    sdk::Log(sdk::Host(), OXI_LOG_INFO, "sd", line);
  };
  OXI_ASSIGN_OR_RETURN(RgbImage img, pipeline_->Generate(gp));
  sdk::Image out;
  out.width = img.width;
  out.height = img.height;
  out.channels = 3;
  out.pixels = std::move(img.rgb);
  return out;
}

}  // namespace sd
}  // namespace oxinfer
