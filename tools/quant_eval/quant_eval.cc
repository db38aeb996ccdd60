// Quantisation quality of a language-model plugin against its unquantised run.
//
// For each prompt, the model is opened with the weights as stored (bf16; the
// reference) and then quantised at load (q8 = Q8_0, q4 = Q4_0). The prompt
// (plus, optionally, the reference run's greedy continuation, teacher-forced
// in every run) goes through single-token forwards, so the next-token
// distribution is seen at every position. Per position:
//   KL(p_bf16 || p_quant) = sum_v p(v) (log p(v) - log q(v))   in nats,
//   top-1 agreement (same argmax) and top-5 overlap |top5(p) ∩ top5(q)| / 5.
// Also the reference entropy H(p), to tell a peaked distribution from a
// near-uniform one (random weights), next to log(vocab).
//
// Prompts: --model's reference.json ("prompts"[].tokens, the Gemma 4 fixtures)
// or reference.safetensors (p<i>.tokens I32, the Qwen 3.5 fixtures), or
// --random N:L (N prompts of L random token ids, seed 1).
//
//   quant_eval --plugin MODEL.so --backend BACKEND.so --model DIR
//              [--random N:L] [--extend N=32] [--quants q8,q4] [--threads T]
//              [--max-prompts N] [--label NAME]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "nlohmann/json.hpp"
#include "tools/quant_eval/common.h"

namespace {

using quant_eval::Now;

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

// Gemma 4 fixtures: reference.json {"prompts": [{"tokens": [...]}, ...]}.
bool PromptsFromJson(const std::string& path, std::vector<std::vector<int32_t>>* prompts) {
  std::string text;
  if (!ReadFile(path, &text)) return false;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.contains("prompts")) return false;
  for (const auto& p : j["prompts"]) prompts->push_back(p["tokens"].get<std::vector<int32_t>>());
  return !prompts->empty();
}

// Qwen 3.5 fixtures: reference.safetensors with p<i>.tokens (I32 [n]).
bool PromptsFromSafetensors(const std::string& path,
                            std::vector<std::vector<int32_t>>* prompts) {
  std::string data;
  if (!ReadFile(path, &data) || data.size() < 8) return false;
  uint64_t hlen = 0;
  std::memcpy(&hlen, data.data(), 8);
  if (8 + hlen > data.size()) return false;
  auto h = nlohmann::json::parse(data.substr(8, hlen), nullptr, false);
  if (h.is_discarded()) return false;
  for (int i = 0;; ++i) {
    const std::string key = "p" + std::to_string(i) + ".tokens";
    if (!h.contains(key)) break;
    const auto& t = h[key];
    if (t["dtype"] != "I32") return false;
    const uint64_t b = t["data_offsets"][0], e = t["data_offsets"][1];
    std::vector<int32_t> tok((e - b) / 4);
    std::memcpy(tok.data(), data.data() + 8 + hlen + b, e - b);
    prompts->push_back(std::move(tok));
  }
  return !prompts->empty();
}

struct Position {  // the reference distribution at one position
  std::vector<float> logp;
  int top5[5];
  double entropy;
};

void LogSoftmax(const float* logits, int n, std::vector<float>* out) {
  double mx = -INFINITY;
  for (int i = 0; i < n; ++i) mx = std::max(mx, static_cast<double>(logits[i]));
  double s = 0;
  for (int i = 0; i < n; ++i) s += std::exp(static_cast<double>(logits[i]) - mx);
  const double lse = mx + std::log(s);
  out->resize(n);
  for (int i = 0; i < n; ++i) (*out)[i] = static_cast<float>(logits[i] - lse);
}

void Top5(const std::vector<float>& v, int* idx) {
  std::vector<int> order(v.size());
  for (size_t i = 0; i < v.size(); ++i) order[i] = static_cast<int>(i);
  std::partial_sort(order.begin(), order.begin() + 5, order.end(),
                    [&](int a, int b) { return v[a] > v[b] || (v[a] == v[b] && a < b); });
  std::copy(order.begin(), order.begin() + 5, idx);
}

struct Stats {
  std::vector<double> kl;
  int top1 = 0;
  double top5 = 0;
  double entropy = 0;
  int n() const { return static_cast<int>(kl.size()); }
  void Add(const Stats& o) {
    kl.insert(kl.end(), o.kl.begin(), o.kl.end());
    top1 += o.top1;
    top5 += o.top5;
    entropy += o.entropy;
  }
  double Mean() const {
    double s = 0;
    for (double k : kl) s += k;
    return kl.empty() ? 0 : s / kl.size();
  }
  double Max() const { return kl.empty() ? 0 : *std::max_element(kl.begin(), kl.end()); }
  double Quantile(double q) const {
    if (kl.empty()) return 0;
    std::vector<double> s = kl;
    std::sort(s.begin(), s.end());
    return s[std::min<size_t>(s.size() - 1, static_cast<size_t>(q * (s.size() - 1) + 0.5))];
  }
};

