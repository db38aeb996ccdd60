// The json_parse / json_free host services: the strict reader's rules and the
// flattened node array of abi_common.h, read raw and through sdk::JsonDoc.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/host_services.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "oxinfer/sdk/json.hpp"

namespace oxinfer {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class Parsed {
 public:
  explicit Parsed(const std::string& text, const char* source = "test.json") {
    char error[512] = {};
    code_ =
        HostServices()->json_parse(text.data(), text.size(), source, &doc_, error, sizeof error);
    error_ = error;
    if (code_ != OXI_OK) {
      EXPECT_EQ(doc_, nullptr);
    }
  }
  ~Parsed() { HostServices()->json_free(doc_); }
  Parsed(const Parsed&) = delete;
  Parsed& operator=(const Parsed&) = delete;

  int32_t code() const { return code_; }
  const std::string& error() const { return error_; }
  const oxi_json& doc() const { return *doc_; }
  const oxi_json_node& node(int64_t i) const { return doc_->nodes[i]; }
  // The children of node i, in link order.
  std::vector<int64_t> Children(int64_t i) const {
    std::vector<int64_t> out;
    for (int64_t c = node(i).first_child; c >= 0; c = node(c).next_sibling) out.push_back(c);
    return out;
  }

 private:
  int32_t code_ = -1;
  std::string error_;
  const oxi_json* doc_ = nullptr;
};

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(HostJsonTest, EveryTypeFlattenedInDocumentOrder) {
  Parsed p(R"({"n": null, "t": true, "f": false, "i": -42, "x": 1.5,
               "s": "h\u00e9\u0000!", "a": [1, [], {}], "o": {"k": "v"}, "": 0})");
  ASSERT_EQ(p.code(), OXI_OK) << p.error();
  EXPECT_EQ(p.doc().struct_size, sizeof(oxi_json));
  const oxi_json_node& root = p.node(0);
  EXPECT_EQ(root.type, OXI_JSON_OBJECT);
  EXPECT_EQ(root.key, nullptr);
  EXPECT_EQ(root.next_sibling, -1);
  EXPECT_EQ(root.n_children, 9);
  const std::vector<int64_t> members = p.Children(0);
  ASSERT_EQ(members.size(), 9u);
  // Pre-order: each member follows the previous one's subtree.
  EXPECT_EQ(members, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 11, 13}));
  const char* keys[] = {"n", "t", "f", "i", "x", "s", "a", "o", ""};
  for (size_t m = 0; m < members.size(); ++m) {
    const oxi_json_node& n = p.node(members[m]);
    ASSERT_NE(n.key, nullptr);
    EXPECT_STREQ(n.key, keys[m]);
    EXPECT_EQ(n.key_size, std::strlen(keys[m]));
    EXPECT_EQ(n.reserved, 0);
  }
  EXPECT_EQ(p.node(1).type, OXI_JSON_NULL);
  EXPECT_EQ(p.node(2).type, OXI_JSON_BOOL);
  EXPECT_EQ(p.node(2).integer, 1);
  EXPECT_EQ(p.node(3).type, OXI_JSON_BOOL);
  EXPECT_EQ(p.node(3).integer, 0);
  EXPECT_EQ(p.node(4).type, OXI_JSON_INT);
  EXPECT_EQ(p.node(4).integer, -42);
  EXPECT_EQ(p.node(4).number, -42.0);
  EXPECT_EQ(p.node(5).type, OXI_JSON_FLOAT);
  EXPECT_EQ(p.node(5).number, 1.5);
  const oxi_json_node& s = p.node(6);
  EXPECT_EQ(s.type, OXI_JSON_STRING);
  ASSERT_EQ(s.string_size, 5u);  // h, two bytes of é, NUL, !
  EXPECT_EQ(std::string(s.string, s.string_size), std::string("h\xc3\xa9\0!", 5));
  EXPECT_EQ(s.string[s.string_size], '\0');
  const oxi_json_node& a = p.node(7);
  EXPECT_EQ(a.type, OXI_JSON_ARRAY);
  EXPECT_EQ(a.n_children, 3);
  EXPECT_EQ(p.Children(7), (std::vector<int64_t>{8, 9, 10}));
  EXPECT_EQ(p.node(8).key, nullptr);  // array elements have no key
  EXPECT_EQ(p.node(9).type, OXI_JSON_ARRAY);
  EXPECT_EQ(p.node(9).n_children, 0);
  EXPECT_EQ(p.node(9).first_child, -1);
  EXPECT_EQ(p.node(10).type, OXI_JSON_OBJECT);
  EXPECT_EQ(p.node(10).n_children, 0);
  EXPECT_EQ(p.Children(11), (std::vector<int64_t>{12}));
  EXPECT_STREQ(p.node(12).key, "k");
  EXPECT_STREQ(p.node(12).string, "v");
  EXPECT_EQ(p.node(13).type, OXI_JSON_INT);
  EXPECT_EQ(p.doc().n_nodes, 14);
}

