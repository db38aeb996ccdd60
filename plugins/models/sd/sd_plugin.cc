// The Stable Diffusion model plugin: recognises a diffusers folder whose
// model_index.json names StableDiffusionPipeline and generates images
// through oxi_model_iface's generate_image entry (forward has no meaning here).
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/str_format.h"
#include "oxinfer/plugin.hpp"
#include "plugins/models/sd/pipeline.h"

struct oxi_model {
  std::unique_ptr<oxinfer::sd::Pipeline> pipeline;
  const oxi_backend_iface* backend = nullptr;
};

namespace oxinfer {
namespace sd {
namespace {

constexpr char kName[] = "sd";
const oxi_host_services* g_host = nullptr;

bool ReadText(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

int32_t Probe(const char* model_dir, const char*, char* reason, size_t reason_size) {
  if (model_dir == nullptr) {
    sdk::WriteMessage(reason, reason_size, "no model directory");
    return 0;
  }
  std::string index;
  if (!ReadText(std::string(model_dir) + "/model_index.json", &index)) {
    sdk::WriteMessage(reason, reason_size, "no model_index.json (not a diffusers folder)");
    return 0;
  }
  std::string why;
  if (!IsStableDiffusionIndex(index, &why)) {
    sdk::WriteMessage(reason, reason_size, why);
    return 0;
  }
  return 100;
}

int32_t Open(const oxi_model_open_params* params, oxi_model** model, char* error,
             size_t error_size) {
  return sdk::Guard(error, error_size, [&]() -> int32_t {
    if (params == nullptr || model == nullptr || params->model_dir == nullptr) {
      sdk::WriteMessage(error, error_size, "sd: null argument");
      return OXI_INVALID_ARGUMENT;
    }
    std::function<void(const char*, int, int)> progress;
    if (OXI_HAS_FIELD(params, oxi_model_open_params, progress_ctx) && params->progress != nullptr) {
      progress = [params](const char* what, int done, int total) {
        params->progress(params->progress_ctx, done, total, what);
      };
    }
    // Weights as stored (f16 / bf16 files stay 16-bit, f32 stays f32) unless
    // the host asks for f32, f16 or bf16; the block formats (Q8_0, Q4_0) do
    // not fit the convolutions' row lengths and are treated as "as stored".
    oxi_dtype storage = OXI_DTYPE_INVALID;
    if (OXI_HAS_FIELD(params, oxi_model_open_params, weight_dtype) &&
        (params->weight_dtype == OXI_DTYPE_F32 || params->weight_dtype == OXI_DTYPE_F16 ||
         params->weight_dtype == OXI_DTYPE_BF16)) {
      storage = params->weight_dtype;
    }
    absl::StatusOr<std::unique_ptr<Pipeline>> p =
        Pipeline::Load(params->model_dir, progress, storage);
    if (!p.ok()) {
      sdk::WriteMessage(error, error_size, std::string(p.status().message()));
      return static_cast<int32_t>(p.status().code());
    }
    auto* m = new oxi_model;
    m->pipeline = *std::move(p);
    m->backend = OXI_HAS_FIELD(params, oxi_model_open_params, backend) ? params->backend : nullptr;
    *model = m;
    return OXI_OK;
  });
}

void Close(oxi_model* model) { delete model; }

int32_t VocabSize(const oxi_model* model) {
  return model ? static_cast<int32_t>(model->pipeline->tokenizer().vocab_size()) : 0;
}

int32_t Forward(oxi_model*, const int32_t*, int64_t, float*, char* error, size_t error_size) {
  sdk::WriteMessage(error, error_size,
                    "sd: a text-to-image model has no logits; use generate_image");
  return OXI_UNIMPLEMENTED;
}

int32_t Truncate(oxi_model*, int64_t) { return OXI_UNIMPLEMENTED; }

int32_t GenerateImage(oxi_model* model, const oxi_image_request* req, oxi_image* out, char* error,
                      size_t error_size) {
  return sdk::Guard(error, error_size, [&]() -> int32_t {
    if (model == nullptr || req == nullptr || out == nullptr || req->prompt == nullptr) {
      sdk::WriteMessage(error, error_size, "sd: null argument");
      return OXI_INVALID_ARGUMENT;
    }
    GenerateParams gp;
    gp.prompt = req->prompt;
    gp.negative_prompt = req->negative_prompt ? req->negative_prompt : "";
    gp.steps = req->steps;
    if (req->guidance >= 0.f) gp.guidance = req->guidance;
    if (req->sampler != nullptr && req->sampler[0] != '\0') {
      if (std::strcmp(req->sampler, "euler") == 0) {
        gp.sampler = Sampler::kEuler;
      } else if (std::strcmp(req->sampler, "euler_a") == 0) {
        gp.sampler = Sampler::kEulerAncestral;
      } else {
        sdk::WriteMessagef(error, error_size, "sd: unknown sampler '%s' (euler, euler_a)",
                           req->sampler);
        return OXI_INVALID_ARGUMENT;
      }
    }
    gp.width = req->width;
    gp.height = req->height;
    gp.seed = req->seed;
    if (req->progress != nullptr) {
      gp.progress = [req](int step, int total) { req->progress(req->progress_ctx, step, total); };
    }
    // Stage times reach the host's log at info level (oxinfer --profile shows them).
    gp.stage_time = [](const std::string& stage, double seconds) {
      sdk::Log(g_host, OXI_LOG_INFO, "sd", absl::StrFormat("%-13s %8.3f s", stage, seconds));
    };
    Ops ops(model->backend, g_host);
    absl::StatusOr<Image> img = model->pipeline->Generate(ops, gp);
    if (!img.ok()) {
      sdk::WriteMessage(error, error_size, std::string(img.status().message()));
      return static_cast<int32_t>(img.status().code());
    }
    auto* pixels = static_cast<uint8_t*>(std::malloc(img->rgb.size()));
    if (pixels == nullptr) return OXI_RESOURCE_EXHAUSTED;
    std::memcpy(pixels, img->rgb.data(), img->rgb.size());
    out->struct_size = sizeof(oxi_image);
    out->width = img->width;
    out->height = img->height;
    out->channels = 3;
    out->pixels = pixels;
    return OXI_OK;
  });
}

void FreeImage(oxi_image* image) {
  if (image == nullptr) return;
  std::free(image->pixels);
  image->pixels = nullptr;
}

const oxi_model_iface kIface = {
    sizeof(oxi_model_iface), Probe,     Open, Close, VocabSize, Forward, Truncate,
    GenerateImage,           FreeImage,
};

int32_t Score(const oxi_host_services*, char*, size_t) { return 1; }

const void* GetInterface(const oxi_host_services* host, char*, size_t) {
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
    "Stable Diffusion 1.x / 2.x / SD-Turbo text to image (diffusers folders)",
    Score,
    GetInterface,
};

}  // namespace
}  // namespace sd
}  // namespace oxinfer

OXINFER_DEFINE_PLUGIN(oxinfer::sd::kPlugin)
