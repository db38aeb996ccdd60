// The body of POST /v1/images/generations, checked field by field: prompt
// (required), n (1 to kMaxImages), size ("auto" or WIDTHxHEIGHT),
// response_format (b64_json only: the server keeps no files), output_format,
// and the extensions negative_prompt, steps, guidance_scale, sampler and seed
// (default: a random one). A refusal names the field.
#ifndef OXINFER_TOOLS_SERVER_IMAGE_REQUEST_H_
#define OXINFER_TOOLS_SERVER_IMAGE_REQUEST_H_

#include <string>

#include "absl/strings/string_view.h"
#include "core/engine/image.h"
#include "tools/server/api_error.h"

namespace oxinfer::server {

inline constexpr int kMaxImages = 10;  // per request, as the API

struct ImageJob {
  engine::ImageRequest base;  // image i of n gets seed base.seed + i
  int n = 1;
  std::string format = "png";
};

bool ParseImageRequest(absl::string_view body, ImageJob* job, ApiError* error);

}  // namespace oxinfer::server

#endif  // OXINFER_TOOLS_SERVER_IMAGE_REQUEST_H_
