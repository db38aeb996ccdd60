// The OpenAI-compatible HTTP server over one engine: the routes, the API key,
// request size limits, the slots and the metrics. Routes:
//   POST /v1/chat/completions, POST /v1/completions   (text models)
//   GET  /v1/models, GET /v1/models/{id}
//   GET  /health   (200 {"status": "ok"}; never needs the key: readiness probes)
//   GET  /metrics  (Prometheus text)
// Everything else is a 404 error object; a body over max_body_bytes a 413.
#ifndef OXINFER_TOOLS_SERVER_HTTP_SERVER_H_
#define OXINFER_TOOLS_SERVER_HTTP_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "core/engine/engine.h"
#include "httplib.h"
#include "tools/server/metrics.h"
#include "tools/server/slot_pool.h"
#include "tools/server/text_service.h"

namespace oxinfer::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port (Port() says which)
  int parallel = 1;
  int max_queue = 64;   // requests waiting for a slot; beyond: 429
  std::string api_key;  // "": none needed
  size_t max_body_bytes = 8 << 20;
  std::string model_id;  // what /v1/models lists
};

class HttpServer {
 public:
  // The engine must have been opened with max_sessions >= options.parallel.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Create(engine::Engine& engine,
                                                            const ServerOptions& options);
  ~HttpServer();

  // Binds the address; then Port() is the port bound.
  absl::Status Bind();
  int Port() const { return port_; }
  // Serves until Stop; in-flight requests finish first.
  absl::Status Serve();
  // Stops accepting; requests waiting for a slot get 503. Thread-safe.
  void Stop();
  // Ends the replies being generated (after Stop, when the grace time is over).
  void CancelAll() {
    if (slots_) slots_->CancelAll();
  }

 private:
  HttpServer(engine::Engine& engine, const ServerOptions& options)
      : engine_(engine), options_(options) {}
  void Route();
  bool Authorized(const httplib::Request& req) const;

  engine::Engine& engine_;
  const ServerOptions options_;
  int port_ = 0;
  Metrics metrics_;
  std::unique_ptr<SlotPool> slots_;
  std::unique_ptr<TextService> text_;
  httplib::Server http_;
};

}  // namespace oxinfer::server

#endif  // OXINFER_TOOLS_SERVER_HTTP_SERVER_H_