TEST(HostJsonTest, ScalarRoots) {
  for (const char* text : {"7", "\"x\"", "null", "true", " 2.5 "}) {
    Parsed p(text);
    ASSERT_EQ(p.code(), OXI_OK) << text << ": " << p.error();
    EXPECT_EQ(p.doc().n_nodes, 1);
    EXPECT_EQ(p.node(0).first_child, -1);
    EXPECT_EQ(p.node(0).next_sibling, -1);
  }
}

TEST(HostJsonTest, IntegersThatFitInt64AreIntOthersFloat) {
  Parsed p(
      "[9223372036854775807, -9223372036854775808, 9223372036854775808, "
      "18446744073709551615, 18446744073709551616, -9223372036854775809, "
      "123456789012345678901234567890, 1.0, 1e2, -0]");
  ASSERT_EQ(p.code(), OXI_OK) << p.error();
  const std::vector<int64_t> e = p.Children(0);
  ASSERT_EQ(e.size(), 10u);
  EXPECT_EQ(p.node(e[0]).type, OXI_JSON_INT);
  EXPECT_EQ(p.node(e[0]).integer, INT64_MAX);
  EXPECT_EQ(p.node(e[1]).type, OXI_JSON_INT);
  EXPECT_EQ(p.node(e[1]).integer, INT64_MIN);
  EXPECT_EQ(p.node(e[2]).type, OXI_JSON_FLOAT);
  EXPECT_EQ(p.node(e[2]).number, 9223372036854775808.0);
  EXPECT_EQ(p.node(e[3]).type, OXI_JSON_FLOAT);
  EXPECT_EQ(p.node(e[3]).number, 18446744073709551615.0);
  EXPECT_EQ(p.node(e[4]).type, OXI_JSON_FLOAT);
  EXPECT_EQ(p.node(e[5]).type, OXI_JSON_FLOAT);
  EXPECT_EQ(p.node(e[5]).number, -9223372036854775809.0);
  EXPECT_EQ(p.node(e[6]).type, OXI_JSON_FLOAT);
  EXPECT_DOUBLE_EQ(p.node(e[6]).number, 1.2345678901234568e29);
  EXPECT_EQ(p.node(e[7]).type, OXI_JSON_FLOAT);  // written as a fraction
  EXPECT_EQ(p.node(e[8]).type, OXI_JSON_FLOAT);
  EXPECT_EQ(p.node(e[8]).number, 100.0);
  EXPECT_EQ(p.node(e[9]).type, OXI_JSON_INT);
  EXPECT_EQ(p.node(e[9]).integer, 0);
}

TEST(HostJsonTest, NumbersBeyondADoubleAreRefused) {
  Parsed p("[1e400]");
  EXPECT_EQ(p.code(), OXI_INVALID_ARGUMENT);
  EXPECT_THAT(p.error(), HasSubstr("number overflow"));
}

