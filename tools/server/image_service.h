// POST /v1/images/generations for text-to-image models (image_request.h),
// one request at a time (the model makes one image at a time), each image
// with seed + i so that n images differ and a seeded request repeats; a
// client that leaves cancels between denoising steps.
#ifndef OXINFER_TOOLS_SERVER_IMAGE_SERVICE_H_
#define OXINFER_TOOLS_SERVER_IMAGE_SERVICE_H_

#include <mutex>
#include <string>

#include "core/engine/engine.h"
#include "httplib.h"

namespace oxinfer::server {

class ImageService {
 public:
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
