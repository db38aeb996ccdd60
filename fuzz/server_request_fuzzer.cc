// libFuzzer entry points for what clients send the server: a refusal is a
// 400 whose message names the field it gives as `param`, and whose JSON body
// is well-formed; what is accepted is within the bounds the server relies
// on. Violations trap.
#include "fuzz/server_request_fuzzer.h"

#include <string>

#include "nlohmann/json.hpp"
#include "tools/server/image_request.h"
#include "tools/server/text_request.h"

namespace oxinfer {
namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

absl::Status Refused(const server::ApiError& e) {
  Check(e.status == 400 && !e.message.empty());
  Check(e.param.empty() || e.message.find(e.param) != std::string::npos ||
        e.param == "messages" || e.param == "tools");
  Check(nlohmann::json::accept(e.Body()));
  return absl::InvalidArgumentError(e.message);
}

}  // namespace

absl::Status ParseServerRequestFuzzInput(const uint8_t* data, size_t size) {
  if (size == 0) return absl::InvalidArgumentError("empty");
  const absl::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  server::ApiError error;
  switch (data[0] % 3) {
    case 0:
    case 1: {
      const bool chat = data[0] % 3 == 0;
      server::TextRequest r;
      if (!server::ParseTextRequest(body, chat, &r, &error)) return Refused(error);
      Check(r.max_tokens == -1 || r.max_tokens >= 1);
      Check(r.sampling.temperature >= 0 && r.sampling.temperature <= 2);
      Check(r.sampling.top_p > 0 && r.sampling.top_p <= 1);
      Check(!chat || !r.messages.empty());
      Check(r.stop.size() <= 16);
      Check(!r.include_usage || r.stream);
      return absl::OkStatus();
    }
    default: {
      server::ImageJob job;
      if (!server::ParseImageRequest(body, &job, &error)) return Refused(error);
      Check(job.n >= 1 && job.n <= server::kMaxImages && !job.base.prompt.empty());
      Check(job.base.width >= 0 && job.base.width <= 4096);
      return absl::OkStatus();
    }
  }
}

}  // namespace oxinfer
