// Speed of the Gemma 4 plugin on any checkpoint (no tokenizer needed;
// OXINFER_THREADS=N sets the thread count):
//   gemma4_bench <liboxinfer_gemma4.so> <backend spec> <model dir> [prompt tokens] [new tokens]
//                [bf16|q8_0|q4_0] [assistant dir]
//   gemma4_bench <liboxinfer_gemma4.so> <backend spec> <model dir> audio:SECONDS [rounds]
//                [bf16|q8_0|q4_0]
//   gemma4_bench <liboxinfer_gemma4.so> <backend spec> <model dir> image:WxH[:BUDGET] [rounds]
//                [bf16|q8_0|q4_0]
// Feeds random token ids as one sequence: a prefill (logits of the last
// position), then greedy decode steps; prints tokens per second and the time
// spent in backend operations per op kind. With an assistant folder (a
// gemma4_assistant checkpoint, opened as draft_dir) it also times the
// drafter: one draft step, and a round of 6 drafts, against a decode step. With audio:SECONDS it
// encodes a clip of that length (encode_media: features, the audio tower, the embedder) `rounds`
// times (default 3) and prints each time and the median; image:WxH likewise encodes a W x H RGB
// image (preprocessing, the vision tower, the embedder) at the soft-token budget BUDGET (default:
// the model's).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/host_services.h"
#include "core/thread_pool.h"
#include "oxinfer/plugin_abi.h"
#include "tests/support/test_backends.h"

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A backend table that times every execute() of the wrapped one per op kind.
const oxi_backend_iface* g_inner = nullptr;
double g_time[OXI_OP_KIND_COUNT] = {0};

int32_t TimedExecute(void* self, const oxi_op* const* ops, int64_t n, char* error,
                     size_t error_size) {
  const double t0 = Now();
  const int32_t rc = g_inner->execute(self, ops, n, error, error_size);
  const int kind = n == 1 && ops[0]->kind < OXI_OP_KIND_COUNT ? ops[0]->kind : 0;
  g_time[kind] += Now() - t0;
  return rc;
}

// Peak resident memory of this process so far, in MiB (VmHWM).
double PeakRssMib() {
  std::ifstream f("/proc/self/status");
  std::string key;
  double kib = 0;
  while (f >> key) {
    if (key == "VmHWM:") {
      f >> kib;
      break;
    }
  }
  return kib / 1024;
}

