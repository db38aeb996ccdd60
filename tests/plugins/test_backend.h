// A minimal backend for the registry tests, written with the SDK: host-memory
// buffers (the adapter's), no operation supported, a fixed score, flags and
// device description. Each test plugin instantiates it with its own traits.
#ifndef OXINFER_TESTS_PLUGINS_TEST_BACKEND_H_
#define OXINFER_TESTS_PLUGINS_TEST_BACKEND_H_

#include <cstdint>
#include <string>

#include "oxinfer/plugin.hpp"

namespace oxinfer {
namespace testing {

// Traits: static constexpr uint32_t kBackendFlags; static constexpr int32_t
// kScore; static constexpr const char* kDevice (the device_info name).
template <typename Traits>
struct TestBackend {
  static constexpr uint32_t kBackendFlags = Traits::kBackendFlags;

  static int32_t Score(const oxi_host_services*, std::string*) { return Traits::kScore; }
  bool Supports(const oxi_op&) const { return false; }
  sdk::Status Execute(const oxi_op& op) {
    return sdk::UnimplementedError(sdk::StrCat("test backend: op kind ", op.kind));
  }
  void DeviceInfo(oxi_device_info* info) const {
    info->name = Traits::kDevice;
    info->compute_units = 7;
    info->memory_total = uint64_t{3} << 30;
    info->memory_free = uint64_t{1} << 30;
    info->subgroup_size = 32;
    info->driver = "test driver 1.2";
  }
};

}  // namespace testing
}  // namespace oxinfer

// Declares the plugin of a TestBackend: name, version, device kind, flags, score.
#define OXINFER_TEST_BACKEND(name, version, kind, flags, score) \
  namespace {                                                   \
  struct Traits {                                               \
    static constexpr uint32_t kBackendFlags = (flags);          \
    static constexpr int32_t kScore = (score);                  \
    static constexpr const char* kDevice = "device of " name;   \
  };                                                            \
  using Backend = ::oxinfer::testing::TestBackend<Traits>;      \
  }                                                             \
  OXINFER_BACKEND_PLUGIN(Backend, name, version, "registry test backend", kind)

#endif  // OXINFER_TESTS_PLUGINS_TEST_BACKEND_H_
