// Opening a checkpoint, what the host is told about it, and the sequence
// operations. The forward is in qwen35_forward.cc.
#include "plugins/models/qwen35/qwen35_model.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "oxinfer/sdk/common.hpp"
#include "plugins/models/qwen35/qwen35_chat_template.h"

namespace oxinfer {
namespace qwen35 {
namespace {

using sdk::StrCat;

constexpr int64_t kDefaultPrefillChunk = 512;
// The context when neither the host nor the config names one.
constexpr int64_t kDefaultContext = int64_t{1} << 17;

sdk::StatusOr<std::string> ConfigText(const std::string& model_dir, const std::string& given) {
  if (!given.empty()) return given;
  return sdk::ReadFile(model_dir + "/config.json");
}

}  // namespace

int32_t Qwen35Model::Probe(const sdk::ProbeInput& in, std::string* reason) {
  sdk::StatusOr<std::string> text = ConfigText(in.model_dir, in.config_json);
  if (!text.ok()) {
    *reason = text.status().message();
    return 0;
  }
  sdk::StatusOr<Qwen35Config> c = ParseQwen35Config(*text);
  if (!c.ok()) {
    *reason = c.status().message();
    return 0;
  }
  return 100;
}

Qwen35Model::Qwen35Model(const Qwen35Config& config, const sdk::OpenParams& params)
    : config_(config), cx_(params.backend, "qwen35"), scratch_(&cx_) {}

sdk::StatusOr<std::unique_ptr<Qwen35Model>> Qwen35Model::Open(const sdk::OpenParams& p) {
  if (p.backend == nullptr) return sdk::FailedPreconditionError("open: no backend");
  switch (p.weight_dtype) {
    case OXI_DTYPE_INVALID:
    case OXI_DTYPE_F32:
    case OXI_DTYPE_BF16:
    case OXI_DTYPE_F16:
    case OXI_DTYPE_Q8_0:
    case OXI_DTYPE_Q4_0:
      break;
    default:
      return sdk::InvalidArgumentError(
          StrCat("open: weights cannot be held as ", oxi_dtype_name(p.weight_dtype)));
  }
  if (!p.draft_dir.empty()) {
    return sdk::InvalidArgumentError(
        StrCat("open: qwen35 takes no separate drafter checkpoint (draft_dir ", p.draft_dir,
               "): Qwen 3.5 drafts with its own multi-token-prediction head (--draft mtp)"));
  }
  const std::string config_path = p.model_dir + "/config.json";
  OXI_ASSIGN_OR_RETURN(std::string text, sdk::ReadFile(config_path));
  OXI_ASSIGN_OR_RETURN(Qwen35Config config, ParseQwen35Config(text, config_path));
  std::unique_ptr<Qwen35Model> m(new Qwen35Model(config, p));
  m->context_length_ = p.context_length > 0                 ? p.context_length
                       : config.max_position_embeddings > 0 ? config.max_position_embeddings
                                                            : kDefaultContext;
  // Positions cross the ABI as int32.
  m->context_length_ = std::min<int64_t>(m->context_length_, std::numeric_limits<int32_t>::max());
  m->prefill_chunk_ = p.prefill_chunk > 0 ? p.prefill_chunk : kDefaultPrefillChunk;
  m->max_sequences_ = std::max(p.max_sequences, 1);
  OXI_ASSIGN_OR_RETURN(m->weights_, LoadQwen35Weights(m->cx_, config, p));
  if (const std::string q = m->cx_.QuantSummary(p.weight_dtype); !q.empty()) {
    sdk::Log(sdk::Host(), OXI_LOG_INFO, "qwen35", q);
  }
  int64_t n_deltanet = 0, n_attention = 0;
  for (LayerType t : config.layer_types) {
    m->type_index_.push_back(t == LayerType::kLinearAttention ? n_deltanet++ : n_attention++);
  }
  m->sequences_ =
      std::make_unique<Sequences>(&m->cx_, config, m->max_sequences_, m->context_length_);
  if (m->weights_.has_mtp) {
    m->mtp_ = std::make_unique<MtpHead>(&m->cx_, config, &m->weights_, m->max_sequences_,
                                        m->context_length_);
    m->rewinds_.resize(static_cast<size_t>(m->max_sequences_));
  }
  return m;
}

sdk::ModelInfo Qwen35Model::Info() const {
  sdk::ModelInfo i;
  i.capabilities = OXI_MODEL_TEXT | OXI_MODEL_EMBEDDING_INPUT;
  if (mtp_ != nullptr) i.capabilities |= OXI_MODEL_DRAFT;
  i.family = "qwen35";
  i.vocab_size = static_cast<int32_t>(config_.vocab_size);
  i.hidden_size = static_cast<int32_t>(config_.hidden_size);
  i.context_length = context_length_;
  i.max_sequences = max_sequences_;
  i.can_rewind = false;
  i.default_chat_template = kChatmlTemplate;
  for (int64_t id : config_.eos_token_ids) i.stop_tokens.push_back(static_cast<int32_t>(id));
  for (const auto& s : config_.special_tokens) {
    i.special_tokens.emplace_back(s.first, static_cast<int32_t>(s.second));
  }
  i.reasoning_start = "<think>";
  i.reasoning_end = "</think>";
  return i;
}

sdk::Status Qwen35Model::Truncate(int32_t seq, int64_t n_keep) {
  const int64_t length = sequences_->length(seq);
  if (n_keep == 0) {
    sequences_->Clear(seq, /*release=*/false);
    if (mtp_ != nullptr) {
      mtp_->Clear(seq, /*release=*/false);
      rewinds_[seq].from = -1;
    }
    return sdk::OkStatus();
  }
  if (n_keep >= length) return sdk::OkStatus();
  if (mtp_ != nullptr && rewinds_[seq].from >= 0 && n_keep >= rewinds_[seq].from &&
      n_keep <= rewinds_[seq].from + rewinds_[seq].n) {
    // A rejected speculative tail: the states of the last position kept;
    // the KV caches are overwritten from there.
    Rewind& r = rewinds_[seq];
    if (sequences_->states_bytes() > 0) {
      OXI_RETURN_IF_ERROR(sequences_->RestoreStates(
          seq, r.steps.get(), sequences_->states_bytes() * static_cast<uint64_t>(n_keep - r.from)));
    }
    sequences_->set_length(seq, n_keep);
    mtp_->Truncate(seq, n_keep);
    r.n = n_keep - r.from;
    return sdk::OkStatus();
  }
  return sdk::FailedPreconditionError(StrCat("seq_truncate: sequence ", seq, " holds ", length,
                                             " positions; Qwen 3.5's DeltaNet ",
                                             "states cannot be rewound to ", n_keep, " (only 0 or ",
                                             length, "): start it over and prefill again"));
}

sdk::Status Qwen35Model::CopySequence(int32_t src, int32_t dst, int64_t n) {
  const int64_t length = sequences_->length(src);
  if (n == 0) {
    sequences_->Clear(dst, /*release=*/false);
    if (mtp_ != nullptr) mtp_->Clear(dst, /*release=*/false);
    return sdk::OkStatus();
  }
  if (n != length) {
    return sdk::FailedPreconditionError(
        StrCat("seq_copy: sequence ", src, " holds ", length, " positions; Qwen 3.5's DeltaNet ",
               "states cannot be rewound, so only all of them (or none) can be copied, not ", n));
  }
  if (mtp_ != nullptr) {
    OXI_RETURN_IF_ERROR(mtp_->Copy(src, dst));
    rewinds_[dst].from = -1;
  }
  return sequences_->Copy(src, dst);
}

void Qwen35Model::FreeSequence(int32_t seq) {
  sequences_->Clear(seq, /*release=*/true);
  if (mtp_ != nullptr) {
    mtp_->Clear(seq, /*release=*/true);
    rewinds_[seq] = Rewind();
  }
}

sdk::Status Qwen35Model::Draft(const sdk::DraftRequest& request) {
  if (mtp_ == nullptr) {
    return sdk::FailedPreconditionError(
        "draft: the model was not opened for drafting (oxi_model_open_params.draft)");
  }
  return mtp_->Draft(request, sequences_->length(request.seq), &scratch_);
}

}  // namespace qwen35
}  // namespace oxinfer
