// Unit tests of the tokenizer that need no external data: small inline
// tokenizer.json files, the regex translation, UTF-8 handling, refusals of
// unsupported components, and the streaming decoder.
#include "core/tokenizer/tokenizer.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "core/tokenizer/byte_level.h"
#include "core/tokenizer/split_regex.h"
#include "core/tokenizer/utf8.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace oxinfer {
namespace tokenizer {
namespace {

using ::testing::HasSubstr;

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += absl::StrFormat("\\u%04x", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string Bl(const std::string& raw) {  // byte-level spelling of raw bytes
  std::string out;
  for (unsigned char c : raw) out += ByteToUnicodeUtf8(c);
  return out;
}

// A byte-level BPE (GPT-2 / Qwen style) with a few merges.
std::string ByteLevelJson(const std::string& pre_tokenizer) {
  std::vector<std::string> vocab;
  for (int b = 0; b < 256; ++b) {
    vocab.push_back(absl::StrCat(JsonString(Bl(std::string(1, static_cast<char>(b)))), ": ", b));
  }
  const std::vector<std::pair<std::string, std::string>> merges = {
      {"h", "e"}, {"l", "l"}, {"he", "ll"}, {Bl(" "), "w"}, {Bl(" "), Bl(" ")}};
  std::vector<std::string> merge_json;
  int next = 256;
  for (const auto& m : merges) {
    vocab.push_back(absl::StrCat(JsonString(m.first + m.second), ": ", next++));
    merge_json.push_back(absl::StrCat("[", JsonString(m.first), ", ", JsonString(m.second), "]"));
  }
  return absl::StrCat(R"({"version": "1.0", "added_tokens": [
      {"id": 300, "content": "<|end|>", "single_word": false, "lstrip": false, "rstrip": false,
       "normalized": false, "special": true}],
    "normalizer": {"type": "NFC"},
    "pre_tokenizer": )",
                      pre_tokenizer, R"(,
    "post_processor": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false},
    "decoder": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false},
    "model": {"type": "BPE", "dropout": null, "unk_token": null, "fuse_unk": false,
              "byte_fallback": false, "vocab": {)",
                      absl::StrJoin(vocab, ", "), R"(}, "merges": [)",
                      absl::StrJoin(merge_json, ", "), "]}}");
}

constexpr char kQwenSplit[] =
    R"({"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": )"
    R"("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},)"
    R"( "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false,)"
    R"( "trim_offsets": false, "use_regex": false}]})";

