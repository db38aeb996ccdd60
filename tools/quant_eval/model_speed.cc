// Load time, memory and speed of one language-model checkpoint through its
// plugin, at one weight type and thread count. No tokenizer: the prompt is
// random token ids (seed 1), decode is greedy.
//
//   model_speed --plugin MODEL.so --backend BACKEND.so --model DIR
//               [--quant bf16|q8|q4] [--threads T] [--prompt N=32] [--decode N=16]
//               [--mmap 1|0] [--context N=0] [--label S]
//
// Prints one markdown row: load s, RSS after load, peak RSS (VmHWM) with its
// file-backed / anonymous split at the end, prefill and decode tok/s. With
// --mmap 1 and bf16, the stored weights are file-backed pages (page cache,
// counted in RSS once touched); quantised weights are anonymous memory.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "tools/quant_eval/common.h"

using quant_eval::Now;
using quant_eval::ProcStatusGB;

int main(int argc, char** argv) {
  std::map<std::string, std::string> a = {{"--quant", "bf16"}, {"--threads", "0"},
                                          {"--prompt", "32"},  {"--decode", "16"},
                                          {"--mmap", "1"},     {"--context", "0"}};
  for (int i = 1; i + 1 < argc; i += 2) a[argv[i]] = argv[i + 1];
  if (!a.count("--plugin") || !a.count("--backend") || !a.count("--model")) {
    std::fprintf(stderr,
                 "usage: %s --plugin MODEL.so --backend BACKEND.so --model DIR [--quant bf16|q8|q4] "
                 "[--threads T] [--prompt N] [--decode N] [--mmap 1|0] [--context N] [--label S]\n",
                 argv[0]);
    return 2;
  }
  oxi_dtype dt;
  if (!quant_eval::ParseQuant(a["--quant"], &dt)) return 2;
  const int threads = std::atoi(a["--threads"].c_str());
  if (threads > 0) oxinfer::ThreadPool::SetGlobalThreads(threads);
  const int n_prompt = std::atoi(a["--prompt"].c_str());
  const int n_decode = std::atoi(a["--decode"].c_str());
  const std::string label = a.count("--label") ? a["--label"] : a["--model"];

  auto* mi = static_cast<const oxi_model_iface*>(quant_eval::LoadInterface(a["--plugin"].c_str()));
  auto* be = static_cast<const oxi_backend_iface*>(quant_eval::LoadInterface(a["--backend"].c_str()));
  if (mi == nullptr || be == nullptr) return 1;
  oxi_model_open_params p{};
  p.struct_size = sizeof p;
  p.model_dir = a["--model"].c_str();
  p.backend = be;
  p.weight_dtype = dt;
  p.use_mmap = std::atoi(a["--mmap"].c_str());
  p.context_length = std::atoi(a["--context"].c_str());
  oxi_model* m = nullptr;
  char err[512] = {0};
  double t0 = Now();
  if (mi->open(&p, &m, err, sizeof err) != OXI_OK) {
    std::fprintf(stderr, "open: %s\n", err);
    std::printf("| %s | %s | %d | open failed: %s |\n", label.c_str(), a["--quant"].c_str(),
                oxinfer::HostServices()->num_threads(), err);
    return 1;
  }
  const double t_open = Now() - t0;
  const double rss_open = ProcStatusGB("VmRSS");
  const int vocab = quant_eval::VocabSize(mi, m);
  std::mt19937 rng(1);
  std::vector<int32_t> prompt(n_prompt);
  for (int32_t& t : prompt) t = static_cast<int32_t>(rng() % vocab);
  std::vector<float> logits(vocab);
  t0 = Now();
  if (quant_eval::ForwardLast(mi, m, prompt.data(), n_prompt, logits.data(), err, sizeof err) != OXI_OK) {
    std::fprintf(stderr, "forward: %s\n", err);
    return 1;
  }
  const double t_prefill = Now() - t0;
  t0 = Now();
  bool finite = true;
  for (int i = 0; i < n_decode; ++i) {
    int32_t best = 0;
    for (int v = 1; v < vocab; ++v) best = logits[v] > logits[best] ? v : best;
    finite = finite && std::isfinite(logits[best]);
    if (quant_eval::ForwardLast(mi, m, &best, 1, logits.data(), err, sizeof err) != OXI_OK) {
      std::fprintf(stderr, "forward: %s\n", err);
      return 1;
    }
  }
  const double t_decode = Now() - t0;
  std::printf(
      "| %s | %s | %d | %.1f | %.2f | %.2f (file %.2f, anon %.2f) | %.1f | %.2f |%s\n",
      label.c_str(), a["--quant"].c_str(), oxinfer::HostServices()->num_threads(), t_open,
      rss_open, ProcStatusGB("VmHWM"), ProcStatusGB("RssFile"), ProcStatusGB("RssAnon"),
      n_prompt / t_prefill, n_decode / t_decode, finite ? "" : " NON-FINITE LOGITS");
  std::fflush(stdout);
  mi->close(m);
  return 0;
}