struct Runner {
  const oxi_model_iface* model_iface;
  const oxi_backend_iface* backend;
  std::string dir;
  oxi_model* m = nullptr;
  int vocab = 0;
  double open_s = 0;

  bool Open(oxi_dtype d) {
    oxi_model_open_params p{};
    p.struct_size = sizeof p;
    p.model_dir = dir.c_str();
    p.backend = backend;
    p.use_mmap = 1;
    p.weight_dtype = d;
    char err[512] = {0};
    const double t0 = Now();
    if (model_iface->open(&p, &m, err, sizeof err) != OXI_OK) {
      std::fprintf(stderr, "open %s: %s\n", dir.c_str(), err);
      return false;
    }
    open_s = Now() - t0;
    vocab = quant_eval::VocabSize(model_iface, m);
    return true;
  }
  void Close() {
    if (m != nullptr) model_iface->close(m);
    m = nullptr;
  }
  // Back to an empty sequence: seq_free, else truncate to 0, else reopen.
  bool Reset(oxi_dtype d) {
    char err[512] = {0};
    if (model_iface->seq_free != nullptr) {
      model_iface->seq_free(m, 0);
      return true;
    }
    if (model_iface->seq_truncate != nullptr &&
        model_iface->seq_truncate(m, 0, 0, err, sizeof err) == OXI_OK) {
      return true;
    }
    Close();
    return Open(d);
  }
  bool Step(int32_t tok, float* logits) {
    char err[512] = {0};
    if (quant_eval::ForwardLast(model_iface, m, &tok, 1, logits, err, sizeof err) != OXI_OK) {
      std::fprintf(stderr, "forward: %s\n", err);
      return false;
    }
    return true;
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> a = {{"--extend", "32"}, {"--quants", "q8,q4"},
                                          {"--threads", "0"}, {"--max-prompts", "0"}};
  for (int i = 1; i + 1 < argc; i += 2) a[argv[i]] = argv[i + 1];
  if (!a.count("--plugin") || !a.count("--backend") || !a.count("--model")) {
    std::fprintf(stderr,
                 "usage: %s --plugin MODEL.so --backend BACKEND.so --model DIR [--random N:L] "
                 "[--extend N] [--quants q8,q4] [--threads T] [--max-prompts N] [--label S]\n",
                 argv[0]);
    return 2;
  }
  const int threads = std::atoi(a["--threads"].c_str());
  if (threads > 0) oxinfer::ThreadPool::SetGlobalThreads(threads);
  const int extend = std::atoi(a["--extend"].c_str());
  const std::string dir = a["--model"];
  const std::string label = a.count("--label") ? a["--label"] : dir;

  std::vector<oxi_dtype> quants;
  std::vector<std::string> quant_names;
  {
    std::stringstream ss(a["--quants"]);
    std::string q;
    while (std::getline(ss, q, ',')) {
      oxi_dtype d;
      if (!quant_eval::ParseQuant(q, &d) || d == OXI_DTYPE_INVALID) {
        std::fprintf(stderr, "bad quant %s\n", q.c_str());
        return 2;
      }
      quants.push_back(d);
      quant_names.push_back(q);
    }
  }

  auto* model_iface = static_cast<const oxi_model_iface*>(quant_eval::LoadInterface(a["--plugin"].c_str()));
  auto* backend = static_cast<const oxi_backend_iface*>(quant_eval::LoadInterface(a["--backend"].c_str()));
  if (model_iface == nullptr || backend == nullptr) return 1;

  Runner r{model_iface, backend, dir};
  if (!r.Open(OXI_DTYPE_INVALID)) return 1;
  const int vocab = r.vocab;
  std::fprintf(stderr, "[%s] reference (as stored) opened in %.2f s, vocab %d\n", label.c_str(),
               r.open_s, vocab);

  std::vector<std::vector<int32_t>> prompts;
  if (a.count("--random")) {
    int n = 0, len = 0;
    std::sscanf(a["--random"].c_str(), "%d:%d", &n, &len);
    std::mt19937 rng(1);
    for (int i = 0; i < n; ++i) {
      std::vector<int32_t> p(len);
      for (int32_t& t : p) t = static_cast<int32_t>(rng() % vocab);
      prompts.push_back(p);
    }
  } else if (!PromptsFromJson(dir + "/reference.json", &prompts) &&
             !PromptsFromSafetensors(dir + "/reference.safetensors", &prompts)) {
    std::fprintf(stderr, "no prompts: no reference.json / reference.safetensors in %s, and no --random\n",
                 dir.c_str());
    return 1;
  }
  const size_t max_prompts = std::atoi(a["--max-prompts"].c_str());
  if (max_prompts > 0 && prompts.size() > max_prompts) prompts.resize(max_prompts);

  // Reference run: log-probabilities at every position; the greedy
  // continuation is appended to the sequence that every run then sees.
  std::vector<float> logits(vocab);
  std::vector<std::vector<int32_t>> seqs;
  std::vector<std::vector<Position>> ref;
  double t0 = Now();
  for (size_t pi = 0; pi < prompts.size(); ++pi) {
    if (pi > 0 && !r.Reset(OXI_DTYPE_INVALID)) return 1;
    std::vector<int32_t> seq = prompts[pi];
    std::vector<Position> pos;
    for (size_t i = 0; i < seq.size(); ++i) {
      if (!r.Step(seq[i], logits.data())) return 1;
      Position p;
      LogSoftmax(logits.data(), vocab, &p.logp);
      Top5(p.logp, p.top5);
      double h = 0;
      for (float lp : p.logp) h -= std::exp(static_cast<double>(lp)) * lp;
      p.entropy = h;
      pos.push_back(std::move(p));
      if (i + 1 == seq.size() && seq.size() < prompts[pi].size() + extend) {
        seq.push_back(pos.back().top5[0]);
      }
    }
    seqs.push_back(seq);
    ref.push_back(std::move(pos));
  }
  const double t_ref = Now() - t0;
  r.Close();
  size_t total_pos = 0;
  for (const auto& s : seqs) total_pos += s.size();
  std::fprintf(stderr, "[%s] reference: %zu prompts, %zu positions, %.1f s\n", label.c_str(),
               prompts.size(), total_pos, t_ref);

  std::printf("# %s  (vocab %d, log(vocab) %.3f nats; %zu prompts, +%d greedy tokens each)\n",
              label.c_str(), vocab, std::log(static_cast<double>(vocab)), prompts.size(), extend);
  std::printf("| model | quant | prompt | positions | mean H(p_bf16) | mean KL | p50 KL | p95 KL | max KL | top-1 agree | top-5 overlap |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t qi = 0; qi < quants.size(); ++qi) {
    if (!r.Open(quants[qi])) return 1;
    std::fprintf(stderr, "[%s] %s opened in %.2f s\n", label.c_str(), quant_names[qi].c_str(),
                 r.open_s);
    Stats all;
    std::vector<float> lq;
    for (size_t pi = 0; pi < seqs.size(); ++pi) {
      if (pi > 0 && !r.Reset(quants[qi])) return 1;
      Stats st;
      for (size_t i = 0; i < seqs[pi].size(); ++i) {
        if (!r.Step(seqs[pi][i], logits.data())) return 1;
        LogSoftmax(logits.data(), vocab, &lq);
        const Position& p = ref[pi][i];
        double kl = 0;
        for (int v = 0; v < vocab; ++v) {
          const double lp = p.logp[v];
          kl += std::exp(lp) * (lp - static_cast<double>(lq[v]));
        }
        st.kl.push_back(std::max(0.0, kl));
        int t5[5];
        Top5(lq, t5);
        st.top1 += t5[0] == p.top5[0];
        int overlap = 0;
        for (int x : t5) overlap += std::count(p.top5, p.top5 + 5, x) > 0;
        st.top5 += overlap / 5.0;
        st.entropy += p.entropy;
      }
      std::printf("| %s | %s | p%zu | %d | %.3f | %.2e | %.2e | %.2e | %.2e | %.1f%% | %.1f%% |\n",
                  label.c_str(), quant_names[qi].c_str(), pi, st.n(), st.entropy / st.n(),
                  st.Mean(), st.Quantile(0.5), st.Quantile(0.95), st.Max(),
                  100.0 * st.top1 / st.n(), 100.0 * st.top5 / st.n());
      all.Add(st);
    }
    std::printf("| %s | %s | **all** | %d | %.3f | **%.2e** | %.2e | %.2e | %.2e | **%.1f%%** | **%.1f%%** |\n",
                label.c_str(), quant_names[qi].c_str(), all.n(), all.entropy / all.n(),
                all.Mean(), all.Quantile(0.5), all.Quantile(0.95), all.Max(),
                100.0 * all.top1 / all.n(), 100.0 * all.top5 / all.n());
    std::fflush(stdout);
    r.Close();
  }
  return 0;
}
