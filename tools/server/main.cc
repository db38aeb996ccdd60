// oxinfer-server: the OpenAI-compatible HTTP server (README.md, docs/server.md).
//   oxinfer-server --model DIR [--host 127.0.0.1] [--port 8080] [--parallel N] [--api-key KEY]
// Binds the loopback address unless --host says otherwise. SIGTERM or SIGINT:
// stops accepting, lets the requests in flight finish (cancelling them after
// --shutdown-grace seconds) and exits 0.
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "core/engine/engine.h"
#include "core/limits.h"
#include "core/thread_pool.h"
#include "tools/server/http_server.h"

ABSL_FLAG(std::string, model, "",
          "Checkpoint folder (default: the installation's tiny built-in model).");
ABSL_FLAG(std::string, model_id, "",
          "The model's name in the API (/v1/models; default: the folder's name).");
ABSL_FLAG(std::string, host, "127.0.0.1",
          "Address to listen on (default: loopback only; 0.0.0.0 for every interface).");
ABSL_FLAG(int, port, 8080, "Port to listen on (0: any free port, printed at start).");
ABSL_FLAG(int, parallel, 1, "Requests generated at once, batched into one forward (slots).");
ABSL_FLAG(int, max_queue, 64, "Requests that may wait for a slot; beyond them: 429.");
ABSL_FLAG(std::string, api_key, "",
          "Require 'Authorization: Bearer KEY' (default: the environment's OXINFER_API_KEY, "
          "else none).");
ABSL_FLAG(int64_t, max_body_bytes, 8 << 20, "Largest request body; beyond it: 413.");
ABSL_FLAG(int, shutdown_grace, 30,
          "Seconds requests in flight may run on after SIGTERM before they are cancelled.");
ABSL_FLAG(std::string, device, "auto", "Backend: auto, cpu, gpu or a backend plugin's name.");
ABSL_FLAG(std::string, plugin_dir, "", "Folders to search for plugins first (colon-separated).");
ABSL_FLAG(int, threads, 0, "Worker threads (default: all cores).");
ABSL_FLAG(std::string, quant, "", "Quantise weights at load: q8 (Q8_0) or q4 (Q4_0).");
ABSL_FLAG(bool, mmap, false, "Map weights from disk instead of reading them into RAM.");
ABSL_FLAG(int, context, 0, "Context length (default: the model's).");
ABSL_FLAG(int, prefill_chunk, 0, "Tokens per prefill chunk (default: the backend's).");

namespace oxinfer {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "oxinfer-server: %s\n", message.c_str());
  return 1;
}

std::string FolderName(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const size_t slash = dir.rfind('/');
  return slash == std::string::npos ? dir : dir.substr(slash + 1);
}

