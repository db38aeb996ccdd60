#include "tools/oxinfer/image_generation.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "tools/oxinfer/progress_bar.h"

namespace oxinfer {
namespace {

void StepProgress(void* ctx, int32_t step, int32_t total) {
  static_cast<ProgressBar*>(ctx)->Update(step, total, "steps");
}

std::string Extension(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? "" : absl::AsciiStrToLower(path.substr(dot + 1));
}

}  // namespace

absl::Status WriteImageFile(const PluginRegistry& registry, const oxi_image& image,
                            const std::string& path) {
  const std::string format = Extension(path);
  if (format.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: no extension to pick a format", path));
  }
  for (const PluginRecord* r : registry.Loaded(OXI_PLUGIN_CODEC)) {
    const auto* codec = static_cast<const oxi_codec_iface*>(r->iface);
    if (codec->encode_image == nullptr || codec->formats == nullptr) continue;
    bool writes = false;
    for (absl::string_view f : absl::StrSplit(codec->formats, ',')) {
      writes |= absl::StripAsciiWhitespace(f) == format;
    }
    if (!writes) continue;
    uint8_t* data = nullptr;
    size_t size = 0;
    char error[512] = {};
    const int32_t rc = codec->encode_image(&image, format.c_str(), &data, &size, error, sizeof error);
    if (rc != OXI_OK) {
      return absl::Status(static_cast<absl::StatusCode>(rc),
                          absl::StrFormat("%s: encoding %s failed: %s", r->name, path, error));
    }
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (codec->free_buffer != nullptr) codec->free_buffer(data);
    if (!out) return absl::InternalError(absl::StrFormat("%s: cannot write", path));
    return absl::OkStatus();
  }
  return absl::NotFoundError(
      absl::StrFormat("no codec plugin writes .%s files (see `oxinfer --plugins`)", format));
}

absl::Status RunImageGeneration(ModelInstance& model, const PluginRegistry& registry,
                                const ImageOptions& options) {
  if (options.prompt.empty()) return absl::InvalidArgumentError("no prompt: use -p TEXT");
  oxi_image_request req = {};
  req.struct_size = sizeof req;
  req.prompt = options.prompt.c_str();
  req.negative_prompt = options.negative.c_str();
  req.steps = options.steps;
  req.guidance = options.guidance;
  req.sampler = options.sampler.empty() ? nullptr : options.sampler.c_str();
  req.seed = options.seed;
  if (!options.size.empty()) {
    std::vector<std::string> wh = absl::StrSplit(options.size, 'x');
    if (wh.size() != 2 || !absl::SimpleAtoi(wh[0], &req.width) ||
        !absl::SimpleAtoi(wh[1], &req.height) || req.width <= 0 || req.height <= 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--size=%s: expected WIDTHxHEIGHT, e.g. 512x512", options.size));
    }
  }
  ProgressBar bar("denoising");
  req.progress = &StepProgress;
  req.progress_ctx = &bar;
  oxi_image image = {};
  image.struct_size = sizeof image;
  const auto t0 = std::chrono::steady_clock::now();
  absl::Status s = model.GenerateImage(req, &image);
  bar.Finish();
  if (!s.ok()) return s;
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s = WriteImageFile(registry, image, options.output);
  std::fprintf(stderr, "%dx%d image in %.2f s -> %s\n", image.width, image.height, secs,
               options.output.c_str());
  model.FreeImage(&image);
  return s;
}

}  // namespace oxinfer
