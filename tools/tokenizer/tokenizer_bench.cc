// Single-thread tokenizer throughput and load time.
//
//   tokenizer_bench TOKENIZER_JSON TEXT_FILE [REPEATS]
//
// TEXT_FILE holds documents separated by NUL bytes; each document is encoded
// with one Encode() call (add_special_tokens = true). One warm-up pass, then
// the best of REPEATS timed passes. Prints one JSON line.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/tokenizer/tokenizer.h"

namespace {
double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s TOKENIZER_JSON TEXT_FILE [REPEATS]\n", argv[0]);
    return 2;
  }
  const int repeats = argc > 3 ? atoi(argv[3]) : 3;
  using Clock = std::chrono::steady_clock;

  const auto t0 = Clock::now();
  const double c0 = ThreadCpuSeconds();
  auto tok = oxinfer::tokenizer::Tokenizer::FromFile(argv[1]);
  const double load_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const double load_cpu_s = ThreadCpuSeconds() - c0;
  if (!tok.ok()) {
    fprintf(stderr, "%s\n", std::string(tok.status().message()).c_str());
    return 1;
  }

  FILE* f = fopen(argv[2], "rb");
  if (f == nullptr) {
    fprintf(stderr, "cannot open %s\n", argv[2]);
    return 1;
  }
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, n);
  fclose(f);
  std::vector<std::string> docs;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) docs.push_back(text.substr(start, end - start));
    start = end + 1;
  }

  size_t tokens = 0;
  uint64_t checksum = 0;
  for (const std::string& d : docs) {  // warm-up (fills the BPE cache)
    for (int32_t id : (*tok)->Encode(d)) {
      checksum = checksum * 31 + static_cast<uint64_t>(id);
      ++tokens;
    }
  }
  double best = 1e30, best_cpu = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto t1 = Clock::now();
    const double c1 = ThreadCpuSeconds();
    size_t count = 0;
    for (const std::string& d : docs) count += (*tok)->Encode(d).size();
    const double cpu = ThreadCpuSeconds() - c1;
    const double s = std::chrono::duration<double>(Clock::now() - t1).count();
    if (s < best) best = s;
    if (cpu < best_cpu) best_cpu = cpu;
    if (count != tokens) return 3;
  }
  printf(
      "{\"engine\": \"oxinfer\", \"load_s\": %.4f, \"load_cpu_s\": %.4f, \"bytes\": %zu, \"docs\": "
      "%zu, "
      "\"tokens\": %zu, \"checksum\": %llu, \"encode_s\": %.4f, \"encode_cpu_s\": %.4f, "
      "\"mb_per_s\": %.3f}\n",
      load_s, load_cpu_s, text.size() - (docs.empty() ? 0 : docs.size() - 1), docs.size(), tokens,
      static_cast<unsigned long long>(checksum), best, best_cpu, (text.size() / 1e6) / best);
  return 0;
}
