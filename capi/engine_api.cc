// oxinfer_engine_*: opening a checkpoint with the plugins installed beside
// the library.
#include <climits>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "capi/handles.h"
#include "core/engine/engine.h"
#include "core/engine/tool_call.h"
#include "core/paths.h"
#include "core/thread_pool.h"

namespace oxinfer::capi {
namespace {

const char* OrEmpty(const char* s) { return s != nullptr ? s : ""; }

// The installed layout beside <libdir>/liboxinfer.so.1: plugins in
// <libdir>/oxinfer/plugins, the built-in model in ../share/oxinfer/default_model.
std::string InstalledPluginDir() {
  const std::string lib = LibraryDir();
  return lib.empty() ? "" : lib + "/oxinfer/plugins";
}

std::string InstalledModelDir() {
  const std::string lib = LibraryDir();
  if (lib.empty()) return "";
  const std::string dir = lib + "/../share/oxinfer/default_model";
  char real[PATH_MAX];
  if (!IsDirectory(dir) || realpath(dir.c_str(), real) == nullptr) return "";
  return real;
}

}  // namespace
}  // namespace oxinfer::capi

using oxinfer::capi::Fail;
using oxinfer::capi::Guard;

extern "C" {

void oxinfer_engine_options_init(oxinfer_engine_options* o) {
  if (o == nullptr) return;
  *o = oxinfer_engine_options{};
  o->struct_size = sizeof *o;
}

oxinfer_status oxinfer_engine_open(const oxinfer_engine_options* o, oxinfer_engine** out) {
  return Guard([&] {
    if (out == nullptr) return Fail(OXINFER_INVALID_ARGUMENT, "oxinfer_engine_open: out is NULL");
    *out = nullptr;
    oxinfer_engine_options defaults;
    oxinfer_engine_options_init(&defaults);
    if (o == nullptr) o = &defaults;
    if (o->struct_size < offsetof(oxinfer_engine_options, use_mmap) + sizeof(o->use_mmap)) {
      return Fail(OXINFER_INVALID_ARGUMENT,
                  "oxinfer_engine_open: options.struct_size too small (call "
                  "oxinfer_engine_options_init)");
    }
    oxinfer::engine::EngineOptions options;
    options.model_dir = oxinfer::capi::OrEmpty(o->model_dir);
    if (options.model_dir.empty()) {
      options.model_dir = oxinfer::capi::InstalledModelDir();
      if (options.model_dir.empty()) {
        return Fail(OXINFER_NOT_FOUND,
                    "no model_dir given and no built-in model installed beside the library "
                    "(<libdir>/../share/oxinfer/default_model)");
      }
    }
    std::string dirs = oxinfer::capi::OrEmpty(o->plugin_dirs);
    const std::string installed = oxinfer::capi::InstalledPluginDir();
    if (!installed.empty()) dirs = dirs.empty() ? installed : absl::StrCat(dirs, ":", installed);
    options.plugin_dirs = dirs;
    if (o->device != nullptr && *o->device != '\0') options.device = o->device;
    const std::string q = oxinfer::capi::OrEmpty(o->quantization);
    if (q == "q8" || q == "q8_0") {
      options.weight_dtype = OXI_DTYPE_Q8_0;
    } else if (q == "q4" || q == "q4_0") {
      options.weight_dtype = OXI_DTYPE_Q4_0;
    } else if (!q.empty() && q != "none") {
      return Fail(OXINFER_INVALID_ARGUMENT,
                  absl::StrCat("options.quantization '", q, "': expected \"q8\" or \"q4\""));
    }
    if (o->threads < 0) return Fail(OXINFER_INVALID_ARGUMENT, "options.threads is negative");
    if (o->threads > 0) oxinfer::ThreadPool::SetGlobalThreads(o->threads);
    if (o->max_sessions < 0)
      return Fail(OXINFER_INVALID_ARGUMENT, "options.max_sessions is negative");
    options.max_sessions = o->max_sessions > 0 ? o->max_sessions : 4;
    options.context_length = o->context_length;
    options.use_mmap = o->use_mmap != 0;
    auto engine = oxinfer::engine::Engine::Open(options);
    if (!engine.ok()) return Fail(engine.status());
    auto handle = std::make_unique<oxinfer_engine>();
    handle->engine = *std::move(engine);
    *out = handle.release();
    return OXINFER_OK;
  });
}

oxinfer_status oxinfer_engine_close(oxinfer_engine* engine) {
  return Guard([&] {
    if (engine == nullptr) return OXINFER_OK;
    const int live = engine->sessions.load();
    if (live > 0) {
      return Fail(
          OXINFER_FAILED_PRECONDITION,
          absl::StrCat("oxinfer_engine_close: ", live, " session(s) still exist; free them first"));
    }
    delete engine;
    return OXINFER_OK;
  });
}

oxinfer_status oxinfer_engine_model_info(const oxinfer_engine* engine, oxinfer_model_info* info) {
  return Guard([&] {
    if (engine == nullptr || info == nullptr) {
      return Fail(OXINFER_INVALID_ARGUMENT, "oxinfer_engine_model_info: NULL argument");
    }
    if (info->struct_size < offsetof(oxinfer_model_info, tool_format) + sizeof(info->tool_format)) {
      return Fail(OXINFER_INVALID_ARGUMENT, "oxinfer_model_info.struct_size too small");
    }
    const oxinfer::engine::Engine& e = *engine->engine;
    const oxinfer::engine::ModelInfo& m = e.model_info();
    info->model_dir = e.model_dir().c_str();
    info->plugin = e.model_plugin().c_str();
    info->family = m.family.c_str();
    info->generates_text = m.generates_text();
    info->generates_images = m.generates_images();
    info->vocab_size = m.vocab_size;
    info->context_length = m.context_length;
    info->tool_format = oxinfer::engine::ToolCallFormatName(e.tool_call_format());
    return OXINFER_OK;
  });
}

}  // extern "C"
