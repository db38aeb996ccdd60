#include "core/plugin_registry.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "core/host/abi_status.h"
#include "core/host_services.h"
#include "core/limits.h"
#include "core/mapped_file.h"
#include "core/paths.h"

namespace oxinfer {
namespace {

constexpr size_t kMessageSize = 512;

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) != nullptr ? std::string(buf) : path;
}

// Whether the file starts like a shared object this platform can load, so a
// stray text or data file is reported plainly instead of through dlerror().
// A FIFO or a device named like a plugin is refused before it is opened for
// reading (dlopen would block on it or read it without end).
absl::Status CheckObjectFile(const std::string& path) {
  absl::StatusOr<RegularFile> f = RegularFile::Open(path, limits::kPluginFileBytes);
  if (!f.ok()) return f.status();
  unsigned char head[18] = {};
  const size_t n = std::min<uint64_t>(f->size(), sizeof head);
  if (absl::Status s = f->ReadAt(0, n, head); !s.ok()) return s;
  const bool elf = n >= 18 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F';
  const bool elf_shared = elf && (head[16] == 3 /* ET_DYN, little-endian */);
  const bool macho = n >= 4 && ((head[0] == 0xcf && head[1] == 0xfa && head[2] == 0xed) ||
                                (head[0] == 0xfe && head[1] == 0xed && head[2] == 0xfa));
  if (!elf_shared && !macho) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: not a shared object (%s)", path,
                        elf ? "an ELF file, but not ET_DYN" : "no ELF header"));
  }
  return absl::OkStatus();
}

}  // namespace

const char* PluginStateName(PluginState state) {
  switch (state) {
    case PluginState::kLoaded:
      return "loaded";
    case PluginState::kDeclined:
      return "declined";
    case PluginState::kRejected:
      return "rejected";
    case PluginState::kShadowed:
      return "shadowed";
  }
  return "?";
}

const char* PluginKindName(int32_t kind) {
  switch (kind) {
    case OXI_PLUGIN_BACKEND:
      return "backend";
    case OXI_PLUGIN_MODEL:
      return "model";
    case OXI_PLUGIN_CODEC:
      return "codec";
    default:
      return "?";
  }
}

PluginRegistry::PluginRegistry() = default;

// Plugins are never dlclose()d: interfaces, strings and threads they started
// may be referenced until exit, and unloading buys nothing in a CLI process.
PluginRegistry::~PluginRegistry() = default;

std::vector<std::string> PluginRegistry::SearchPath(absl::string_view plugin_dirs) {
  std::vector<std::string> candidates;
  // The installation's folders first: their plugins win name clashes.
  const std::string exe_dir = ExecutableDir();
  if (!exe_dir.empty()) {
    candidates.push_back(exe_dir);
    candidates.push_back(exe_dir + "/../lib/oxinfer/plugins");
  }
  for (absl::string_view d : absl::StrSplit(plugin_dirs, ':', absl::SkipEmpty())) {
    candidates.emplace_back(d);
  }
  if (const char* env = std::getenv("OXINFER_PLUGIN_PATH")) {
    for (absl::string_view d : absl::StrSplit(env, ':', absl::SkipEmpty())) {
      candidates.emplace_back(d);
    }
  }
  std::vector<std::string> dirs;
  for (const auto& c : candidates) {
    if (!IsDirectory(c)) continue;
    const std::string real = RealPath(c);
    if (std::find(dirs.begin(), dirs.end(), real) != dirs.end()) continue;
    dirs.push_back(real);
  }
  return dirs;
}

void PluginRegistry::ScanDirectories(const std::vector<std::string>& dirs) {
  for (const auto& dir : dirs) {
    searched_.push_back(dir);
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) continue;
    std::vector<std::string> files;
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (absl::StartsWith(name, "liboxinfer_") &&
          (absl::EndsWith(name, ".so") || absl::EndsWith(name, ".dylib"))) {
        files.push_back(dir + "/" + name);
      }
    }
    ::closedir(d);
    std::sort(files.begin(), files.end());
    for (const auto& f : files) LoadFile(f).IgnoreError();  // recorded either way
  }
}

