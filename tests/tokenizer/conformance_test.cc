// Checks the C++ tokenizer id-for-id against the Python `tokenizers` package
// on the real Qwen 3 and Gemma 3 tokenizer.json files, using the fixtures
// written by tools/tokenizer/make_corpus.py (testdata/*.bin.gz).
//
// The tokenizer.json files are test data that do not ship in the repository.
// They are looked up in this order:
//  1. $OXINFER_TOKENIZERS_DIR (pass with bazel test --test_env=...);
//  2. shared/data/tokenizers in any ancestor folder of the real (symlink-
//     resolved) path of this test's fixture, i.e. the checkout's sibling
//     `shared/` folder (CI clones the repo next to it).
// If they are not found the conformance tests are SKIPPED with a message.
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "core/tokenizer/tokenizer.h"
#include "tests/tokenizer/shared_data.h"
#include "core/tokenizer/utf8.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace tokenizer {
namespace {

struct EncodeCase {
  std::string input;
  std::vector<int32_t> ids;
  std::string decode;
  std::string decode_skip;
};

struct DecodeCase {
  std::vector<int32_t> ids;
  std::string decode;
  std::string decode_skip;
};

struct Fixture {
  std::vector<EncodeCase> encode;
  std::vector<DecodeCase> decode;
};

class Reader {
 public:
  explicit Reader(absl::string_view data) : data_(data) {}
  bool ok() const { return ok_; }
  uint32_t U32() {
    if (pos_ + 4 > data_.size()) {
      ok_ = false;
      return 0;
    }
    uint32_t v;
    memcpy(&v, data_.data() + pos_, 4);
    pos_ += 4;
    return v;
  }
  std::string Str() {
    const uint32_t n = U32();
    if (pos_ + n > data_.size()) {
      ok_ = false;
      return "";
    }
    std::string s(data_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  std::vector<int32_t> Ids() {
    const uint32_t n = U32();
    std::vector<int32_t> ids(n);
    if (pos_ + 4ull * n > data_.size()) {
      ok_ = false;
      return {};
    }
    if (n > 0) memcpy(ids.data(), data_.data() + pos_, 4ull * n);  // data() may be null
    pos_ += 4ull * n;
    return ids;
  }

 private:
  absl::string_view data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

bool LoadFixture(const std::string& path, Fixture* out) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  std::string data;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) data.append(buf, n);
  gzclose(f);
  if (data.compare(0, 4, "OXTK") != 0) return false;
  Reader r(absl::string_view(data).substr(4));
  if (r.U32() != 1) return false;
  const uint32_t n_encode = r.U32();
  for (uint32_t i = 0; i < n_encode && r.ok(); ++i) {
    EncodeCase c;
    c.input = r.Str();
    c.ids = r.Ids();
    c.decode = r.Str();
    c.decode_skip = r.Str();
    out->encode.push_back(std::move(c));
  }
  const uint32_t n_decode = r.U32();
  for (uint32_t i = 0; i < n_decode && r.ok(); ++i) {
    DecodeCase c;
    c.ids = r.Ids();
    c.decode = r.Str();
    c.decode_skip = r.Str();
    out->decode.push_back(std::move(c));
  }
  return r.ok();
}

std::string Escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s.substr(0, 200)) {
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char b[8];
      snprintf(b, sizeof(b), "\\x%02x", c);
      out += b;
    }
  }
  return out;
}

