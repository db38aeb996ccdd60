// libFuzzer entry point for the CLIP tokenizer. It reads its files through
// the host's services, so the process's host table is installed first.
#include "fuzz/clip_tokenizer_fuzzer.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/host_services.h"
#include "fuzz/fuzz_temp_dir.h"
#include "oxinfer/sdk/common.hpp"
#include "plugins/models/sd/clip_tokenizer.h"

namespace oxinfer {
namespace {

std::string Utf8(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else {
    s += static_cast<char>(0xc0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3f));
  }
  return s;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// GPT-2's byte alphabet, each symbol alone and with "</w>", a few merges,
// then the start and end tokens: 514 ids.
const sd::ClipTokenizer& BuiltIn() {
  static const sd::ClipTokenizer* t = [] {
    std::vector<std::string> symbols(256);
    int n = 0;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || b >= 0xae;
      symbols[b] = Utf8(printable ? b : 256 + n++);
    }
    std::vector<std::string> vocab = symbols;
    for (const std::string& s : symbols) vocab.push_back(s + "</w>");
    const char* merges[] = {"t h", "th e</w>", "a n", "i n", "in g</w>", "o n</w>", "Ã ©"};
    std::string merges_txt = "#version: 0.2\n";
    for (const char* m : merges) {
      merges_txt += std::string(m) + "\n";
      std::string joined = m;
      joined.erase(joined.find(' '), 1);
      vocab.push_back(joined);
    }
    vocab.push_back("<|startoftext|>");
    vocab.push_back("<|endoftext|>");
    std::string json = "{";
    for (size_t i = 0; i < vocab.size(); ++i) {
      json += (i ? "," : "") + JsonString(vocab[i]) + ":" + std::to_string(i);
    }
    json += "}";
    const std::string dir = FuzzTempDir("builtin_tokenizer");
    WriteFuzzFile(dir + "/vocab.json", json);
    WriteFuzzFile(dir + "/merges.txt", merges_txt);
    sdk::StatusOr<sd::ClipTokenizer> loaded = sd::ClipTokenizer::Load(dir);
    if (!loaded.ok()) __builtin_trap();
    return new sd::ClipTokenizer(*std::move(loaded));
  }();
  return *t;
}

void CheckEncoding(const sd::ClipTokenizer& t, const std::string& prompt, bool bounded_ids) {
  const std::vector<int32_t> content = t.EncodeRaw(prompt);
  for (int32_t id : content) {
    if (id < 0 || (bounded_ids && static_cast<size_t>(id) >= t.vocab_size())) __builtin_trap();
  }
  // [bos, content truncated to max_length - 2, eos, pad...].
  const size_t n = static_cast<size_t>(t.max_length());
  std::vector<int32_t> expected = {t.bos_id()};
  expected.insert(expected.end(), content.begin(),
                  content.begin() + std::min(content.size(), n - 2));
  expected.push_back(t.eos_id());
  expected.resize(n, t.pad_id());
  if (t.Encode(prompt) != expected) __builtin_trap();
}

}  // namespace

absl::Status ClipTokenizerFuzzInput(const uint8_t* data, size_t size) {
  static const bool kHost = [] {
    sdk::HostSlot() = HostServices();
    return true;
  }();
  (void)kHost;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  if (nul == std::string::npos) {
    CheckEncoding(BuiltIn(), input, /*bounded_ids=*/true);
    return absl::OkStatus();
  }
  const std::string dir = FuzzTempDir("tokenizer");
  WriteFuzzFile(dir + "/tokenizer.json",
                absl::string_view(input.data() + nul + 1, input.size() - nul - 1));
  sdk::StatusOr<sd::ClipTokenizer> t = sd::ClipTokenizer::Load(dir);
  if (!t.ok()) return absl::InvalidArgumentError(t.status().message());
  CheckEncoding(*t, input.substr(0, nul), /*bounded_ids=*/false);
  return absl::OkStatus();
}

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oxinfer::ClipTokenizerFuzzInput(data, size).IgnoreError();
  return 0;
}
