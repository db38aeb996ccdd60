#include "tools/server/http_server.h"

#include <sys/socket.h>

#include <algorithm>
#include <ctime>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/engine/media_parts.h"
#include "tools/server/text_request.h"
#include "tools/server/text_response.h"

namespace oxinfer::server {
namespace {

// Threads that serve requests beyond the slots and their queue: /health,
// /metrics and quick refusals stay answered while every slot is busy.
constexpr int kSpareThreads = 8;

ApiError NotFound(const std::string& what) {
  ApiError e;
  e.status = 404;
  e.message = what;
  e.code = "not_found";
  return e;
}

// The label /metrics counts a request under (a fixed set, whatever the path).
std::string EndpointLabel(const std::string& path) {
  static const char* const kKnown[] = {"/v1/chat/completions",   "/v1/completions", "/v1/models",
                                       "/v1/images/generations", "/health",         "/metrics"};
  for (const char* k : kKnown) {
    if (path == k) return k;
  }
  if (absl::StartsWith(path, "/v1/models/")) return "/v1/models";
  return "other";
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Create(engine::Engine& engine,
                                                               const ServerOptions& options) {
  if (options.parallel < 1) return absl::InvalidArgumentError("--parallel must be at least 1");
  if (options.max_queue < 0) return absl::InvalidArgumentError("--max-queue must be >= 0");
  std::unique_ptr<HttpServer> s(new HttpServer(engine, options));
  if (engine.model_info().generates_text()) {
    auto slots = SlotPool::Create(engine, options.parallel, options.max_queue);
    if (!slots.ok()) return slots.status();
    s->slots_ = *std::move(slots);
    s->text_ = std::make_unique<TextService>(engine, *s->slots_, s->metrics_, options.model_id);
  }
  if (engine.model_info().generates_images()) {
    s->images_ = std::make_unique<ImageService>(engine, options.max_queue);
  }
  s->Route();
  return s;
}

HttpServer::~HttpServer() { Stop(); }

bool HttpServer::Authorized(const httplib::Request& req) const {
  if (options_.api_key.empty()) return true;
  const std::string auth = req.get_header_value("Authorization");
  return auth == "Bearer " + options_.api_key;
}

void HttpServer::Route() {
  const int threads = options_.parallel + options_.max_queue + kSpareThreads;
  http_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // SO_REUSEADDR alone: a restarted server binds its port at once, past the
  // TIME_WAIT connections of the last one, while a port another server
  // listens on is refused. (cpp-httplib's default, SO_REUSEPORT, does the
  // opposite on Linux: a second server shares the port and takes half the
  // connections, and a restart fails for a minute.)
  http_.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  http_.set_payload_max_length(options_.max_body_bytes);
  http_.set_keep_alive_timeout(5);
  http_.set_keep_alive_max_count(1000);
  http_.set_read_timeout(60);
  http_.set_write_timeout(60);

  http_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (req.path == "/health" || Authorized(req))
      return httplib::Server::HandlerResponse::Unhandled;
    ApiError e;
    e.status = 401;
    e.type = "authentication_error";
    e.code = "invalid_api_key";
    e.message = "a valid API key is needed: send the header 'Authorization: Bearer KEY'";
    SetError(res, e);
    return httplib::Server::HandlerResponse::Handled;
  });
  // Routing failures and refusals by httplib itself (404, 413, 400) get an
  // error object too.
  http_.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    ApiError e;
    e.status = res.status;
    if (res.status == 404) {
      e = NotFound(absl::StrCat("no route for ", req.method, " ", req.path));
    } else if (res.status == 413) {
      e.message = "the request body is larger than the server's limit (--max-body-bytes)";
      e.code = "request_too_large";
    } else {
      e.message = absl::StrFormat("HTTP %d", res.status);
    }
    res.set_content(e.Body(), "application/json");
  });
  http_.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        ApiError e;
        e.status = 500;
        e.type = "server_error";
        e.message = "internal error";
        try {
          if (ep) std::rethrow_exception(ep);
        } catch (const std::exception& x) {
          e.message = absl::StrCat("internal error: ", x.what());
        } catch (...) {
        }
        SetError(res, e);
      });
  http_.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    metrics_.CountRequest(EndpointLabel(req.path), res.status);
  });

  http_.Get("/health", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"status\":\"ok\"}", "application/json");
  });
  http_.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    const int slots = slots_ ? slots_->size() : 0;
    res.set_content(
        metrics_.Render(slots_ ? slots_->waiting() : 0, slots_ ? slots_->busy() : 0, slots),
        "text/plain; version=0.0.4");
  });
  const int64_t created = static_cast<int64_t>(std::time(nullptr));
  auto model_object = [this, created] {
    Json m;
    m["id"] = options_.model_id;
    m["object"] = "model";
    m["created"] = created;
    m["owned_by"] = "oxinfer";
    return m;
  };
  http_.Get("/v1/models", [model_object](const httplib::Request&, httplib::Response& res) {
    Json list;
    list["object"] = "list";
    list["data"] = Json::array({model_object()});
    res.set_content(Dump(list), "application/json");
  });
  http_.Get(R"(/v1/models/(.+))",
            [this, model_object](const httplib::Request& req, httplib::Response& res) {
              if (req.matches[1] != options_.model_id) {
                SetError(res, NotFound(absl::StrCat("the model '", std::string(req.matches[1]),
                                                    "' does not exist; this server has '",
                                                    options_.model_id, "'")));
                return;
              }
              res.set_content(Dump(model_object()), "application/json");
            });
  auto text_route = [this](bool chat) {
    return [this, chat](const httplib::Request& req, httplib::Response& res) {
      if (text_ == nullptr) {
        SetError(res, BadRequest("model", absl::StrCat("the model '", options_.model_id,
                                                       "' does not generate text")));
        return;
      }
      TextRequest request;
      ApiError error;
      if (!ParseTextRequest(req.body, chat, &request, &error,
                            engine::RegistryMediaLoader(engine_.registry(),
                                                        /*allow_paths=*/false))) {
        SetError(res, error);
        return;
      }
      text_->Handle(std::move(request), req, res);
    };
  };
  http_.Post("/v1/chat/completions", text_route(true));
  http_.Post("/v1/completions", text_route(false));
  http_.Post("/v1/images/generations", [this](const httplib::Request& req, httplib::Response& res) {
    if (images_ == nullptr) {
      SetError(res, BadRequest("model", absl::StrCat("the model '", options_.model_id,
                                                     "' does not generate images")));
      return;
    }
    images_->Handle(req, res);
  });
}

absl::Status HttpServer::Bind() {
  bool ok;
  if (options_.port == 0) {
    port_ = http_.bind_to_any_port(options_.host);
    ok = port_ > 0;
  } else {
    port_ = options_.port;
    ok = http_.bind_to_port(options_.host, options_.port);
  }
  if (!ok) {
    return absl::UnavailableError(
        absl::StrFormat("cannot listen on %s:%d (in use, or not an address of this machine)",
                        options_.host, options_.port));
  }
  return absl::OkStatus();
}

absl::Status HttpServer::Serve() {
  if (!http_.listen_after_bind()) {
    return absl::InternalError("the server stopped with an error");
  }
  return absl::OkStatus();
}

void HttpServer::Stop() {
  if (slots_) slots_->Close();
  http_.stop();
}

}  // namespace oxinfer::server
