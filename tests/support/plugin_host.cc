#include "tests/support/plugin_host.h"

#include <cstdint>

#include "core/host_services.h"
#include "gtest/gtest.h"
#include "oxinfer/sdk/common.hpp"

namespace oxinfer::testing {
namespace {

class PluginHostEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { sdk::HostSlot() = HostServices(); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new PluginHostEnvironment);

}  // namespace

std::string ReadTestFile(const std::string& path) {
  auto text = sdk::ReadFile(path, uint64_t{1} << 20, HostServices());
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : "";
}

}  // namespace oxinfer::testing
