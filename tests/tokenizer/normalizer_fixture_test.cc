// The NFC / NFD / NFKC / NFKD normalizers against tokenizers' own output on
// every combining mark and decomposable character of Python's Unicode data
// (testdata/normalizers.json.gz, tools/tokenizer/make_normalizer_cases.py):
// tokenizers' Unicode 9.0 tables, not ICU's newer ones. The normalizer is
// observed through a byte-level tokenizer without merges, so that decoding
// the ids gives back the normalised text.
#include <zlib.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/tokenizer/byte_level.h"
#include "core/tokenizer/tokenizer.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace oxinfer {
namespace tokenizer {
namespace {

std::string ReadGzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return "";
  std::string data;
  char buf[65536];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) data.append(buf, n);
  gzclose(f);
  return data;
}

std::string TokenizerJson(const std::string& form) {
  std::vector<std::string> vocab;
  for (int b = 0; b < 256; ++b) {
    vocab.push_back(nlohmann::json(ByteToUnicodeUtf8(static_cast<uint8_t>(b))).dump() + ": " +
                    std::to_string(b));
  }
  return absl::StrCat(R"({"version": "1.0", "added_tokens": [], "normalizer": {"type": ")", form,
                      R"("}, "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false,
      "trim_offsets": false, "use_regex": false},
    "post_processor": null,
    "decoder": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false},
    "model": {"type": "BPE", "dropout": null, "unk_token": null, "fuse_unk": false,
              "byte_fallback": false, "vocab": {)",
                      absl::StrJoin(vocab, ", "), R"(}, "merges": []}})");
}

std::string Hex(const std::string& s) {
  std::string out;
  for (unsigned char c : s) absl::StrAppend(&out, absl::Hex(c, absl::kZeroPad2), " ");
  return out;
}

TEST(NormalizerFixture, AsTokenizersUnicode9) {
  const std::string raw = ReadGzip("tests/tokenizer/testdata/normalizers.json.gz");
  ASSERT_FALSE(raw.empty()) << "tests/tokenizer/testdata/normalizers.json.gz missing";
  const nlohmann::json doc = nlohmann::json::parse(raw);
  int checked = 0;
  for (const char* form : {"NFC", "NFD", "NFKC", "NFKD"}) {
    SCOPED_TRACE(form);
    auto tok = Tokenizer::FromJson(TokenizerJson(form));
    ASSERT_TRUE(tok.ok()) << tok.status();
    int mismatches = 0;
    for (const auto& c : doc["cases"][form]) {
      const std::string in = c[0].get<std::string>(), want = c[1].get<std::string>();
      const std::string got = (*tok)->Decode((*tok)->Encode(in, false));
      if (got != want && ++mismatches <= 10) {
        ADD_FAILURE() << form << "(" << Hex(in) << ") = " << Hex(got) << ", tokenizers "
                      << Hex(want);
      }
      ++checked;
    }
    EXPECT_EQ(mismatches, 0);
  }
  EXPECT_GT(checked, 10000);
}

}  // namespace
}  // namespace tokenizer
}  // namespace oxinfer
