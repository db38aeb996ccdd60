#include "tests/support/test_backends.h"

#include <cstdlib>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/backend_dispatch.h"

namespace oxinfer {
namespace testing {
namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "<dir>/liboxinfer_cpu_avx2.so" -> "cpu_avx2".
std::string PluginStem(const std::string& path) {
  std::string name = BaseName(path);
  if (absl::StartsWith(name, "liboxinfer_")) name = name.substr(11);
  if (absl::EndsWith(name, ".so")) name.resize(name.size() - 3);
  return name;
}

absl::StatusOr<const oxi_backend_iface*> LoadBackend(const std::string& path) {
  auto iface = LoadPluginIface(path, OXI_PLUGIN_BACKEND);
  if (!iface.ok()) return iface.status();
  return static_cast<const oxi_backend_iface*>(*iface);
}

class SingleBackend : public TestBackend {
 public:
  SingleBackend(const oxi_backend_iface* iface, std::string name)
      : iface_(iface), name_(std::move(name)) {}
  const oxi_backend_iface* iface() const override { return iface_; }
  std::string name() const override { return name_; }

 private:
  const oxi_backend_iface* iface_;
  std::string name_;
};

class Composed : public TestBackend {
 public:
  Composed(std::unique_ptr<ComposedBackend> composed, std::string name)
      : composed_(std::move(composed)), name_(std::move(name)) {}
  const oxi_backend_iface* iface() const override { return composed_->iface(); }
  std::string name() const override { return name_; }
  ComposedBackend* composed() const override { return composed_.get(); }

 private:
  std::unique_ptr<ComposedBackend> composed_;
  std::string name_;
};

}  // namespace

std::string Runfile(const std::string& rel) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || ws == nullptr) return rel;
  return absl::StrCat(srcdir, "/", ws, "/", rel);
}

PluginRegistry& TestRegistry() {
  static PluginRegistry* registry = new PluginRegistry();
  return *registry;
}

absl::StatusOr<const void*> LoadPluginIface(const std::string& path, int32_t kind) {
  static std::map<std::string, const void*>* loaded = new std::map<std::string, const void*>();
  auto it = loaded->find(path);
  if (it != loaded->end()) return it->second;
  PluginRegistry& registry = TestRegistry();
  if (absl::Status s = registry.LoadFile(path); !s.ok()) return s;
  const PluginRecord& r = registry.plugins().back();
  if (r.kind != kind) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": a ", PluginKindName(r.kind),
                                                   " plugin, not a ", PluginKindName(kind)));
  }
  (*loaded)[path] = r.iface;
  return r.iface;
}

absl::StatusOr<const oxi_model_iface*> LoadModelPlugin(const std::string& path) {
  auto iface = LoadPluginIface(path, OXI_PLUGIN_MODEL);
  if (!iface.ok()) return iface.status();
  return static_cast<const oxi_model_iface*>(*iface);
}

absl::StatusOr<std::unique_ptr<TestBackend>> OpenTestBackend(const std::string& spec) {
  return OpenTestBackend(spec, DispatchOptions{/*profile=*/false, BackendCheckFromEnvironment()});
}

absl::StatusOr<std::unique_ptr<TestBackend>> OpenTestBackend(const std::string& spec,
                                                             const DispatchOptions& options) {
  std::vector<std::string> parts = absl::StrSplit(spec, '+');
  if (parts.size() > 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("backend spec ", spec, ": one backend, or <accelerator>+<cpu>"));
  }
  auto last = LoadBackend(parts.back());
  if (!last.ok()) return last.status();
  if (parts.size() == 1) {
    return std::unique_ptr<TestBackend>(new SingleBackend(*last, PluginStem(parts[0])));
  }
  auto accel = LoadBackend(parts[0]);
  if (!accel.ok()) return accel.status();
  auto composed = ComposedBackend::Create(*accel, *last, options);
  if (!composed.ok()) return composed.status();
  return std::unique_ptr<TestBackend>(new Composed(
      std::move(*composed), absl::StrCat(PluginStem(parts[0]), "+", PluginStem(parts[1]))));
}

}  // namespace testing
}  // namespace oxinfer