// A SentencePiece-style BPE (Gemma style): spaces become U+2581, byte fallback.
std::string MetaspaceJson() {
  std::vector<std::string> vocab = {R"("<unk>": 0)", R"("<bos>": 1)"};
  for (int b = 0; b < 256; ++b) vocab.push_back(absl::StrFormat(R"("<0x%02X>": %d)", b, 2 + b));
  const std::vector<std::string> tokens = {"\xE2\x96\x81",
                                           "a",
                                           "b",
                                           "c",
                                           "\xE2\x96\x81"
                                           "a",
                                           "ab"};
  int next = 258;
  for (const auto& t : tokens) vocab.push_back(absl::StrCat(JsonString(t), ": ", next++));
  return absl::StrCat(R"({"added_tokens": [
      {"id": 1, "content": "<bos>", "single_word": false, "lstrip": false, "rstrip": false,
       "normalized": false, "special": true},
      {"id": 264, "content": "<x>", "single_word": false, "lstrip": true, "rstrip": true,
       "normalized": false, "special": false}],
    "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
    "pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": false},
    "post_processor": {"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "<bos>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
      "pair": [], "special_tokens": {"<bos>": {"id": "<bos>", "ids": [1], "tokens": ["<bos>"]}}},
    "decoder": {"type": "Sequence", "decoders": [
      {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
      {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
    "model": {"type": "BPE", "dropout": null, "unk_token": "<unk>", "fuse_unk": true,
              "byte_fallback": true, "vocab": {)",
                      absl::StrJoin(vocab, ", "), R"(}, "merges": [["▁", "a"], "a b"]}})");
}

TEST(Utf8, LossyConversionUsesMaximalSubparts) {
  EXPECT_EQ(ToValidUtf8Lossy("a\xED\xA0\x80z"), "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBDz");
  EXPECT_EQ(ToValidUtf8Lossy("\xF0\x9F\x98!"), "\xEF\xBF\xBD!");
  EXPECT_EQ(ToValidUtf8Lossy("\xC0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(ToValidUtf8Lossy("ok \xE6\x97\xA5"), "ok \xE6\x97\xA5");
  EXPECT_TRUE(IsValidUtf8("plain ascii text, long enough for the fast path"));
  EXPECT_FALSE(IsValidUtf8("almost ascii text, long enough for the fast path\xFF"));
  EXPECT_EQ(IncompleteSuffixLength("ab\xF0\x9F\x98"), 3u);
  EXPECT_EQ(IncompleteSuffixLength("ab\xF0\x9F\x98\x80"), 0u);
  EXPECT_EQ(IncompleteSuffixLength("ab\xE6"), 1u);
  EXPECT_EQ(IncompleteSuffixLength("ab\xFF"), 0u);
}

std::vector<std::string> Splits(const SplitRegex& re, const std::string& text) {
  std::vector<std::pair<size_t, size_t>> m;
  re.FindAll(text, &m);
  std::vector<std::string> out;
  for (const auto& r : m) out.push_back(text.substr(r.first, r.second - r.first));
  return out;
}

TEST(SplitRegex, WhitespaceLookaheadMatchesOniguruma) {
  auto re = SplitRegex::Create(
      "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+"
      "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");
  ASSERT_TRUE(re.ok()) << re.status();
  using V = std::vector<std::string>;
  EXPECT_EQ(Splits(**re, "a   b"), (V{"a", "  ", " b"}));
  EXPECT_EQ(Splits(**re, "a b"), (V{"a", " b"}));
  EXPECT_EQ(Splits(**re, "a   "), (V{"a", "   "}));
  EXPECT_EQ(Splits(**re, "x \t1"), (V{"x", " ", "\t", "1"}));
  EXPECT_EQ(Splits(**re, "a  \n\n  b"), (V{"a", "  \n\n", " ", " b"}));
  EXPECT_EQ(Splits(**re, "I'M 12!"), (V{"I", "'M", " ", "1", "2", "!"}));
  // Unicode whitespace counts as \s (Oniguruma), unlike RE2's ASCII \s.
  EXPECT_EQ(Splits(**re, "a\u3000\u3000b"), (V{"a", "\u3000", "\u3000b"}));
}

TEST(SplitRegex, RefusesOtherLookarounds) {
  auto re = SplitRegex::Create("a(?=b)|c");
  ASSERT_FALSE(re.ok());
  EXPECT_THAT(std::string(re.status().message()), HasSubstr("lookaround"));
}

TEST(Tokenizer, ByteLevelBpe) {
  auto tok = Tokenizer::FromJson(ByteLevelJson(kQwenSplit));
  ASSERT_TRUE(tok.ok()) << tok.status();
  // "hello" -> "hell" "o"; " world" -> " w" "o" "r" "l" "d".
  EXPECT_EQ((*tok)->Encode("hello world"),
            (std::vector<int32_t>{258, 'o', 259, 'o', 'r', 'l', 'd'}));
  EXPECT_EQ((*tok)->Encode("he<|end|>ll"), (std::vector<int32_t>{256, 300, 257}));
  EXPECT_EQ((*tok)->Decode({258, 'o', 300, 259}), "hello<|end|> w");
  EXPECT_EQ((*tok)->Decode({258, 'o', 300, 259}, /*skip_special_tokens=*/true), "hello w");
  // Invalid UTF-8 is replaced by U+FFFD before encoding.
  EXPECT_EQ((*tok)->Encode("\xFF"), (*tok)->Encode("\xEF\xBF\xBD"));
  // NFC: e + combining acute == precomposed e-acute.
  EXPECT_EQ((*tok)->Encode("e\xCC\x81"), (*tok)->Encode("\xC3\xA9"));
  EXPECT_EQ((*tok)->TokenToId("<|end|>"), 300);
  EXPECT_TRUE((*tok)->IsSpecial(300));
  EXPECT_FALSE((*tok)->IsSpecial(258));
}

TEST(Tokenizer, StreamDecoderHoldsIncompleteUtf8) {
  auto tok = Tokenizer::FromJson(ByteLevelJson(kQwenSplit));
  ASSERT_TRUE(tok.ok()) << tok.status();
  // U+1F680 (rocket) is 4 bytes = 4 byte-level tokens.
  StreamDecoder stream(**tok, false);
  EXPECT_EQ(stream.Step('h'), "h");
  EXPECT_EQ(stream.Step(0xF0), "");
  EXPECT_EQ(stream.Step(0x9F), "");
  EXPECT_EQ(stream.Step(0x9A), "");
  EXPECT_EQ(stream.Step(0x80), "\xF0\x9F\x9A\x80");
  EXPECT_EQ(stream.Step(0xE6), "");
  EXPECT_EQ(stream.Flush(), "\xEF\xBF\xBD");  // truncated at the end: U+FFFD
}

TEST(Tokenizer, MetaspaceByteFallbackAndAddedTokenFlags) {
  auto tok = Tokenizer::FromJson(MetaspaceJson());
  ASSERT_TRUE(tok.ok()) << tok.status();
  // ids: <unk>=0 <bos>=1 <0xXX>=2+b; "▁"=258 a=259 b=260 c=261 "▁a"=262 ab=263
  // " ab" -> "▁" "a" "b": merge ▁a (rank 0) first, then nothing.
  EXPECT_EQ((*tok)->Encode(" ab"), (std::vector<int32_t>{1, 262, 260}));
  EXPECT_EQ((*tok)->Encode("ab", /*add_special_tokens=*/false), (std::vector<int32_t>{263}));
  // 'é' is not in the vocabulary: byte fallback to <0xC3> <0xA9>.
  EXPECT_EQ((*tok)->Encode("é", false), (std::vector<int32_t>{2 + 0xC3, 2 + 0xA9}));
  // <x> has lstrip and rstrip: the spaces around it are absorbed.
  EXPECT_EQ((*tok)->Encode("a  <x>  b", false), (std::vector<int32_t>{259, 264, 260}));
  // Expected values checked with Python tokenizers 0.23 on the same JSON.
  EXPECT_EQ((*tok)->Decode({1, 262, 260, 2 + 0xC3, 2 + 0xA9}), "<bos> abé");
  EXPECT_EQ((*tok)->Decode({1, 262, 260, 2 + 0xC3, 2 + 0xA9}, true), "abé");
  EXPECT_EQ((*tok)->Decode({262, 2 + 0xC3}), "a\xEF\xBF\xBD");
  StreamDecoder stream(**tok, true);
  EXPECT_EQ(stream.Step(1), "");
  EXPECT_EQ(stream.Step(2 + 0xC3), "");
  // A run of byte tokens is held until it ends (the run could still turn out
  // invalid, and then all of its bytes become U+FFFD).
  EXPECT_EQ(stream.Step(2 + 0xA9), "");
  EXPECT_EQ(stream.Step(260),
            "\xC3\xA9"
            "b");
  EXPECT_EQ(stream.Step(2 + 0x41), "");
  EXPECT_EQ(stream.Step(2 + 0xFF), "");
  EXPECT_EQ(stream.Flush(), "\xEF\xBF\xBD\xEF\xBF\xBD");  // "A" + invalid byte: both replaced
  EXPECT_EQ((*tok)->Decode({2 + 0x41, 2 + 0xFF}), "\xEF\xBF\xBD\xEF\xBF\xBD");
}

// Special tokens spelled in the text as plain text: tokenizers'
// encode_special_tokens = True (transformers' split_special_tokens). Expected
// ids from Python tokenizers 0.23.3 on the same JSON.
TEST(Tokenizer, SplitSpecialTokensAsTokenizersEncodeSpecialTokens) {
  auto bl = Tokenizer::FromJson(ByteLevelJson(kQwenSplit));
  ASSERT_TRUE(bl.ok()) << bl.status();
  Tokenizer::EncodeOptions split;
  split.add_special_tokens = false;
  split.split_special_tokens = true;
  EXPECT_EQ((*bl)->Encode("he<|end|>ll", split),
            (std::vector<int32_t>{256, '<', '|', 'e', 'n', 'd', '|', '>', 257}));
  EXPECT_EQ((*bl)->Encode("he<|end|>ll", false), (std::vector<int32_t>{256, 300, 257}));

  auto ms = Tokenizer::FromJson(MetaspaceJson());
  ASSERT_TRUE(ms.ok()) << ms.status();
  Tokenizer::EncodeOptions with_bos;
  with_bos.split_special_tokens = true;
  // The post-processor's <bos> stays; the spelled <bos> is text (byte
  // fallback); <x> is an added token not marked special: still matched.
  EXPECT_EQ((*ms)->Encode("ab<bos>a <x> b", with_bos),
            (std::vector<int32_t>{1, 263, 62, 260, 113, 117, 64, 259, 264, 260}));
  EXPECT_EQ((*ms)->Encode("ab<bos>a <x> b"), (std::vector<int32_t>{1, 263, 1, 259, 264, 260}));
  EXPECT_EQ((*ms)->Encode("<bos>", with_bos), (std::vector<int32_t>{1, 62, 260, 113, 117, 64}));
}

// Plain ranges: only the special tokens overlapping them are text (a chat
// prompt's user text), the others stay control tokens.
TEST(Tokenizer, PlainRangesSplitOnlyTheSpecialTokensInThem) {
  auto bl = Tokenizer::FromJson(ByteLevelJson(kQwenSplit));
  ASSERT_TRUE(bl.ok()) << bl.status();
  const std::string text = "<|end|>he<|end|>ll<|end|>";
  const std::vector<Tokenizer::Range> spans = (*bl)->SpecialTokenSpans(text);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[1].begin, 9u);
  EXPECT_EQ(spans[1].end, 16u);
  Tokenizer::EncodeOptions o;
  o.add_special_tokens = false;
  o.plain = {spans[1]};
  EXPECT_EQ((*bl)->Encode(text, o),
            (std::vector<int32_t>{300, 256, '<', '|', 'e', 'n', 'd', '|', '>', 257, 300}));
  o.plain = {{0, 1}, {text.size() - 1, text.size()}};  // any overlap
  EXPECT_EQ((*bl)->Encode(text, o),
            (std::vector<int32_t>{'<', '|', 'e', 'n', 'd', '|', '>', 256, 300, 257, '<', '|', 'e',
                                  'n', 'd', '|', '>'}));
  o.plain.clear();
  EXPECT_EQ((*bl)->Encode(text, o), (std::vector<int32_t>{300, 256, 300, 257, 300}));
  // A text repaired from invalid UTF-8 has moved bytes: every special token
  // is text then.
  o.plain = {{0, 1}};
  EXPECT_EQ((*bl)->Encode("\xFF<|end|>", o),
            (std::vector<int32_t>{0xEF, 0xBF, 0xBD, '<', '|', 'e', 'n', 'd', '|', '>'}));
}

TEST(Tokenizer, RefusesUnsupportedComponentsByName) {
  const std::string base = ByteLevelJson(kQwenSplit);
  struct Case {
    std::string from, to, expected;
  };
  const std::vector<Case> cases = {
      {R"("type": "BPE")", R"("type": "WordPiece")", "WordPiece"},
      {R"({"type": "NFC"})", R"({"type": "Lowercase"})", "Lowercase"},
      {R"("type": "Split")", R"("type": "Whitespace")", "Whitespace"},
      {R"("decoder": {"type": "ByteLevel")", R"("decoder": {"type": "CTC")", "CTC"},
      {R"("post_processor": {"type": "ByteLevel")", R"("post_processor": {"type": "Fancy")",
       "Fancy"},
  };
  for (const Case& c : cases) {
    const std::string json = absl::StrReplaceAll(base, {{c.from, c.to}});
    ASSERT_NE(json, base) << c.from;
    auto tok = Tokenizer::FromJson(json);
    ASSERT_FALSE(tok.ok()) << c.expected;
    EXPECT_THAT(std::string(tok.status().message()), HasSubstr(c.expected));
  }
  EXPECT_FALSE(Tokenizer::FromJson("{not json").ok());
  EXPECT_FALSE(Tokenizer::FromFile("/nonexistent/tokenizer.json").ok());
}

}  // namespace
}  // namespace tokenizer
}  // namespace oxinfer
