// Image content parts through the C API on the tiny Gemma 4 vision fixture
// (tests/models/gemma4/testdata/media/vision_tiny, prompt_case0.* from
// tools/reference/gemma4_media/make_prompt_fixtures.py): PNG bytes in a part
// render the processor's text and feed its expanded ids; a part that does not
// decode is refused, naming it. The soft-token budget (max_soft_tokens) gives
// case 1's prompt at 140 (prompt_case1.*, from export_case_files.py).
#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "oxinfer/oxinfer.h"
#include "tests/support/test_backends.h"

namespace {

using oxinfer::testing::Runfile;

const std::string kDir = "tests/models/gemma4/testdata/media/vision_tiny";

std::string FolderOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Engine {
  oxinfer_engine* engine = nullptr;
  Engine() {
    const std::string plugins =
        absl::StrCat(FolderOf(Runfile("plugins/models/gemma4/liboxinfer_gemma4.so")), ":",
                     FolderOf(Runfile("plugins/backends/cpu/liboxinfer_cpu_scalar.so")), ":",
                     FolderOf(Runfile("plugins/codecs/png/liboxinfer_png.so")));
    const std::string dir = Runfile(kDir);
    oxinfer_engine_options o;
    oxinfer_engine_options_init(&o);
    o.model_dir = dir.c_str();
    o.device = "cpu";
    o.plugin_dirs = plugins.c_str();
    o.max_sessions = 2;
    EXPECT_EQ(oxinfer_engine_open(&o, &engine), OXINFER_OK) << oxinfer_last_error();
  }
  ~Engine() {
    if (engine != nullptr) oxinfer_engine_close(engine);
  }
};

// The rendered prompt and the prompt's token count after a one-token reply.
void ExpectCase0(oxinfer_session* s) {
  oxinfer_generate_options g;
  oxinfer_generate_options_init(&g);
  g.max_tokens = 1;
  char* text = nullptr;
  ASSERT_EQ(oxinfer_session_render_prompt(s, &g, &text), OXINFER_OK) << oxinfer_last_error();
  EXPECT_EQ(std::string(text), ReadAll(Runfile(kDir + "/prompt_case0.txt")));
  oxinfer_string_free(text);
  oxinfer_reply* reply = nullptr;
  ASSERT_EQ(oxinfer_session_generate(s, &g, nullptr, nullptr, &reply), OXINFER_OK)
      << oxinfer_last_error();
  const std::vector<std::string> ids =
      absl::StrSplit(ReadAll(Runfile(kDir + "/prompt_case0.ids")), ' ', absl::SkipWhitespace());
  EXPECT_EQ(reply->prompt_tokens, static_cast<int64_t>(ids.size()));
  oxinfer_reply_free(reply);
}

TEST(CapiMedia, ImagePartBytes) {
  Engine e;
  ASSERT_NE(e.engine, nullptr);
  oxinfer_session* s = nullptr;
  ASSERT_EQ(oxinfer_session_new(e.engine, nullptr, &s), OXINFER_OK);
  ASSERT_EQ(oxinfer_session_add_text(s, OXINFER_ROLE_SYSTEM, "You are terse."), OXINFER_OK);
  const std::string png = ReadAll(Runfile(kDir + "/image0.png"));
  oxinfer_content_part parts[2] = {};
  parts[0].struct_size = sizeof parts[0];
  parts[0].type = OXINFER_PART_IMAGE;
  parts[0].data = png.data();
  parts[0].size = png.size();
  parts[1].struct_size = sizeof parts[1];
  parts[1].type = OXINFER_PART_TEXT;
  parts[1].text = "Describe this.";
  ASSERT_EQ(oxinfer_session_add_message(s, OXINFER_ROLE_USER, parts, 2), OXINFER_OK)
      << oxinfer_last_error();
  ExpectCase0(s);
  // Truncated bytes: refused, naming the part.
  parts[0].size = 20;
  EXPECT_NE(oxinfer_session_add_message(s, OXINFER_ROLE_USER, parts, 2), OXINFER_OK);
  EXPECT_NE(std::string(oxinfer_last_error()).find("parts[0]"), std::string::npos)
      << oxinfer_last_error();
  oxinfer_session_free(s);
}

// Case 1: two images at a budget of 140 soft tokens each, as the processor
// expands them; at the fixture's default budget (70) they expand less.
TEST(CapiMedia, SoftTokenBudget) {
  Engine e;
  ASSERT_NE(e.engine, nullptr);
  const std::string png0 = ReadAll(Runfile(kDir + "/prompt_case1.image0.png"));
  const std::string png1 = ReadAll(Runfile(kDir + "/prompt_case1.image1.png"));
  const std::vector<std::string> ids =
      absl::StrSplit(ReadAll(Runfile(kDir + "/prompt_case1.ids")), ' ', absl::SkipWhitespace());
  ASSERT_EQ(ids.size(), 288u);
  auto prompt_tokens = [&](int32_t budget, bool set_budget, std::string* text,
                           std::string* error) -> int64_t {
    oxinfer_session* s = nullptr;
    EXPECT_EQ(oxinfer_session_new(e.engine, nullptr, &s), OXINFER_OK);
    oxinfer_content_part parts[3] = {};
    for (auto& p : parts) p.struct_size = sizeof p;
    parts[0].type = OXINFER_PART_IMAGE;
    parts[0].data = png0.data();
    parts[0].size = png0.size();
    parts[1].type = OXINFER_PART_IMAGE;
    parts[1].data = png1.data();
    parts[1].size = png1.size();
    parts[2].type = OXINFER_PART_TEXT;
    parts[2].text = "Are these the same?";
    EXPECT_EQ(oxinfer_session_add_message(s, OXINFER_ROLE_USER, parts, 3), OXINFER_OK)
        << oxinfer_last_error();
    oxinfer_generate_options g;
    oxinfer_generate_options_init(&g);
    EXPECT_EQ(g.max_soft_tokens, 0);
    g.max_tokens = 1;
    if (set_budget) g.max_soft_tokens = budget;
    if (!set_budget) g.struct_size = offsetof(oxinfer_generate_options, max_soft_tokens);
    int64_t n = -1;
    char* rendered = nullptr;
    if (oxinfer_session_render_prompt(s, &g, &rendered) == OXINFER_OK) {
      *text = rendered;
      oxinfer_string_free(rendered);
    }
    oxinfer_reply* reply = nullptr;
    if (oxinfer_session_generate(s, &g, nullptr, nullptr, &reply) == OXINFER_OK) {
      n = reply->prompt_tokens;
      oxinfer_reply_free(reply);
    } else {
      *error = oxinfer_last_error();
    }
    oxinfer_session_free(s);
    return n;
  };
  std::string text, error;
  EXPECT_EQ(prompt_tokens(140, true, &text, &error), 288) << error;
  EXPECT_EQ(text, ReadAll(Runfile(kDir + "/prompt_case1.txt")));
  // The default: the fixture's processor_config.json says 70 (also for a
  // caller built against 1.0, whose struct ends before the field).
  const int64_t at_default = prompt_tokens(0, true, &text, &error);
  EXPECT_GT(at_default, 0) << error;
  EXPECT_LT(at_default, 288);
  EXPECT_EQ(prompt_tokens(70, true, &text, &error), at_default) << error;
  EXPECT_EQ(prompt_tokens(0, false, &text, &error), at_default) << error;
  // Refused: a budget the model does not have, and a negative one.
  EXPECT_EQ(prompt_tokens(100, true, &text, &error), -1);
  EXPECT_NE(error.find("max_soft_tokens 100"), std::string::npos) << error;
  EXPECT_EQ(prompt_tokens(-1, true, &text, &error), -1);
  EXPECT_NE(error.find("options.max_soft_tokens"), std::string::npos) << error;
}

}  // namespace