absl::Status PluginRegistry::LoadFile(const std::string& path) {
  PluginRecord rec;
  rec.path = path;
  auto reject = [&](absl::Status status) {
    rec.state = PluginState::kRejected;
    rec.reason = std::string(status.message());
    records_.push_back(rec);
    return status;
  };

  if (absl::Status s = CheckObjectFile(path); !s.ok()) return reject(s);

  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = ::dlerror();
    return reject(absl::InvalidArgumentError(
        absl::StrFormat("%s: cannot load: %s", path, err ? err : "unknown dlopen error")));
  }
  handles_.push_back(handle);

  ::dlerror();
  void* sym = ::dlsym(handle, OXI_ENTRY_SYMBOL);
  if (sym == nullptr) {
    return reject(absl::InvalidArgumentError(absl::StrFormat(
        "%s: no entry symbol '%s': not an oxinfer plugin", path, OXI_ENTRY_SYMBOL)));
  }
  const oxi_plugin* p = reinterpret_cast<oxi_plugin_entry_fn>(sym)();
  if (p == nullptr) {
    return reject(absl::InvalidArgumentError(
        absl::StrFormat("%s: %s returned no plugin descriptor", path, OXI_ENTRY_SYMBOL)));
  }
  // The first three fields never move, so they can be read whatever the version.
  rec.abi_major = p->abi_major;
  rec.abi_minor = p->abi_minor;
  if (p->abi_major != OXI_ABI_MAJOR) {
    return reject(absl::FailedPreconditionError(absl::StrFormat(
        "%s: built for plugin ABI %u.%u, this host speaks ABI %d.%d (major versions differ)", path,
        p->abi_major, p->abi_minor, OXI_ABI_MAJOR, OXI_ABI_MINOR)));
  }
  if (!OXI_HAS_FIELD(p, oxi_plugin, get_interface)) {
    return reject(absl::InvalidArgumentError(absl::StrFormat(
        "%s: plugin descriptor too small (%u bytes, ABI %u.x needs %u)", path, p->struct_size,
        OXI_ABI_MAJOR,
        static_cast<unsigned>(offsetof(oxi_plugin, get_interface) + sizeof(p->get_interface)))));
  }
  rec.kind = p->kind;
  rec.name = p->name ? p->name : "";
  rec.version = p->version ? p->version : "";
  rec.description = p->description ? p->description : "";
  if (rec.name.empty()) {
    return reject(absl::InvalidArgumentError(absl::StrFormat("%s: plugin has no name", path)));
  }
  if (rec.kind != OXI_PLUGIN_BACKEND && rec.kind != OXI_PLUGIN_MODEL &&
      rec.kind != OXI_PLUGIN_CODEC) {
    return reject(absl::InvalidArgumentError(
        absl::StrFormat("%s: plugin '%s' has unknown kind %d", path, rec.name, rec.kind)));
  }
  for (const auto& other : records_) {
    if (other.name != rec.name || other.state == PluginState::kRejected ||
        other.state == PluginState::kShadowed) {
      continue;
    }
    rec.state = PluginState::kShadowed;
    rec.shadowed_by = other.path;
    rec.reason =
        absl::StrFormat("shadowed by %s (same name '%s', found first)", other.path, rec.name);
    records_.push_back(rec);
    const std::string warning = absl::StrCat(path, ": ", rec.reason, "; not used");
    HostServices()->log(OXI_LOG_WARNING, "oxinfer", warning.c_str());
    return absl::AlreadyExistsError(warning);
  }
  if (p->score == nullptr || p->get_interface == nullptr) {
    return reject(absl::InvalidArgumentError(
        absl::StrFormat("%s: plugin '%s' lacks score() or get_interface()", path, rec.name)));
  }

  char message[kMessageSize] = {};
  rec.score = p->score(HostServices(), message, sizeof message);
  rec.plugin = p;
  if (rec.score <= 0) {
    const std::string why = PluginText(message, sizeof message);
    rec.state = PluginState::kDeclined;
    rec.reason = !why.empty()    ? why
                 : rec.score < 0 ? absl::StrFormat("score() failed (returned %d)", rec.score)
                                 : "declined without a reason";
    rec.score = 0;
    records_.push_back(rec);
    return absl::FailedPreconditionError(absl::StrCat(path, ": ", rec.reason));
  }
  message[0] = '\0';
  rec.iface = p->get_interface(HostServices(), message, sizeof message);
  if (rec.iface == nullptr) {
    const std::string why = PluginText(message, sizeof message);
    return reject(
        absl::InternalError(absl::StrFormat("%s: plugin '%s' gave no interface: %s", path, rec.name,
                                            why.empty() ? "no reason given" : why)));
  }
  // Every kind's interface starts with struct_size; a zero or tiny one is a broken plugin.
  if (*static_cast<const uint32_t*>(rec.iface) < sizeof(uint32_t) * 2) {
    return reject(absl::InvalidArgumentError(
        absl::StrFormat("%s: plugin '%s' interface has no size", path, rec.name)));
  }
  if (rec.kind == OXI_PLUGIN_BACKEND) {
    if (absl::Status s = CheckBackend(&rec); !s.ok()) return reject(s);
  }
  rec.state = PluginState::kLoaded;
  records_.push_back(rec);
  return absl::OkStatus();
}

std::vector<const PluginRecord*> PluginRegistry::Loaded(int32_t kind) const {
  std::vector<const PluginRecord*> out;
  for (const auto& r : records_) {
    if (r.kind == kind && r.state == PluginState::kLoaded) out.push_back(&r);
  }
  std::stable_sort(out.begin(), out.end(), [](const PluginRecord* a, const PluginRecord* b) {
    return a->score > b->score;
  });
  return out;
}

const PluginRecord* PluginRegistry::FindByName(absl::string_view name) const {
  const PluginRecord* found = nullptr;
  for (const auto& r : records_) {
    if (r.name != name || r.state == PluginState::kShadowed) continue;
    if (r.state == PluginState::kLoaded) return &r;
    if (found == nullptr) found = &r;
  }
  return found;
}

}  // namespace oxinfer