TEST(HostJsonTest, NestingUpTo512IsAcceptedDeeperRefused) {
  Parsed ok(Nested(512));
  ASSERT_EQ(ok.code(), OXI_OK) << ok.error();
  ASSERT_EQ(ok.doc().n_nodes, 512);
  for (int64_t i = 0; i + 1 < 512; ++i) {
    ASSERT_EQ(ok.node(i).first_child, i + 1);
    ASSERT_EQ(ok.node(i).n_children, 1);
  }
  EXPECT_EQ(ok.node(511).n_children, 0);

  Parsed deep(Nested(513));
  EXPECT_EQ(deep.code(), OXI_INVALID_ARGUMENT);
  EXPECT_THAT(deep.error(), StartsWith("test.json: 1:513: nesting deeper than 512"));

  std::string objects;
  for (int i = 0; i < 513; ++i) objects += "{\"k\":";
  objects += "1" + std::string(513, '}');
  Parsed deep_objects(objects);
  EXPECT_THAT(deep_objects.error(), HasSubstr("nesting deeper than 512"));

  // Far deeper than any stack would take recursively.
  Parsed very_deep(std::string(1 << 20, '['));
  EXPECT_EQ(very_deep.code(), OXI_INVALID_ARGUMENT);
}

TEST(HostJsonTest, DuplicateKeysAreRefusedAtAnyDepth) {
  Parsed top(R"({"a": 1, "b": 2, "a": 3})");
  EXPECT_EQ(top.code(), OXI_INVALID_ARGUMENT);
  EXPECT_THAT(top.error(), HasSubstr("duplicate key 'a'"));
  Parsed nested("{\"x\": [{\"k\": 1,\n \"k\": 2}]}");
  EXPECT_THAT(nested.error(), StartsWith("test.json: 2:4: duplicate key 'k'"));
  // Escapes name the same key.
  Parsed escaped(R"({"\u0061": 1, "a": 2})");
  EXPECT_THAT(escaped.error(), HasSubstr("duplicate key 'a'"));
  // The same key in sibling objects is fine.
  Parsed siblings(R"([{"a": 1}, {"a": 2}, {"a": {"a": 3}}])");
  EXPECT_EQ(siblings.code(), OXI_OK) << siblings.error();
}

TEST(HostJsonTest, InvalidUtf8IsRefused) {
  for (const std::string& text : {
           std::string("\"\xff\""),          // never valid
           std::string("\"\xc0\xaf\""),      // overlong '/'
           std::string("\"\xe2\x82\""),      // truncated sequence
           std::string("\"\xed\xa0\x80\""),  // an encoded surrogate
           std::string("\"\\ud800\""),       // an unpaired \u surrogate
           std::string("{\"k\xfe\": 1}"),    // in a key
           std::string("[1, \xc3\xa9]"),     // outside a string
       }) {
    Parsed p(text);
    EXPECT_EQ(p.code(), OXI_INVALID_ARGUMENT) << text;
    EXPECT_THAT(p.error(), StartsWith("test.json: 1:")) << text;
    for (unsigned char c : p.error()) ASSERT_LT(c, 0x80) << "raw bytes in: " << p.error();
  }
  Parsed valid("\"\xf0\x9f\x98\x80 \\ud83d\\ude00\"");  // the same emoji, raw and escaped
  ASSERT_EQ(valid.code(), OXI_OK) << valid.error();
  EXPECT_STREQ(valid.node(0).string, "\xf0\x9f\x98\x80 \xf0\x9f\x98\x80");
}

TEST(HostJsonTest, MalformedTextSaysWhereAndWhat) {
  Parsed empty("");
  EXPECT_EQ(empty.code(), OXI_INVALID_ARGUMENT);
  EXPECT_THAT(empty.error(), StartsWith("test.json: 1:1: "));
  EXPECT_THAT(empty.error(), HasSubstr("unexpected end of input"));
  Parsed spaces("  \n ");
  EXPECT_THAT(spaces.error(), StartsWith("test.json: 2:"));
  Parsed literal("{\n  \"a\": nope\n}", "cfg/config.json");
  EXPECT_THAT(literal.error(), StartsWith("cfg/config.json: 2:9: syntax error"));
  EXPECT_THAT(literal.error(), HasSubstr("invalid literal"));
  Parsed trailing("{} x");
  EXPECT_THAT(trailing.error(), StartsWith("test.json: 1:4: "));
  EXPECT_THAT(trailing.error(), HasSubstr("expected end of input"));
  EXPECT_EQ(Parsed("[1,]").code(), OXI_INVALID_ARGUMENT);
  EXPECT_EQ(Parsed("{'a': 1}").code(), OXI_INVALID_ARGUMENT);
  Parsed nul(std::string("[1]\0[2]", 7));
  EXPECT_EQ(nul.code(), OXI_INVALID_ARGUMENT);
  EXPECT_THAT(nul.error(), HasSubstr("1:4: a NUL byte"));
  EXPECT_EQ(Parsed(std::string("\"a\0b\"", 5)).code(), OXI_INVALID_ARGUMENT);
}

