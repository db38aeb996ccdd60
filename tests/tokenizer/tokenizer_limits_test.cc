// tokenizer.json as hostile input (docs/limits.md): ids that would size the
// tables for 2^31 entries, ids that are not integers, files that are not
// regular files, nesting too deep. Each is refused with a message.
#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/tokenizer/tokenizer.h"
#include "gtest/gtest.h"

namespace oxinfer::tokenizer {
namespace {

std::string WithVocab(const std::string& vocab, const std::string& added = "[]") {
  return absl::StrCat(R"({"version": "1.0", "added_tokens": )", added,
                      R"(, "model": {"type": "BPE", "vocab": )", vocab, R"(, "merges": []}})");
}

void ExpectRefused(const std::string& json, const std::string& words) {
  auto t = Tokenizer::FromJson(json);
  ASSERT_FALSE(t.ok()) << json.substr(0, 120);
  EXPECT_TRUE(absl::StrContains(t.status().message(), words))
      << json.substr(0, 120) << ": " << t.status();
}

TEST(TokenizerLimitsTest, IdsAreBounded) {
  auto ok = Tokenizer::FromJson(WithVocab(R"({"a": 0, "b": 1})"));
  ASSERT_TRUE(ok.ok()) << ok.status();
  ExpectRefused(WithVocab(R"({"a": 0, "b": 2147483000})"), "is not an integer in [0, 4194304)");
  ExpectRefused(WithVocab(R"({"a": -1})"), "is not an integer");
  ExpectRefused(WithVocab(R"({"a": 1.5})"), "is not an integer");
  ExpectRefused(WithVocab(R"({"a": 0})", R"([{"id": 2147483000, "content": "<x>"}])"),
                "added_tokens: id of '<x>' is not an integer");
  ExpectRefused(WithVocab(R"({"a": 0})", R"([{"id": -5, "content": "<x>"}])"),
                "added_tokens: id of '<x>'");
  ExpectRefused(WithVocab(R"({"a": 0})", R"([{"id": 1e300, "content": "<x>"}])"),
                "added_tokens: id of '<x>'");
  ExpectRefused(WithVocab(R"({"a": 0})", R"([{"id": "7", "content": "<x>"}])"),
                "added_tokens: id of '<x>'");
}

// As `tokenizers` does (it reads the file into a String): a byte that is not
// UTF-8 anywhere in the file (here inside a vocabulary key, where it would
// otherwise come back out of Decode) is refused, with its offset.
TEST(TokenizerLimitsTest, InvalidUtf8IsRefusedWithItsOffset) {
  const std::string json = WithVocab("{\"a\": 0, \"b\x8d\": 1}");
  ExpectRefused(json,
                absl::StrCat("not valid UTF-8 (byte 0x8d at offset ", json.find('\x8d'), ")"));
  ExpectRefused(WithVocab(R"({"a": 0})") + "\xc3", "not valid UTF-8 (byte 0xc3");
  ExpectRefused(WithVocab("{\"\xed\xa0\x80\": 0}"), "not valid UTF-8 (byte 0xed");  // a surrogate
}

// serde_json (hence `tokenizers`) refuses a \u escape that is half a
// surrogate pair; a whole pair, and a backslash that escapes a backslash
// before "uD800", are fine.
TEST(TokenizerLimitsTest, LoneSurrogateEscapesAreRefused) {
  const std::string lone = WithVocab(R"({"a": 0, "x\uD800y": 1})");
  ExpectRefused(lone, absl::StrCat("the escape \\uD800 at offset ", lone.find("\\uD800"),
                                   " is a lone UTF-16 surrogate"));
  ExpectRefused(WithVocab(R"({"\udc00": 0})"), "the escape \\udc00 at offset");
  ExpectRefused(WithVocab(R"({"\uD800\u0041": 0})"), "lone UTF-16 surrogate");
  ExpectRefused(WithVocab(R"({"a": 0})", R"([{"id": 1, "content": "\uDBFF"}])"),
                "lone UTF-16 surrogate");
  auto pair = Tokenizer::FromJson(WithVocab(R"({"a": 0, "\uD83D\uDE00": 1})"));
  ASSERT_TRUE(pair.ok()) << pair.status();
  auto escaped = Tokenizer::FromJson(WithVocab(R"({"a": 0, "\\uD800": 1})"));
  ASSERT_TRUE(escaped.ok()) << escaped.status();
}

TEST(TokenizerLimitsTest, DeepNestingIsRefused) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto t = Tokenizer::FromJson(absl::StrCat(R"({"x": )", deep, "}"));
  ASSERT_FALSE(t.ok());
}

TEST(TokenizerLimitsTest, NonRegularFilesAreRefusedBeforeReading) {
  const std::string fifo = std::string(std::getenv("TEST_TMPDIR")) + "/tokenizer.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto t = Tokenizer::FromFile(fifo);  // would block on open without the check
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(absl::StrContains(t.status().message(), "FIFO")) << t.status();
  t = Tokenizer::FromFile("/dev/zero");
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(absl::StrContains(t.status().message(), "character device")) << t.status();
}

}  // namespace
}  // namespace oxinfer::tokenizer
