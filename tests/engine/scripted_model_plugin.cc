// A model plugin that replies from a script, for tests of whole
// conversations (tool calls and their answers) through the real plugin path:
//
//   {"model_type": "scripted", "vocab_size": 276, "stop_tokens": [257],
//    "script": [["<text as bytes>", 264], ["The answer is 7.", 257]],
//    "reasoning_start": "<think>", "reasoning_end": "</think>"}   (optional)
//
// Reply k (counted over the sequence's prompts: a forward that asks for
// logits and does not just feed back the token the model predicted ends a
// prompt and starts the next reply) emits
// script[k]'s tokens: a string stands for its bytes (the byte-level test
// tokenizer's ids 0-255), a number for that id. Past the script's end, or
// of a reply, it emits stop_tokens[0].
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "oxinfer/plugin.hpp"

namespace {

using oxinfer::sdk::Json;
using oxinfer::sdk::JsonDoc;
using oxinfer::sdk::Status;
using oxinfer::sdk::StatusOr;

class ScriptedModel {
 public:
  static int32_t Probe(const oxinfer::sdk::ProbeInput& in, std::string* reason) {
    auto doc = JsonDoc::Parse(in.config_json, "config.json");
    if (doc.ok()) {
      auto type = doc->root()["model_type"].StringOr("");
      if (type.ok() && *type == "scripted") return 10;
    }
    *reason = "not a scripted model";
    return 0;
  }

  static StatusOr<std::unique_ptr<ScriptedModel>> Open(const oxinfer::sdk::OpenParams& p) {
    OXI_ASSIGN_OR_RETURN(JsonDoc doc, JsonDoc::FromFile(p.model_dir + "/config.json"));
    const Json c = doc.root();
    auto m = std::make_unique<ScriptedModel>();
    oxinfer::sdk::ModelInfo& i = m->info_;
    i.capabilities = OXI_MODEL_TEXT;
    i.family = "scripted";
    OXI_ASSIGN_OR_RETURN(int64_t vocab, c["vocab_size"].IntIn(257, 1 << 20));
    i.vocab_size = static_cast<int32_t>(vocab);
    i.context_length = 1 << 16;
    i.max_sequences = p.max_sequences;
    i.can_rewind = true;
    // Optional reasoning markers, for hosts' tests of reasoning traces.
    OXI_ASSIGN_OR_RETURN(i.reasoning_start, c["reasoning_start"].StringOr(""));
    OXI_ASSIGN_OR_RETURN(i.reasoning_end, c["reasoning_end"].StringOr(""));
    OXI_ASSIGN_OR_RETURN(std::vector<int64_t> stops, c["stop_tokens"].IntList());
    if (stops.empty()) return oxinfer::sdk::InvalidArgumentError("scripted: no stop_tokens");
    for (int64_t s : stops) i.stop_tokens.push_back(static_cast<int32_t>(s));
    for (const Json& reply : c["script"].Children()) {
      std::vector<int32_t> ids;
      for (const Json& item : reply.Children()) {
        if (item.is_string()) {
          OXI_ASSIGN_OR_RETURN(std::string text, item.String());
          for (unsigned char ch : text) ids.push_back(ch);
        } else {
          OXI_ASSIGN_OR_RETURN(int64_t id, item.IntIn(0, vocab - 1));
          ids.push_back(static_cast<int32_t>(id));
        }
      }
      m->script_.push_back(std::move(ids));
    }
    m->sequences_.resize(i.max_sequences);
    return m;
  }

  oxinfer::sdk::ModelInfo Info() const { return info_; }

  Status Forward(const std::vector<oxinfer::sdk::BatchEntry>& batch) {
    for (const auto& e : batch) {
      Sequence& s = sequences_[e.seq];
      if (e.tokens == nullptr || e.logits == OXI_LOGITS_ALL) {
        return oxinfer::sdk::UnimplementedError("scripted: tokens only, logits none or last");
      }
      const bool fed_back = e.n == 1 && s.predicted >= 0 && e.tokens[0] == s.predicted;
      if (fed_back) {
        ++s.position;
      } else if (e.logits == OXI_LOGITS_LAST) {
        ++s.reply;  // the end of a prompt: the next reply starts
        s.position = 0;
      } else {
        s.predicted = -1;  // a chunk of a prompt
      }
      if (e.logits == OXI_LOGITS_LAST) {
        s.predicted = Next(s);
        for (int32_t v = 0; v < info_.vocab_size; ++v) e.logits_out[v] = 0.0f;
        e.logits_out[s.predicted] = 1.0f;
      }
    }
    return oxinfer::sdk::OkStatus();
  }

  Status Truncate(int32_t seq, int64_t) {
    sequences_[seq].predicted = -1;
    return oxinfer::sdk::OkStatus();
  }
  void FreeSequence(int32_t seq) { sequences_[seq] = Sequence(); }

 private:
  struct Sequence {
    int64_t reply = -1;
    size_t position = 0;
    int32_t predicted = -1;
  };

  int32_t Next(const Sequence& s) const {
    if (s.reply < 0 || s.reply >= static_cast<int64_t>(script_.size())) {
      return info_.stop_tokens[0];
    }
    const std::vector<int32_t>& r = script_[s.reply];
    return s.position < r.size() ? r[s.position] : info_.stop_tokens[0];
  }

  oxinfer::sdk::ModelInfo info_;
  std::vector<std::vector<int32_t>> script_;
  std::vector<Sequence> sequences_;
};

}  // namespace

OXINFER_MODEL_PLUGIN(ScriptedModel, "scripted", "1.0.0",
                     "a test model that replies from a script in its config.json")
