#include "core/hub/http_client.h"

#include <curl/curl.h>

#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace oxinfer::hub {
namespace {

struct Transfer {
  HttpResponse response;
  const HttpClient::Sink* sink = nullptr;
  size_t max_body = 0;
  absl::Status sink_status;
  CURL* curl = nullptr;
};

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const absl::string_view line(data, size * n);
  // A new status line starts the headers of the next answer (redirects).
  if (absl::StartsWith(line, "HTTP/")) {
    t->response.headers.clear();
    return size * n;
  }
  const size_t colon = line.find(':');
  if (colon != absl::string_view::npos) {
    std::string name = absl::AsciiStrToLower(line.substr(0, colon));
    t->response.headers[name] = std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  }
  return size * n;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t bytes = size * n;
  if (t->sink != nullptr && *t->sink) {
    long status = 0;
    curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
    t->response.status = status;
    t->sink_status = (*t->sink)(t->response, absl::string_view(data, bytes));
    return t->sink_status.ok() ? bytes : 0;
  }
  if (t->response.body.size() + bytes > t->max_body) {
    t->sink_status =
        absl::ResourceExhaustedError(absl::StrFormat("answer larger than %d bytes", t->max_body));
    return 0;
  }
  t->response.body.append(data, bytes);
  return bytes;
}

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

std::string HttpResponse::Header(absl::string_view name) const {
  const auto it = headers.find(absl::AsciiStrToLower(name));
  return it == headers.end() ? "" : it->second;
}

HttpClient::HttpClient() {
  InitCurlOnce();
  curl_ = curl_easy_init();
}

HttpClient::~HttpClient() {
  if (curl_ != nullptr) curl_easy_cleanup(static_cast<CURL*>(curl_));
}

absl::StatusOr<HttpResponse> HttpClient::Send(const HttpRequest& request, const Sink& sink,
                                              size_t max_body) {
  CURL* curl = static_cast<CURL*>(curl_);
  if (curl == nullptr) return absl::InternalError("libcurl: cannot create a handle");
  curl_easy_reset(curl);
  Transfer t;
  t.sink = &sink;
  t.max_body = max_body;
  t.curl = curl;
  curl_slist* headers = nullptr;
  for (const std::string& h : request.headers) headers = curl_slist_append(headers, h.c_str());
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, request.follow_redirects ? 1L : 0L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "oxinfer/1");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, request.connect_timeout_s);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, request.stall_timeout_s);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  if (request.head) curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  const std::string range = absl::StrFormat("%d-", request.range_start);
  if (request.range_start >= 0) curl_easy_setopt(curl, CURLOPT_RANGE, range.c_str());
  const CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  const std::string method = request.head ? "HEAD" : "GET";
  if (!t.sink_status.ok()) return t.sink_status;
  if (code != CURLE_OK) {
    return absl::UnavailableError(absl::StrFormat("%s %s: %s", method, request.url,
                                                  error[0] ? error : curl_easy_strerror(code)));
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &t.response.status);
  char* redirect = nullptr;
  if (curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &redirect) == CURLE_OK && redirect) {
    t.response.redirect_url = redirect;
  }
  return std::move(t.response);
}

std::string EscapeUrlSegment(absl::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (absl::ascii_isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(c);
    } else {
      out += absl::StrFormat("%%%02X", u);
    }
  }
  return out;
}

std::string EscapeUrlPath(absl::string_view path) {
  std::vector<std::string> parts;
  for (const absl::string_view p : absl::StrSplit(path, '/')) parts.push_back(EscapeUrlSegment(p));
  return absl::StrJoin(parts, "/");
}

}  // namespace oxinfer::hub
