// oxinfer_engine_generate_image and friends: text-to-image checkpoints.
#include <cstdlib>
#include <cstring>
#include <string>

#include "capi/handles.h"
#include "core/engine/image.h"

using oxinfer::capi::Fail;
using oxinfer::capi::Guard;

extern "C" {

void oxinfer_image_options_init(oxinfer_image_options* o) {
  if (o == nullptr) return;
  *o = oxinfer_image_options{};
  o->struct_size = sizeof *o;
  o->guidance = -1.0f;
}

oxinfer_status oxinfer_engine_generate_image(oxinfer_engine* engine, const oxinfer_image_options* o,
                                             oxinfer_progress_fn progress, void* user_data,
                                             oxinfer_image** out) {
  return Guard([&] {
    if (engine == nullptr || o == nullptr || out == nullptr) {
      return Fail(OXINFER_INVALID_ARGUMENT, "oxinfer_engine_generate_image: NULL argument");
    }
    *out = nullptr;
    if (o->struct_size < offsetof(oxinfer_image_options, seed) + sizeof(o->seed)) {
      return Fail(OXINFER_INVALID_ARGUMENT,
                  "oxinfer_image_options.struct_size too small (call oxinfer_image_options_init)");
    }
    oxinfer::engine::ImageRequest request;
    request.prompt = o->prompt != nullptr ? o->prompt : "";
    request.negative_prompt = o->negative_prompt != nullptr ? o->negative_prompt : "";
    request.width = o->width;
    request.height = o->height;
    request.steps = o->steps;
    request.guidance = o->guidance;
    request.sampler = o->sampler != nullptr ? o->sampler : "";
    request.seed = o->seed;
    if (progress != nullptr) {
      request.progress = [&](int32_t step, int32_t total) {
        return progress(user_data, step, total) == 0;
      };
    }
    auto image = engine->engine->GenerateImage(request);
    if (!image.ok()) return Fail(image.status());
    auto* result = static_cast<oxinfer_image*>(std::calloc(1, sizeof(oxinfer_image)));
    result->width = image->width;
    result->height = image->height;
    result->channels = image->channels;
    result->pixels = static_cast<uint8_t*>(std::malloc(image->pixels.size()));
    std::memcpy(result->pixels, image->pixels.data(), image->pixels.size());
    *out = result;
    return OXINFER_OK;
  });
}

oxinfer_status oxinfer_image_write(const oxinfer_engine* engine, const oxinfer_image* image,
                                   const char* path) {
  return Guard([&] {
    if (engine == nullptr || image == nullptr || path == nullptr) {
      return Fail(OXINFER_INVALID_ARGUMENT, "oxinfer_image_write: NULL argument");
    }
    if (image->width <= 0 || image->height <= 0 || image->channels <= 0 ||
        image->pixels == nullptr) {
      return Fail(OXINFER_INVALID_ARGUMENT, "oxinfer_image_write: empty image");
    }
    oxinfer::engine::Image copy;
    copy.width = image->width;
    copy.height = image->height;
    copy.channels = image->channels;
    copy.pixels.assign(image->pixels, image->pixels + size_t{static_cast<uint32_t>(image->width)} *
                                                          image->height * image->channels);
    return Fail(engine->engine->WriteImage(copy, path));
  });
}

void oxinfer_image_free(oxinfer_image* image) {
  if (image == nullptr) return;
  std::free(image->pixels);
  std::free(image);
}

}  // extern "C"