TEST(HostJsonTest, LargeArraysCostOneNodePerValue) {
  std::string text = "[";
  for (int i = 0; i < 100000; ++i) text += (i ? ",\"" : "\"") + std::to_string(i) + "\"";
  text += "]";
  Parsed p(text);
  ASSERT_EQ(p.code(), OXI_OK) << p.error();
  EXPECT_EQ(p.doc().n_nodes, 100001);
  EXPECT_EQ(p.node(0).n_children, 100000);
  EXPECT_STREQ(p.node(100000).string, "99999");
  // The strings sit in one store no larger than the text.
  EXPECT_LE(static_cast<size_t>(p.node(100000).string - p.node(1).string), text.size());
}

TEST(HostJsonTest, RefusesMissingArguments) {
  const oxi_host_services* host = HostServices();
  const oxi_json* doc = nullptr;
  char error[128] = {};
  EXPECT_EQ(host->json_parse(nullptr, 3, "x.json", &doc, error, sizeof error),
            OXI_INVALID_ARGUMENT);
  EXPECT_THAT(error, HasSubstr("x.json"));
  EXPECT_EQ(host->json_parse("{}", 2, nullptr, nullptr, error, sizeof error), OXI_INVALID_ARGUMENT);
  // No source: a placeholder names the text.
  EXPECT_EQ(host->json_parse("{", 1, nullptr, &doc, error, sizeof error), OXI_INVALID_ARGUMENT);
  EXPECT_THAT(error, StartsWith("<json>: 1:"));
  host->json_free(nullptr);
}

TEST(HostJsonTest, TheSdkReadsTheFlattenedDocument) {
  auto doc = sdk::JsonDoc::Parse(
      R"({"text_config": {"hidden_size": 64, "rope_theta": 1e6, "layer_types": ["a", "b"]},
          "eos_token_id": [1, 2], "tie": true})",
      "config.json", HostServices());
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  sdk::Json c = doc->root()["text_config"];
  EXPECT_EQ(*c["hidden_size"].Int(), 64);
  EXPECT_EQ(*c["rope_theta"].Number(), 1e6);
  EXPECT_EQ(*c["layer_types"].StringList(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*doc->root()["eos_token_id"].IntList(), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(*doc->root()["tie"].Bool());
  auto wrong = c["layer_types"].Int();
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "config.json: text_config.layer_types: expected an integer, got an array");
  auto bad = sdk::JsonDoc::Parse("{\"a\": 1, \"a\": 2}", "dup.json", HostServices());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), StartsWith("dup.json: 1:"));
}

// A float that is a whole number reads as an integer (4.0, as some tools
// write sizes); one beyond int64 (the fuzzer's 1.6e51 in a config's
// block_out_channels, whose cast was undefined) or NaN-like is refused.
TEST(HostJsonTest, FloatsAsIntegersStayInRange) {
  auto doc = sdk::JsonDoc::Parse(R"({"a": 4.0, "b": 1.6e51, "c": -1e19, "d": 2.5, "e": 9e18})",
                                 "config.json", HostServices());
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(*doc->root()["a"].Int(), 4);
  EXPECT_EQ(*doc->root()["e"].Int(), 9000000000000000000);
  for (const char* key : {"b", "c", "d"}) {
    auto v = doc->root()[key].Int();
    ASSERT_FALSE(v.ok()) << key;
    EXPECT_THAT(std::string(v.status().message()), HasSubstr("expected an integer")) << key;
  }
}

}  // namespace
}  // namespace oxinfer