void RunConformance(const std::string& name) {
  const std::string dir = FindTokenizersDir("tests/tokenizer/testdata/qwen3.bin.gz");
  if (dir.empty()) {
    GTEST_SKIP() << "tokenizer.json test data not found: set OXINFER_TOKENIZERS_DIR or place "
                    "the repo next to shared/data/tokenizers";
  }
  Fixture fx;
  ASSERT_TRUE(
      LoadFixture(RunfilePath(absl::StrCat("tests/tokenizer/testdata/", name, ".bin.gz")), &fx));
  const auto t0 = std::chrono::steady_clock::now();
  auto tok = Tokenizer::FromFile(absl::StrCat(dir, "/", name, "/tokenizer.json"));
  const double load_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(tok.ok()) << tok.status();
  printf("[%s] loaded in %.3f s\n", name.c_str(), load_s);

  int encode_bad = 0, decode_bad = 0, skip_bad = 0, stream_bad = 0;
  for (const EncodeCase& c : fx.encode) {
    const std::vector<int32_t> ids = (*tok)->Encode(c.input);
    if (ids != c.ids && ++encode_bad <= 10) {
      ADD_FAILURE() << name << " encode mismatch for \"" << Escape(c.input) << "\"\n  expected "
                    << absl::StrJoin(c.ids, ",") << "\n  got      " << absl::StrJoin(ids, ",");
    }
    const std::string dec = (*tok)->Decode(c.ids);
    if (dec != c.decode && ++decode_bad <= 10) {
      ADD_FAILURE() << name << " decode mismatch: expected \"" << Escape(c.decode) << "\" got \""
                    << Escape(dec) << "\"";
    }
    const std::string dec_skip = (*tok)->Decode(c.ids, /*skip_special_tokens=*/true);
    if (dec_skip != c.decode_skip && ++skip_bad <= 10) {
      ADD_FAILURE() << name << " decode(skip_special) mismatch: expected \""
                    << Escape(c.decode_skip) << "\" got \"" << Escape(dec_skip) << "\"";
    }
    // Streaming: every chunk is valid UTF-8 and the chunks add up.
    StreamDecoder stream(**tok, false);
    std::string streamed;
    bool chunks_valid = true;
    for (int32_t id : c.ids) {
      const std::string chunk = stream.Step(id);
      chunks_valid &= IsValidUtf8(chunk);
      streamed += chunk;
    }
    streamed += stream.Flush();
    if ((!chunks_valid || streamed != c.decode) && ++stream_bad <= 10) {
      ADD_FAILURE() << name << " stream decode mismatch for \"" << Escape(c.input) << "\": got \""
                    << Escape(streamed) << "\"";
    }
  }
  int id_decode_bad = 0;
  for (const DecodeCase& c : fx.decode) {
    const std::string dec = (*tok)->Decode(c.ids);
    const std::string dec_skip = (*tok)->Decode(c.ids, true);
    // Streaming over arbitrary ids (incomplete UTF-8, unknown ids, specials).
    StreamDecoder stream(**tok, true);
    std::string streamed;
    bool chunks_valid = true;
    for (int32_t id : c.ids) {
      const std::string chunk = stream.Step(id);
      chunks_valid &= IsValidUtf8(chunk);
      streamed += chunk;
    }
    streamed += stream.Flush();
    if ((!chunks_valid || streamed != c.decode_skip) && ++id_decode_bad <= 10) {
      ADD_FAILURE() << name << " stream decode of ids " << absl::StrJoin(c.ids, ",")
                    << ": expected \"" << Escape(c.decode_skip) << "\" got \"" << Escape(streamed)
                    << "\"";
    }
    if ((dec != c.decode || dec_skip != c.decode_skip) && ++id_decode_bad <= 10) {
      ADD_FAILURE() << name << " decode of ids " << absl::StrJoin(c.ids, ",") << ": expected \""
                    << Escape(c.decode) << "\" got \"" << Escape(dec) << "\"";
    }
  }
  printf(
      "[%s] %zu strings: %d encode, %d decode, %d decode(skip), %d stream mismatches; "
      "%zu id sequences: %d decode or stream mismatches\n",
      name.c_str(), fx.encode.size(), encode_bad, decode_bad, skip_bad, stream_bad,
      fx.decode.size(), id_decode_bad);
  EXPECT_GE(fx.encode.size(), 2000u);
}

TEST(TokenizerConformance, Qwen3) { RunConformance("qwen3"); }

// The known encodings quoted in shared/data/tokenizers/README.md (they agree
// with Python tokenizers 0.23).
TEST(TokenizerConformance, ReadmeExamples) {
  const std::string dir = FindTokenizersDir("tests/tokenizer/testdata/qwen3.bin.gz");
  if (dir.empty()) GTEST_SKIP() << "tokenizer.json test data not found";
  const std::string text =
      "Hello, my dog is cute. \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E "
      "\xF0\x9F\x9A\x80  spaces\tand\nnewlines";
  auto gemma = Tokenizer::FromFile(dir + "/gemma3/tokenizer.json");
  ASSERT_TRUE(gemma.ok()) << gemma.status();
  EXPECT_EQ((*gemma)->Encode(text),
            (std::vector<int32_t>{2, 9259, 236764, 1041, 4799, 563, 12864, 236761, 33375, 238582,
                                  236743, 242015, 138, 35220, 255968, 624, 107, 208697}));
  auto qwen = Tokenizer::FromFile(dir + "/qwen3/tokenizer.json");
  ASSERT_TRUE(qwen.ok()) << qwen.status();
  EXPECT_EQ((*qwen)->Encode(text),
            (std::vector<int32_t>{9707, 11, 847, 5562, 374, 18838, 13, 75402, 21894, 102819, 11162,
                                  248, 222, 220, 12621, 52477, 198, 931, 7969}));
  EXPECT_EQ((*qwen)->Decode((*qwen)->Encode(text)), text);
}

// Encode is thread-safe (shared BPE cache): two threads, same results.
TEST(TokenizerConformance, ConcurrentEncode) {
  const std::string dir = FindTokenizersDir("tests/tokenizer/testdata/qwen3.bin.gz");
  if (dir.empty()) GTEST_SKIP() << "tokenizer.json test data not found";
  Fixture fx;
  ASSERT_TRUE(LoadFixture(RunfilePath("tests/tokenizer/testdata/qwen3.bin.gz"), &fx));
  auto tok = Tokenizer::FromFile(dir + "/qwen3/tokenizer.json");
  ASSERT_TRUE(tok.ok()) << tok.status();
  std::atomic<int> bad{0};
  auto work = [&](int offset) {
    for (size_t i = 0; i < fx.encode.size(); ++i) {
      const EncodeCase& c = fx.encode[(i + offset) % fx.encode.size()];
      if ((*tok)->Encode(c.input) != c.ids) ++bad;
    }
  };
  std::thread t1(work, 0), t2(work, 1000);
  t1.join();
  t2.join();
  EXPECT_EQ(bad.load(), 0);
}
TEST(TokenizerConformance, Gemma3) { RunConformance("gemma3"); }

}  // namespace
}  // namespace tokenizer
}  // namespace oxinfer