std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s <gemma4.so> <backend spec> <model dir> [prompt] [new] "
                 "[bf16|q8_0|q4_0]\n",
                 argv[0]);
    return 2;
  }
  const std::string mode = argc > 4 ? argv[4] : "";
  const bool audio = mode.rfind("audio:", 0) == 0;
  const bool image = mode.rfind("image:", 0) == 0;
  const bool media = audio || image;
  const int n_prompt = argc > 4 && !media ? std::atoi(argv[4]) : 128;
  const int n_new = argc > 5 ? std::atoi(argv[5]) : (media ? 3 : 32);
  const std::string weights = argc > 6 ? argv[6] : "bf16";  // bf16: as stored
  const std::string draft_dir = argc > 7 && !media ? argv[7] : "";
  // OXINFER_THREADS=N: the host's pool size (default: every CPU).
  if (const char* t = std::getenv("OXINFER_THREADS"); t != nullptr && std::atoi(t) > 0) {
    oxinfer::ThreadPool::SetGlobalThreads(std::atoi(t));
  }
  auto model_iface = oxinfer::testing::LoadModelPlugin(argv[1]);
  if (!model_iface.ok()) {
    std::fprintf(stderr, "%s\n", std::string(model_iface.status().message()).c_str());
    return 1;
  }
  auto backend = oxinfer::testing::OpenTestBackend(argv[2]);
  if (!backend.ok()) {
    std::fprintf(stderr, "%s\n", std::string(backend.status().message()).c_str());
    return 1;
  }
  g_inner = (*backend)->iface();
  oxi_backend_iface timed = *g_inner;
  timed.execute = &TimedExecute;

  const oxi_model_iface* mi = *model_iface;
  oxi_model_open_params p = {};
  p.struct_size = sizeof p;
  p.model_dir = argv[3];
  p.backend = &timed;
  p.use_mmap = 1;
  p.draft = draft_dir.empty() ? 0 : 1;
  p.draft_dir = draft_dir.empty() ? nullptr : draft_dir.c_str();
  p.weight_dtype = weights == "q8_0"   ? OXI_DTYPE_Q8_0
                   : weights == "q4_0" ? OXI_DTYPE_Q4_0
                                       : OXI_DTYPE_INVALID;
  const std::string load_before = LoadAverage();
  oxi_model* m = nullptr;
  char error[1024] = {};
  double t0 = Now();
  if (mi->open(&p, &m, error, sizeof error) != OXI_OK) {
    std::fprintf(stderr, "open: %s\n", error);
    return 1;
  }
  const double t_open = Now() - t0;
  for (double& t : g_time) t = 0;
  oxi_model_info info = {};
  info.struct_size = sizeof info;
  mi->info(m, &info);
  const int vocab = info.vocab_size;
  if (media) {
    oxi_media_input in = {};
    in.struct_size = sizeof in;
    std::vector<float> clip;
    std::vector<uint8_t> pixels;
    std::string what;
    std::mt19937 noise(2);
    if (audio) {
      const double seconds = std::atof(mode.c_str() + 6);
      clip.resize(static_cast<size_t>(seconds * 16000));
      for (size_t i = 0; i < clip.size(); ++i) {
        clip[i] = 0.3f * std::sin(0.05f * static_cast<float>(i)) +
                  0.1f * (static_cast<float>(noise() % 2001) / 1000.0f - 1.0f);
      }
      in.kind = OXI_MEDIA_AUDIO;
      in.samples = clip.data();
      in.n_samples = static_cast<int64_t>(clip.size());
      in.sample_rate = 16000;
      char text[64];
      std::snprintf(text, sizeof text, "%.1f s of audio", seconds);
      what = text;
    } else {
      int w = 0, h = 0, budget = 0;
      if (std::sscanf(mode.c_str() + 6, "%dx%d:%d", &w, &h, &budget) < 2 || w <= 0 || h <= 0) {
        std::fprintf(stderr, "image:WxH[:BUDGET], e.g. image:640x480:280\n");
        return 2;
      }
      pixels.resize(static_cast<size_t>(w) * h * 3);
      for (uint8_t& px : pixels) px = static_cast<uint8_t>(noise());
      in.kind = OXI_MEDIA_IMAGE;
      in.image.struct_size = sizeof in.image;
      in.image.width = w;
      in.image.height = h;
      in.image.channels = 3;
      in.image.pixels = pixels.data();
      in.max_soft_tokens = budget;
      what = std::to_string(w) + "x" + std::to_string(h) + " image (budget " +
             (budget > 0 ? std::to_string(budget) : std::string("default")) + ")";
    }
    std::vector<double> times;
    int64_t n_tokens = 0;
    for (int r = 0; r < std::max(n_new, 1); ++r) {
      oxi_media_output o = {};
      o.struct_size = sizeof o;
      t0 = Now();
      if (mi->encode_media(m, &in, &o, error, sizeof error) != OXI_OK) {
        std::fprintf(stderr, "encode_media: %s\n", error);
        return 1;
      }
      times.push_back(Now() - t0);
      n_tokens = o.n_tokens;
      mi->free_media(&o);
      std::printf("round %d: %.3f s\n", r, times.back());
    }
    std::printf("time in backend ops (all rounds):");
    for (int k = 0; k < OXI_OP_KIND_COUNT; ++k) {
      if (g_time[k] >= 0.005) std::printf(" %s %.2f s", oxi_op_name(k), g_time[k]);
    }
    std::sort(times.begin(), times.end());
    std::printf(
        "\nopen %.2f s, %s -> %lld tokens: median %.3f s over %zu rounds (%d "
        "threads, %s weights, peak RSS %.0f MiB, load average %s before, %s after)\n",
        t_open, what.c_str(), static_cast<long long>(n_tokens), times[times.size() / 2],
        times.size(), oxinfer::HostServices()->num_threads(), weights.c_str(), PeakRssMib(),
        load_before.c_str(), LoadAverage().c_str());
    mi->close(m);
    return 0;
  }
  std::mt19937 rng(1);
  std::vector<int32_t> prompt(n_prompt);
  for (int32_t& t : prompt) t = static_cast<int32_t>(rng() % vocab);
  std::vector<float> logits(vocab);
  auto forward = [&](const int32_t* tokens, int64_t n) {
    oxi_batch_entry e = {};
    e.struct_size = sizeof e;
    e.n_tokens = n;
    e.tokens = tokens;
    e.logits = OXI_LOGITS_LAST;
    e.logits_out = logits.data();
    const oxi_batch_entry* entries[1] = {&e};
    oxi_forward_args args = {};
    args.struct_size = sizeof args;
    args.n_entries = 1;
    args.entries = entries;
    if (mi->forward(m, &args, error, sizeof error) != OXI_OK) {
      std::fprintf(stderr, "forward: %s\n", error);
      std::exit(1);
    }
  };
  t0 = Now();
  forward(prompt.data(), n_prompt);
  const double t_prefill = Now() - t0;
  t0 = Now();
  for (int i = 0; i < n_new; ++i) {
    int32_t best = 0;
    for (int v = 1; v < vocab; ++v) {
      if (logits[v] > logits[best]) best = v;
    }
    forward(&best, 1);
  }
  const double t_decode = Now() - t0;
  double in_ops = 0;
  std::printf("time in backend ops (prefill + decode):");
  for (int k = 0; k < OXI_OP_KIND_COUNT; ++k) {
    in_ops += g_time[k];
    if (g_time[k] >= 0.005) std::printf(" %s %.2f s", oxi_op_name(k), g_time[k]);
  }
  std::printf("; outside ops %.2f s\n", t_prefill + t_decode - in_ops);
  std::printf(
      "open %.2f s, prefill %d tokens %.1f tok/s, decode %d tokens %.2f tok/s (%d threads, %s "
      "weights, load average %s before, %s after)\n",
      t_open, n_prompt, n_prompt / t_prefill, n_new, n_new / t_decode,
      oxinfer::HostServices()->num_threads(), weights.c_str(), load_before.c_str(),
      LoadAverage().c_str());
  if (!draft_dir.empty()) {
    const double step = t_decode / std::max(n_new, 1);
    std::vector<int32_t> drafted(6);
    for (int32_t n : {1, 6}) {
      std::vector<double> t;
      for (int r = 0; r < 7; ++r) {
        oxi_draft_args a = {};
        a.struct_size = sizeof a;
        a.next_token = 5;
        a.n_draft = n;
        a.tokens_out = drafted.data();
        t0 = Now();
        if (mi->draft(m, &a, error, sizeof error) != OXI_OK) {
          std::fprintf(stderr, "draft: %s\n", error);
          return 1;
        }
        t.push_back(Now() - t0);
      }
      std::sort(t.begin(), t.end());
      std::printf("assistant: %d draft%s %.2f ms = %.3fx a decode step (%.2f ms; median of 7)\n", n,
                  n == 1 ? "" : "s", t[3] * 1e3, t[3] / step, step * 1e3);
    }
  }
  mi->close(m);
  return 0;
}
