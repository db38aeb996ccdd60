// libFuzzer entry point for tokenizer.json (core/tokenizer/tokenizer.h).
#include "fuzz/tokenizer_json_fuzzer.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/tokenizer/tokenizer.h"
#include "core/tokenizer/utf8.h"

namespace oxinfer {
namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

constexpr absl::string_view kText =
    "Hello, world! caf\xc3\xa9 e\xcc\x81 \xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x98\x80 <|im_end|> "
    "<bos>  \t\n 12345 don't";

}  // namespace

absl::Status LoadTokenizerFuzzInput(const uint8_t* data, size_t size) {
  auto tok =
      tokenizer::Tokenizer::FromJson(absl::string_view(reinterpret_cast<const char*>(data), size));
  if (!tok.ok()) return tok.status();
  const int32_t limit = (*tok)->id_limit();
  for (bool special : {false, true}) {
    const std::vector<int32_t> ids = (*tok)->Encode(kText, special);
    for (int32_t id : ids) Check(id >= 0 && id < limit);
    Check(tokenizer::IsValidUtf8((*tok)->Decode(ids)));
  }
  std::vector<int32_t> all;
  for (int32_t id = 0; id < std::min(limit, 4096); ++id) all.push_back(id);
  all.insert(all.end(), {-1, limit, limit + 1, INT32_MAX, INT32_MIN});
  Check(tokenizer::IsValidUtf8((*tok)->Decode(all)));
  Check(tokenizer::IsValidUtf8((*tok)->Decode(all, /*skip_special_tokens=*/true)));
  tokenizer::StreamDecoder stream(**tok, false);
  std::string streamed;
  for (int32_t id : all) streamed += stream.Step(id);
  streamed += stream.Flush();
  Check(tokenizer::IsValidUtf8(streamed));
  return absl::OkStatus();
}

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)oxinfer::LoadTokenizerFuzzInput(data, size);
  return 0;
}
