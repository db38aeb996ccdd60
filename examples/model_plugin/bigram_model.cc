// An example third-party model plugin, built from the oxinfer SDK headers
// alone: a bigram language model whose next-token logits are row `last token`
// of the checkpoint's table "bigram.weight" [vocab][vocab]. It shows the
// adapter (ModelPlugin via OXINFER_MODEL_PLUGIN), config and weights read
// through the host, and compute through the backend (get_rows on a resident
// weight). The host brings the tokenizer, chat template, sampling and CLI.
#include <memory>
#include <string>
#include <vector>

#include "oxinfer/plugin.hpp"

namespace sdk = oxinfer::sdk;

class BigramModel {
 public:
  static int32_t Probe(const sdk::ProbeInput& in, std::string* reason) {
    auto doc = sdk::JsonDoc::Parse(in.config_json, "config.json");
    if (doc.ok() && doc->root()["model_type"].StringValueOr("") == "bigram") return 100;
    *reason = "not a bigram model (config.json model_type)";
    return 0;
  }

  static sdk::StatusOr<std::unique_ptr<BigramModel>> Open(const sdk::OpenParams& p) {
    auto m = std::make_unique<BigramModel>(p);
    OXI_ASSIGN_OR_RETURN(sdk::JsonDoc doc, sdk::JsonDoc::FromFile(p.model_dir + "/config.json"));
    OXI_ASSIGN_OR_RETURN(m->vocab_, doc.root()["vocab_size"].IntIn(1, 1 << 20));
    OXI_ASSIGN_OR_RETURN(m->eos_, doc.root()["eos_token_id"].IntList());
    OXI_ASSIGN_OR_RETURN(m->weights_, sdk::Weights::Open(p.model_dir, p.use_mmap));
    OXI_ASSIGN_OR_RETURN(auto t, m->weights_.Get("bigram.weight", {m->vocab_, m->vocab_}));
    OXI_ASSIGN_OR_RETURN(m->table_, m->cx_.LoadWeight(m->weights_, t, m->vocab_, m->vocab_));
    return m;
  }
  explicit BigramModel(const sdk::OpenParams& p) : cx_(p.backend), max_seqs_(p.max_sequences) {}

  sdk::ModelInfo Info() const {
    sdk::ModelInfo i;
    i.family = "bigram";
    i.vocab_size = static_cast<int32_t>(vocab_);
    i.context_length = 1 << 20;
    i.max_sequences = max_seqs_;
    i.stop_tokens.assign(eos_.begin(), eos_.end());
    return i;
  }

  // Only the last token of each entry matters; there is no state to keep.
  sdk::Status Forward(const std::vector<sdk::BatchEntry>& batch) {
    sdk::Scratch scratch(&cx_);
    for (const sdk::BatchEntry& e : batch) {
      if (e.logits == OXI_LOGITS_NONE) continue;
      if (e.logits == OXI_LOGITS_ALL)
        return sdk::UnimplementedError("bigram: logits of all positions");
      OXI_ASSIGN_OR_RETURN(sdk::Tensor ids, scratch.I32(e.tokens + e.n - 1, 1));
      OXI_ASSIGN_OR_RETURN(sdk::Tensor out, scratch.F32(1, vocab_));
      OXI_RETURN_IF_ERROR(cx_.GetRows(table_, ids, out));
      OXI_RETURN_IF_ERROR(cx_.Read(out, e.logits_out));
    }
    return sdk::OkStatus();
  }
  sdk::Status Truncate(int32_t, int64_t) { return sdk::OkStatus(); }

 private:
  sdk::Compute cx_;
  int32_t max_seqs_;
  int64_t vocab_ = 0;
  std::vector<int64_t> eos_;
  sdk::Weights weights_;
  sdk::OwnedTensor table_;
};

OXINFER_MODEL_PLUGIN(BigramModel, "bigram", "1.0.0", "example: a bigram table language model")
