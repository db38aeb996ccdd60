// Renders every chat template of ../shared/data with every conversation of
// testdata/chat_template_fixtures.json (made by tools/chat/make_fixtures.py
// with HF transformers) and checks the output is byte-identical.
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/chat/chat_template.h"
#include "gtest/gtest.h"

namespace oxinfer::chat {
namespace {

constexpr char kFixture[] = "tests/chat/testdata/chat_template_fixtures.json";

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool IsDir(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The shared/ folder beside the source tree: walk up from the real path of a
// committed file (the runfile is a symlink into the source tree).
std::string FindSharedData() {
  if (const char* env = std::getenv("OXINFER_SHARED_DIR")) {
    std::string d = std::string(env) + "/data";
    if (IsDir(d)) return d;
  }
  char buf[PATH_MAX];
  if (!realpath(kFixture, buf)) return "";
  std::string dir = buf;
  while (true) {
    size_t slash = dir.rfind('/');
    if (slash == std::string::npos || slash == 0) return "";
    dir = dir.substr(0, slash);
    std::string cand = dir + "/shared/data";
    if (IsDir(cand + "/templates")) return cand;
  }
}

// Index of the first differing byte, for failure messages.
std::string DiffAt(const std::string& want, const std::string& got) {
  size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  size_t from = i > 40 ? i - 40 : 0;
  return absl::StrCat("first difference at byte ", i,
                      "\n  want: ", Value(want.substr(from, 100)).Repr(),
                      "\n  got:  ", Value(got.substr(from, 100)).Repr());
}

TEST(ChatTemplateFixtureTest, ByteIdenticalToTransformers) {
  std::string shared = FindSharedData();
  if (shared.empty()) {
    GTEST_SKIP() << "shared/data not found beside the source tree (set OXINFER_SHARED_DIR); "
                    "the chat templates are test data kept outside the repository";
  }
  // OXINFER_CHAT_FIXTURE points at another fixture of the same format (for
  // example a differential-fuzzing run of tools/chat/fuzz_fixtures.py).
  const char* other = std::getenv("OXINFER_CHAT_FIXTURE");
  auto fixture = Value::FromJson(ReadAll(other ? other : kFixture));
  ASSERT_TRUE(fixture.ok()) << fixture.status();
  const Object& fx = fixture->object();
  const Object& conversations = fx.Find("conversations")->object();
  const Object& variants = fx.Find("variants")->object();
  int total = 0, identical = 0, expected_errors = 0, failures = 0;
  for (const Value& entry : fx.Find("templates")->array()) {
    const Object& e = entry.object();
    std::string id = e.Find("id")->as_string();
    std::string path = shared + "/" + e.Find("path")->as_string();
    std::string text = ReadAll(path);
    ASSERT_FALSE(text.empty()) << "cannot read " << path;
    const Value& vars = *e.Find("template_vars");
    absl::StatusOr<ChatTemplate> ct = e.Find("kind")->as_string() == "jinja"
                                          ? ChatTemplate::FromSource(text, vars)
                                          : ChatTemplate::FromTokenizerConfig(text);
    ASSERT_TRUE(ct.ok()) << id << ": " << ct.status();
    const Value& outputs = *e.Find("outputs");
    int t_total = 0, t_ok = 0;
    for (const Value& r : e.Find("results")->array()) {
      const Object& res = r.object();
      std::string cname = res.Find("conversation")->as_string();
      std::string vname = res.Find("variant")->as_string();
      const Object& conv = conversations.Find(cname)->object();
      const Value* tools = conv.Find("tools");
      Value extra = Value::Dict();
      bool add_gen = false;
      for (const auto& [k, v] : variants.Find(vname)->object().items()) {
        if (k == "add_generation_prompt") {
          add_gen = v.Truthy();
        } else {
          extra.object().Set(k, v);
        }
      }
      // The template variables transformers used (tokenizer special tokens
      // plus overrides) win over what the loader found.
      for (const auto& [k, v] : vars.object().items()) extra.object().Set(k, v);
      auto got = ct->Render(*conv.Find("messages"), tools ? *tools : Value::None(), add_gen, extra);
      ++total;
      ++t_total;
      std::string where = absl::StrCat(id, " / ", cname, " / ", vname);
      if (const Value* err = res.Find("error")) {
        if (got.ok()) {
          ++failures;
          ADD_FAILURE() << where << ": transformers failed (" << err->as_string()
                        << ") but we rendered:\n"
                        << *got;
        } else if (absl::StartsWith(err->as_string(), "TemplateError: ") &&
                   !absl::StrContains(
                       got.status().message(),
                       absl::StrCat("raise_exception: ", err->as_string().substr(15)))) {
          // The template raised: we must raise the same message.
          ++failures;
          ADD_FAILURE() << where << ": transformers raised " << err->as_string()
                        << ", we failed with " << got.status();
        } else {
          ++expected_errors;
          ++t_ok;
        }
        continue;
      }
      const std::string& want = outputs.array()[res.Find("output")->as_int()].as_string();
      if (!got.ok()) {
        ++failures;
        ADD_FAILURE() << where << ": " << got.status();
        continue;
      }
      if (*got != want) {
        ++failures;
        ADD_FAILURE() << where << ": output differs; " << DiffAt(want, *got);
        continue;
      }
      ++identical;
      ++t_ok;
    }
    std::cout << id << ": " << t_ok << "/" << t_total << " agree\n";
  }
  std::cout << "SUMMARY: " << identical << " byte-identical renders, " << expected_errors
            << " cases where transformers and we both fail, " << failures << " failures, of "
            << total << "\n";
  EXPECT_EQ(failures, 0);
}

TEST(ChatTemplateFixtureTest, SpecialTokensMatchTransformers) {
  std::string shared = FindSharedData();
  if (shared.empty()) GTEST_SKIP() << "shared/data not found";
  auto fixture = Value::FromJson(ReadAll(kFixture));
  ASSERT_TRUE(fixture.ok());
  for (const Value& entry : fixture->object().Find("templates")->array()) {
    const Object& e = entry.object();
    std::string id = e.Find("id")->as_string();
    if (id.rfind("tokenizers/", 0) != 0) continue;  // only where transformers read the config
    auto ct =
        ChatTemplate::FromTokenizerConfig(ReadAll(shared + "/" + e.Find("path")->as_string()));
    ASSERT_TRUE(ct.ok()) << ct.status();
    const Object& ours = ct->special_tokens().object();
    const Object& theirs = e.Find("template_vars")->object();
    for (const auto& [k, v] : ours.items()) {
      const Value* t = theirs.Find(k);
      EXPECT_TRUE(t && t->Equals(v)) << id << ": " << k << " = " << v.Repr();
    }
    for (const auto& [k, v] : theirs.items()) {
      // mask_token "<mask>" is a class default of GemmaTokenizer, not in the file.
      if (k == "mask_token") continue;
      EXPECT_TRUE(ours.Contains(k)) << id << ": transformers passes " << k << " = " << v.Repr();
    }
  }
}

}  // namespace
}  // namespace oxinfer::chat
