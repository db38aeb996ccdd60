// A model plugin for the engine's tests: no weights and no backend work, but
// the sequence semantics of a real language model, configured by config.json:
//
//   {"model_type": "engine_test", "vocab_size": 256, "context_length": 64,
//    "can_rewind": true, "max_sequences": 8, "stop_tokens": [1],
//    "special_tokens": {"bos": 2}, "reasoning_start": "<r>", "reasoning_end": "</r>",
//    "default_chat_template": "...", "image_output": false,
//    "forward_delay_ms": 0, "log_file": "/tmp/x.log"}
//
// Greedy decoding emits (last token + 1) mod vocab_size. Each sequence keeps
// its tokens; a forward past context_length fails, and so does a truncation
// to a middle length when can_rewind is false. Every forward and sequence
// call appends a line to log_file: "forward <entries> <seq>:<n> ...",
// "truncate <seq> <n>" (refused ones too), "free <seq>". With image_output it is a
// text-to-image model instead, making a gradient of the requested size.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "oxinfer/plugin.hpp"

namespace {

using oxinfer::sdk::Json;
using oxinfer::sdk::JsonDoc;
using oxinfer::sdk::Status;
using oxinfer::sdk::StatusOr;

class EngineTestModel {
 public:
  static int32_t Probe(const oxinfer::sdk::ProbeInput& in, std::string* reason) {
    auto doc = JsonDoc::Parse(in.config_json, "config.json");
    if (doc.ok()) {
      auto type = doc->root()["model_type"].StringOr("");
      if (type.ok() && *type == "engine_test") return 10;
    }
    *reason = "not an engine_test model";
    return 0;
  }

  static StatusOr<std::unique_ptr<EngineTestModel>> Open(const oxinfer::sdk::OpenParams& p) {
    OXI_ASSIGN_OR_RETURN(JsonDoc doc, JsonDoc::FromFile(p.model_dir + "/config.json"));
    const Json c = doc.root();
    auto m = std::make_unique<EngineTestModel>();
    oxinfer::sdk::ModelInfo& i = m->info_;
    OXI_ASSIGN_OR_RETURN(bool images, c["image_output"].BoolOr(false));
    i.capabilities = images ? OXI_MODEL_IMAGE_OUTPUT : OXI_MODEL_TEXT;
    i.family = "engine_test";
    OXI_ASSIGN_OR_RETURN(int64_t vocab, c["vocab_size"].IntIn(1, 1 << 20));
    i.vocab_size = static_cast<int32_t>(vocab);
    OXI_ASSIGN_OR_RETURN(i.context_length, c["context_length"].IntOr(0));
    if (p.context_length > 0) i.context_length = p.context_length;
    OXI_ASSIGN_OR_RETURN(int64_t limit, c["max_sequences"].IntOr(64));
    i.max_sequences = static_cast<int32_t>(p.max_sequences < limit ? p.max_sequences : limit);
    OXI_ASSIGN_OR_RETURN(i.can_rewind, c["can_rewind"].BoolOr(true));
    OXI_ASSIGN_OR_RETURN(std::vector<int64_t> stops, c["stop_tokens"].IntList());
    for (int64_t s : stops) i.stop_tokens.push_back(static_cast<int32_t>(s));
    for (const Json& s : c["special_tokens"].Children()) {
      OXI_ASSIGN_OR_RETURN(int64_t id, s.Int());
      i.special_tokens.emplace_back(std::string(s.key()), static_cast<int32_t>(id));
    }
    OXI_ASSIGN_OR_RETURN(i.reasoning_start, c["reasoning_start"].StringOr(""));
    OXI_ASSIGN_OR_RETURN(i.reasoning_end, c["reasoning_end"].StringOr(""));
    OXI_ASSIGN_OR_RETURN(i.default_chat_template, c["default_chat_template"].StringOr(""));
    OXI_ASSIGN_OR_RETURN(m->delay_ms_, c["forward_delay_ms"].IntOr(0));
    OXI_ASSIGN_OR_RETURN(std::string log, c["log_file"].StringOr(""));
    if (!log.empty()) {
      m->log_ = std::fopen(log.c_str(), "a");
      if (m->log_ == nullptr) return oxinfer::sdk::InternalError("cannot open " + log);
    }
    m->sequences_.resize(i.max_sequences);
    return m;
  }

