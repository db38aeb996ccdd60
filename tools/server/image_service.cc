#include "tools/server/image_service.h"

#include <ctime>

#include "absl/strings/escaping.h"
#include "tools/server/api_error.h"
#include "tools/server/client_connection.h"
#include "tools/server/image_request.h"
#include "tools/server/text_response.h"
#include "tools/server/text_service.h"

namespace oxinfer::server {

void ImageService::Handle(const httplib::Request& req, httplib::Response& res) {
  ImageJob job;
  ApiError error;
  if (!ParseImageRequest(req.body, &job, &error)) {
    SetError(res, error);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(count_mu_);
    if (waiting_ > max_waiting_) {
      ApiError e;
      e.status = 429;
      e.type = "rate_limit_error";
      e.message = "an image is being generated and the queue is full; retry later";
      SetError(res, e);
      return;
    }
    ++waiting_;
  }
  struct Leave {
    ImageService* s;
    ~Leave() {
      std::lock_guard<std::mutex> lock(s->count_mu_);
      --s->waiting_;
    }
  } leave{this};
  std::lock_guard<std::mutex> run(run_mu_);

  ClientConnection client(req);
  Json data = Json::array();
  for (int i = 0; i < job.n; ++i) {
    engine::ImageRequest r = job.base;
    r.seed = job.base.seed + static_cast<uint64_t>(i);
    r.progress = [&client](int32_t, int32_t) { return !client.Gone(); };
    absl::StatusOr<engine::Image> image = engine_.GenerateImage(r);
    if (!image.ok()) {
      if (image.status().code() == absl::StatusCode::kCancelled) {
        res.status = 499;  // nobody reads it
        return;
      }
      SetError(res, FromStatus(image.status()));
      return;
    }
    absl::StatusOr<std::string> encoded = engine_.EncodeImage(*image, job.format);
    if (!encoded.ok()) {
      SetError(res, FromStatus(encoded.status(), "output_format"));
      return;
    }
    data.push_back(Json{{"b64_json", absl::Base64Escape(*encoded)}});
  }
  Json body;
  body["created"] = static_cast<int64_t>(std::time(nullptr));
  body["data"] = std::move(data);
  body["output_format"] = job.format;
  res.set_content(Dump(body), "application/json");
}

}  // namespace oxinfer::server
