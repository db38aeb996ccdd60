#include "tests/media/media_test_support.h"

#include <fstream>
#include <iterator>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/test_backends.h"

namespace oxinfer::testing {

const PluginRegistry& CodecRegistry() {
  static PluginRegistry* registry = [] {
    auto* r = new PluginRegistry();
    for (const char* name : {"png", "jpeg", "webp", "gif", "bmp", "sndfile", "ffmpeg"}) {
      const std::string path =
          Runfile(std::string("plugins/codecs/") + name + "/liboxinfer_" + name + ".so");
      if (!std::ifstream(path).good()) continue;  // a test that needs it says so
      absl::Status s = r->LoadFile(path);
      EXPECT_TRUE(s.ok()) << s;
    }
    return r;
  }();
  return *registry;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string FixtureDir(const std::string& sub) { return Runfile("tests/media/testdata/" + sub); }

std::vector<FixtureCase> ReadCases(const std::string& sub) {
  std::vector<FixtureCase> cases;
  const auto doc = nlohmann::json::parse(ReadBytes(FixtureDir(sub) + "/cases.json"));
  for (const auto& c : doc) {
    FixtureCase f;
    f.file = c.at("file").get<std::string>();
    f.expected = c.at("expected").get<std::string>();
    f.width = c.value("width", 0);
    f.height = c.value("height", 0);
    f.rate = c.value("rate", 0);
    f.channels = c.value("channels", 0);
    f.codec = c.value("codec", "");
    cases.push_back(f);
  }
  return cases;
}

}  // namespace oxinfer::testing
