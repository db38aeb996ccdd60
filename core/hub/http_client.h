// HTTP(S) requests over libcurl, one connection reused per client (a client
// belongs to one thread). Transport failures (refused, reset, cut mid-body,
// stalled, TLS) come back as UNAVAILABLE so callers can retry; any HTTP
// status is an answer, which the caller interprets.
#ifndef OXINFER_CORE_HUB_HTTP_CLIENT_H_
#define OXINFER_CORE_HUB_HTTP_CLIENT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace oxinfer::hub {

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"; an Authorization header is
                                     // not sent on to another host or port
  bool head = false;                 // HEAD instead of GET
  bool follow_redirects = true;
  int64_t range_start = -1;  // >= 0: "Range: bytes=N-"
  long connect_timeout_s = 20;
  long stall_timeout_s = 60;  // fail when under 1 byte/s for this long
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;        // the final answer's, names lowercased
  std::string redirect_url;                          // absolute; a 3xx not followed
  std::string body;                                  // unless a sink took it
  std::string Header(absl::string_view name) const;  // "" when absent
};

class HttpClient {
 public:
  HttpClient();
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Gets the answer's bytes as they arrive; its headers are complete. A
  // non-OK status aborts the transfer and is returned.
  using Sink = std::function<absl::Status(const HttpResponse& head, absl::string_view bytes)>;

  // Sends `request`. Without a sink the body is kept, up to `max_body` bytes
  // (more is RESOURCE_EXHAUSTED).
  absl::StatusOr<HttpResponse> Send(const HttpRequest& request, const Sink& sink = nullptr,
                                    size_t max_body = 16 << 20);

 private:
  void* curl_;  // CURL*
};

// `text` %-encoded for one path segment (RFC 3986 unreserved kept).
std::string EscapeUrlSegment(absl::string_view text);
// Each '/'-separated part escaped, the slashes kept.
std::string EscapeUrlPath(absl::string_view path);

}  // namespace oxinfer::hub

#endif  // OXINFER_CORE_HUB_HTTP_CLIENT_H_