  ~EngineTestModel() {
    if (log_ != nullptr) std::fclose(log_);
  }

  oxinfer::sdk::ModelInfo Info() const { return info_; }

  Status Forward(const std::vector<oxinfer::sdk::BatchEntry>& batch) {
    if (delay_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
    std::string line = "forward " + std::to_string(batch.size());
    for (const auto& e : batch) {
      std::vector<int32_t>& seq = sequences_[e.seq];
      if (e.tokens == nullptr || e.positions != nullptr || e.logits == OXI_LOGITS_ALL) {
        return oxinfer::sdk::UnimplementedError("engine_test: tokens only, logits none or last");
      }
      if (info_.context_length > 0 &&
          static_cast<int64_t>(seq.size()) + e.n > info_.context_length) {
        return oxinfer::sdk::OutOfRangeError(
            oxinfer::sdk::StrCat("engine_test: sequence ", e.seq, " would hold ", seq.size() + e.n,
                                 " positions, more than the context of ", info_.context_length));
      }
      seq.insert(seq.end(), e.tokens, e.tokens + e.n);
      if (e.logits == OXI_LOGITS_LAST) {
        for (int32_t v = 0; v < info_.vocab_size; ++v) e.logits_out[v] = 0.0f;
        e.logits_out[(seq.back() + 1) % info_.vocab_size] = 1.0f;
      }
      line += " " + std::to_string(e.seq) + ":" + std::to_string(e.n);
    }
    Log(line);
    return oxinfer::sdk::OkStatus();
  }

  Status Truncate(int32_t seq, int64_t n_keep) {
    Log("truncate " + std::to_string(seq) + " " + std::to_string(n_keep));  // refused ones too
    std::vector<int32_t>& s = sequences_[seq];
    if (n_keep > static_cast<int64_t>(s.size())) {
      return oxinfer::sdk::OutOfRangeError("engine_test: truncation past the end");
    }
    if (!info_.can_rewind && n_keep != 0 && n_keep != static_cast<int64_t>(s.size())) {
      return oxinfer::sdk::FailedPreconditionError("engine_test: this model cannot rewind");
    }
    s.resize(n_keep);
    return oxinfer::sdk::OkStatus();
  }

  void FreeSequence(int32_t seq) {
    sequences_[seq].clear();
    Log("free " + std::to_string(seq));
  }

  StatusOr<oxinfer::sdk::Image> GenerateImage(const oxi_image_request& r) {
    const int32_t steps = r.steps > 0 ? r.steps : 3;
    for (int32_t s = 1; s <= steps; ++s) {
      if (r.progress != nullptr && r.progress(r.progress_ctx, s, steps) != 0) {
        return oxinfer::sdk::CancelledError("engine_test: cancelled at step " + std::to_string(s));
      }
    }
    oxinfer::sdk::Image img;
    img.width = r.width > 0 ? r.width : 8;
    img.height = r.height > 0 ? r.height : 8;
    img.channels = 3;
    for (int32_t y = 0; y < img.height; ++y) {
      for (int32_t x = 0; x < img.width; ++x) {
        img.pixels.push_back(static_cast<uint8_t>(x * 255 / img.width));
        img.pixels.push_back(static_cast<uint8_t>(y * 255 / img.height));
        img.pixels.push_back(static_cast<uint8_t>(r.seed));
      }
    }
    return img;
  }

 private:
  void Log(const std::string& line) {
    if (log_ == nullptr) return;
    std::fprintf(log_, "%s\n", line.c_str());
    std::fflush(log_);
  }

  oxinfer::sdk::ModelInfo info_;
  std::vector<std::vector<int32_t>> sequences_;
  int64_t delay_ms_ = 0;
  std::FILE* log_ = nullptr;
};

}  // namespace

OXINFER_MODEL_PLUGIN(EngineTestModel, "engine_test", "1.0.0",
                     "the engine tests' model: greedy decoding counts up")
