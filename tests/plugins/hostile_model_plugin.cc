// A model plugin that breaks every promise the ABI lets a plugin break, for
// the host's checks (tests/engine/plugin_boundary_test.cc). Its config.json
// is {"model_type": "hostile", "mode": "..."}; the mode picks the breach:
//   unterminated_reason  probe declines, filling the reason buffer without a NUL
//   bad_code             open fails with code 999 and an unterminated message
//   negative_vocab       info: a text model with vocab_size -5
//   huge_vocab           info: vocab_size 2^31-1
//   stop_out_of_range    info: a stop token id outside any vocabulary (2^30)
//   many_stops           info: n_stop_tokens 2^30 (the array has 1)
//   special_out_of_range info: a special token id outside any vocabulary (2^30)
//   negative_hidden      info: hidden_size -1
//   info_fails           info returns 999
//   error_as_score       probe returns -3 (an error code, not a score)
// and with OXI_TEST_HOSTILE_SCORE=unterminated in the environment, score()
// declines with an unterminated reason.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "oxinfer/plugin.hpp"

namespace {

struct HostileModel {
  std::string mode;
};

std::string ModeOf(const char* config_json) {
  const char* m = std::strstr(config_json, "\"mode\": \"");
  if (m == nullptr) return "";
  m += std::strlen("\"mode\": \"");
  const char* end = std::strchr(m, '"');
  return end ? std::string(m, end) : "";
}

void FillWithoutNul(char* buf, size_t size) {
  if (size > 0) std::memset(buf, 'x', size);
}

int32_t Probe(const char*, const char* config_json, char* reason, size_t reason_size) {
  if (std::strstr(config_json, "\"hostile\"") == nullptr) {
    std::snprintf(reason, reason_size, "not a hostile model");
    return 0;
  }
  const std::string mode = ModeOf(config_json);
  if (mode == "unterminated_reason") {
    FillWithoutNul(reason, reason_size);
    return 0;
  }
  if (mode == "error_as_score") return -3;
  return 50;
}

int32_t Open(const oxi_model_open_params* params, oxi_model** model, char* error,
             size_t error_size) {
  std::string config;
  {
    std::FILE* f = std::fopen((std::string(params->model_dir) + "/config.json").c_str(), "r");
    if (f == nullptr) return OXI_NOT_FOUND;
    char buf[4096];
    const size_t n = std::fread(buf, 1, sizeof buf, f);
    std::fclose(f);
    config.assign(buf, n);
  }
  auto* m = new HostileModel{ModeOf(config.c_str())};
  if (m->mode == "bad_code") {
    delete m;
    FillWithoutNul(error, error_size);
    return 999;
  }
  *model = reinterpret_cast<oxi_model*>(m);
  return OXI_OK;
}

void Close(oxi_model* model) { delete reinterpret_cast<HostileModel*>(model); }

int32_t Info(const oxi_model* model, oxi_model_info* info) {
  const std::string& mode = reinterpret_cast<const HostileModel*>(model)->mode;
  static const int32_t kStops[] = {1};
  static const oxi_special_token kSpecial[] = {{"bos", 1 << 30, 0}};
  if (mode == "info_fails") return 999;
  info->capabilities = OXI_MODEL_TEXT;
  info->family = "hostile";
  info->vocab_size = 256;
  info->context_length = 64;
  info->max_sequences = 1;
  info->stop_tokens = kStops;
  info->n_stop_tokens = 1;
  if (mode == "negative_vocab") info->vocab_size = -5;
  if (mode == "huge_vocab") info->vocab_size = 0x7fffffff;
  if (mode == "stop_out_of_range") {
    static const int32_t kBadStops[] = {1 << 30};
    info->stop_tokens = kBadStops;
  }
  if (mode == "many_stops") info->n_stop_tokens = 1 << 30;
  if (mode == "special_out_of_range") {
    info->special_tokens = kSpecial;
    info->n_special_tokens = 1;
  }
  if (mode == "negative_hidden") info->hidden_size = -1;
  return OXI_OK;
}

int32_t Forward(oxi_model*, const oxi_forward_args*, char* error, size_t error_size) {
  FillWithoutNul(error, error_size);
  return OXI_INTERNAL;
}

// OXI_TEST_HOSTILE_SCORE=unterminated: declines with an unterminated reason.
int32_t Score(const oxi_host_services*, char* reason, size_t reason_size) {
  const char* mode = std::getenv("OXI_TEST_HOSTILE_SCORE");
  if (mode != nullptr && std::strcmp(mode, "unterminated") == 0) {
    FillWithoutNul(reason, reason_size);
    return 0;
  }
  return 1;
}

const void* GetInterface(const oxi_host_services*, char*, size_t) {
  static oxi_model_iface table = [] {
    oxi_model_iface t;
    std::memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    t.probe = &Probe;
    t.open = &Open;
    t.close = &Close;
    t.info = &Info;
    t.forward = &Forward;
    return t;
  }();
  return &table;
}

#ifndef HOSTILE_ABI_MINOR
#define HOSTILE_ABI_MINOR OXI_ABI_MINOR
#endif

const oxi_plugin kPlugin = {sizeof(oxi_plugin),
                            OXI_ABI_MAJOR,
                            HOSTILE_ABI_MINOR,
                            OXI_PLUGIN_MODEL,
                            "hostile-model",
                            "0.1.0",
                            "a model plugin that breaks the ABI's promises",
                            &Score,
                            &GetInterface};

}  // namespace

OXINFER_DEFINE_PLUGIN(kPlugin)
