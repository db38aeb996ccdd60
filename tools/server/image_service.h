// POST /v1/images/generations for text-to-image models: the API's fields
// (prompt, n, size, response_format b64_json, output_format) and the
// extensions negative_prompt, steps, guidance_scale, sampler and seed, run
// one request at a time (the model runs one image at a time), each image
// with seed + i so that n images differ and a seeded request repeats.
#ifndef OXINFER_TOOLS_SERVER_IMAGE_SERVICE_H_
#define OXINFER_TOOLS_SERVER_IMAGE_SERVICE_H_

#include <mutex>
#include <string>

#include "core/engine/engine.h"
#include "httplib.h"

namespace oxinfer::server {

class ImageService {
 public:
  static constexpr int kMaxImages = 10;  // per request, as the API

  ImageService(engine::Engine& engine, int max_waiting)
      : engine_(engine), max_waiting_(max_waiting) {}

  void Handle(const httplib::Request& req, httplib::Response& res);

 private:
  engine::Engine& engine_;
  const int max_waiting_;
  std::mutex run_mu_;  // one request generates at a time
  std::mutex count_mu_;
  int waiting_ = 0;
};

}  // namespace oxinfer::server

#endif  // OXINFER_TOOLS_SERVER_IMAGE_SERVICE_H_
