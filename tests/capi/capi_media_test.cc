// Image content parts through the C API on the tiny Gemma 4 vision fixture
// (tests/models/gemma4/testdata/media/vision_tiny, prompt_case0.* from
// tools/reference/gemma4_media/make_prompt_fixtures.py): PNG bytes in a part
// render the processor's text and feed its expanded ids; a part that does not
// decode is refused, naming it.
#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace
