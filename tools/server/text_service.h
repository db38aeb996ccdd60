// POST /v1/chat/completions and /v1/completions: a checked TextRequest run
// on a slot's session, answered as one JSON object or, with "stream": true,
// as server-sent events (one `data: {chunk}` per piece of text, the usage
// chunk with "choices": [] when stream_options.include_usage asks, then
// `data: [DONE]`), as the OpenAI API defines them.
#ifndef OXINFER_TOOLS_SERVER_TEXT_SERVICE_H_
#define OXINFER_TOOLS_SERVER_TEXT_SERVICE_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "core/engine/engine.h"
#include "httplib.h"
#include "tools/server/metrics.h"
#include "tools/server/slot_pool.h"
#include "tools/server/text_request.h"

namespace oxinfer::server {

class TextService {
 public:
  TextService(engine::Engine& engine, SlotPool& slots, Metrics& metrics, std::string model_id)
      : engine_(engine), slots_(slots), metrics_(metrics), model_id_(std::move(model_id)) {}

  // Answers `request` into `res` (an error object, a JSON reply, or a stream
  // that httplib writes after the handler returns).
  void Handle(TextRequest request, httplib::Response& res);

 private:
  std::string NextId(const char* prefix);

  engine::Engine& engine_;
  SlotPool& slots_;
  Metrics& metrics_;
  const std::string model_id_;
  std::atomic<uint64_t> next_id_{1};
};

// Writes `error` into `res` as the API's error object.
void SetError(httplib::Response& res, const ApiError& error);

}  // namespace oxinfer::server

#endif  // OXINFER_TOOLS_SERVER_TEXT_SERVICE_H_