int Main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "the OpenAI-compatible HTTP server.\n"
      "  oxinfer-server --model DIR [--host 127.0.0.1] [--port 8080] [--parallel N] "
      "[--api-key KEY]");
  // Dashes as the CLI spells them (--api-key): Abseil's names use underscores.
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (i > 0 && a.rfind("--", 0) == 0) {
      const size_t eq = a.find('=');
      a = absl::StrReplaceAll(a.substr(0, eq), {{"-", "_"}}).replace(0, 2, "--") +
          (eq == std::string::npos ? "" : a.substr(eq));
    }
    args.push_back(a);
  }
  std::vector<char*> arg_ptrs;
  for (auto& a : args) arg_ptrs.push_back(a.data());
  std::vector<char*> rest =
      absl::ParseCommandLine(static_cast<int>(arg_ptrs.size()), arg_ptrs.data());
  if (rest.size() > 1)
    return Fail(absl::StrFormat("unexpected argument '%s' (see --help)", rest[1]));

  const int parallel = absl::GetFlag(FLAGS_parallel);
  const int port = absl::GetFlag(FLAGS_port);
  const int threads = absl::GetFlag(FLAGS_threads);
  if (parallel < 1 || parallel > limits::kMaxSequences) {
    return Fail(
        absl::StrFormat("--parallel=%d: expected 1 to %d", parallel, limits::kMaxSequences));
  }
  if (port < 0 || port > 65535)
    return Fail(absl::StrFormat("--port=%d: expected 0 to 65535", port));
  if (threads < 0 || threads > limits::kMaxThreads) {
    return Fail(absl::StrFormat("--threads=%d: expected 0 to %d", threads, limits::kMaxThreads));
  }
  if (absl::GetFlag(FLAGS_max_queue) < 0) return Fail("--max-queue must be >= 0");
  if (absl::GetFlag(FLAGS_max_body_bytes) < 1024) return Fail("--max-body-bytes must be >= 1024");
  if (absl::GetFlag(FLAGS_shutdown_grace) < 0) return Fail("--shutdown-grace must be >= 0");
  if (absl::GetFlag(FLAGS_context) < 0) return Fail("--context must be >= 0");
  if (absl::GetFlag(FLAGS_prefill_chunk) < 0) return Fail("--prefill-chunk must be >= 0");
  oxi_dtype dtype = OXI_DTYPE_INVALID;
  const std::string quant = absl::GetFlag(FLAGS_quant);
  if (quant == "q8" || quant == "q8_0") {
    dtype = OXI_DTYPE_Q8_0;
  } else if (quant == "q4" || quant == "q4_0") {
    dtype = OXI_DTYPE_Q4_0;
  } else if (!quant.empty() && quant != "none") {
    return Fail(absl::StrFormat("--quant=%s: expected q8 or q4", quant));
  }
  if (threads > 0) ThreadPool::SetGlobalThreads(threads);

  // Every thread started from here on inherits the mask: only the waiter
  // below takes SIGTERM / SIGINT.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client that left is a failed write, not a death

  engine::EngineOptions options;
  options.model_dir = absl::GetFlag(FLAGS_model);
  options.plugin_dirs = absl::GetFlag(FLAGS_plugin_dir);
  options.device = absl::GetFlag(FLAGS_device);
  options.weight_dtype = dtype;
  options.use_mmap = absl::GetFlag(FLAGS_mmap);
  options.context_length = absl::GetFlag(FLAGS_context);
  options.prefill_chunk = absl::GetFlag(FLAGS_prefill_chunk);
  options.max_sessions = parallel;
  auto engine = engine::Engine::Open(options);
  if (!engine.ok()) return Fail(std::string(engine.status().message()));

  server::ServerOptions so;
  so.host = absl::GetFlag(FLAGS_host);
  so.port = port;
  so.parallel = parallel;
  so.max_queue = absl::GetFlag(FLAGS_max_queue);
  so.api_key = absl::GetFlag(FLAGS_api_key);
  if (so.api_key.empty()) {
    if (const char* env = std::getenv("OXINFER_API_KEY"); env != nullptr) so.api_key = env;
  }
  so.max_body_bytes = static_cast<size_t>(absl::GetFlag(FLAGS_max_body_bytes));
  so.model_id = absl::GetFlag(FLAGS_model_id);
  if (so.model_id.empty()) so.model_id = FolderName((*engine)->model_dir());
  auto server = server::HttpServer::Create(**engine, so);
  if (!server.ok()) return Fail(std::string(server.status().message()));
  if (absl::Status s = (*server)->Bind(); !s.ok()) return Fail(std::string(s.message()));
  std::fprintf(stderr, "oxinfer-server: listening on http://%s:%d (model '%s', %d slot%s, %s)\n",
               so.host.c_str(), (*server)->Port(), so.model_id.c_str(), parallel,
               parallel == 1 ? "" : "s", (*engine)->backends().Describe().c_str());
  std::fflush(stderr);

  // The waiter touches the server only under `mu` and before `done`.
  struct Shutdown {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
  };
  static Shutdown shutdown;  // static: the detached waiter may outlive Main
  server::HttpServer* srv = server->get();
  const int grace = absl::GetFlag(FLAGS_shutdown_grace);
  std::thread waiter([&stop_signals, srv, grace] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    std::unique_lock<std::mutex> lock(shutdown.mu);
    if (shutdown.done) return;
    std::fprintf(stderr, "oxinfer-server: signal %d: finishing the requests in flight\n", sig);
    srv->Stop();
    if (!shutdown.cv.wait_for(lock, std::chrono::seconds(grace), [] { return shutdown.done; })) {
      std::fprintf(stderr, "oxinfer-server: cancelling what still runs after %d s\n", grace);
      srv->CancelAll();
    }
  });
  waiter.detach();  // still in sigwait when Serve ends by an error
  const absl::Status served = (*server)->Serve();
  {
    std::lock_guard<std::mutex> lock(shutdown.mu);
    shutdown.done = true;
  }
  shutdown.cv.notify_all();
  server->reset();
  engine->reset();
  if (!served.ok()) return Fail(std::string(served.message()));
  std::fprintf(stderr, "oxinfer-server: stopped\n");
  return 0;
}

}  // namespace
}  // namespace oxinfer

int main(int argc, char** argv) { return oxinfer::Main(argc, argv); }
