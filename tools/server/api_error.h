// An error as the OpenAI API returns it: an HTTP status and
//   {"error": {"message": ..., "type": ..., "param": ..., "code": ...}}
// so that every client library raises its own exception class for it
// (openai.BadRequestError for 400, AuthenticationError for 401, ...).
#ifndef OXINFER_TOOLS_SERVER_API_ERROR_H_
#define OXINFER_TOOLS_SERVER_API_ERROR_H_

#include <string>

#include "absl/status/status.h"

namespace oxinfer::server {

struct ApiError {
  int status = 400;
  std::string message;
  // The request field at fault ("messages", "temperature"); "" for none.
  std::string param;
  std::string type = "invalid_request_error";
  std::string code;

  // The JSON body.
  std::string Body() const;
};

ApiError BadRequest(std::string param, std::string message);
// The status an engine error maps to: INVALID_ARGUMENT / OUT_OF_RANGE /
// UNIMPLEMENTED / FAILED_PRECONDITION are the request's fault (400),
// RESOURCE_EXHAUSTED is 429, anything else 500.
ApiError FromStatus(const absl::Status& status, std::string param = "");

}  // namespace oxinfer::server

#endif  // OXINFER_TOOLS_SERVER_API_ERROR_H_
