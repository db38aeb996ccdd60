#include "plugins/models/gemma4/gemma4_model.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "oxinfer/sdk/common.hpp"
#include "plugins/models/gemma4/gemma4_chat_template.h"

namespace oxinfer {
namespace gemma4 {
namespace {

constexpr int64_t kDefaultPrefillChunk = 256;

bool WeightDtypeOk(oxi_dtype d) {
  return d == OXI_DTYPE_INVALID || d == OXI_DTYPE_F32 || d == OXI_DTYPE_BF16 ||
         d == OXI_DTYPE_F16 || d == OXI_DTYPE_Q8_0 || d == OXI_DTYPE_Q4_0;
}

// Why a rebuild over embedding-fed positions is impossible, for messages.
sdk::Status RefuseRebuild(int32_t seq, int64_t n, int64_t first_embedding) {
  return sdk::FailedPreconditionError(sdk::StrCat(
      "gemma4: sequence ", seq, ": keeping ", n,
      " positions needs its sliding-window caches recomputed from the token history (they no "
      "longer hold the window before position ",
      n, "), but position ", first_embedding,
      " was fed by an embedding row, which the history does not hold; free the sequence and "
      "feed it again"));
}

}  // namespace

int32_t Gemma4Model::Probe(const sdk::ProbeInput& in, std::string* reason) {
  std::string text = in.config_json;
  if (text.empty()) {
    auto read = sdk::ReadFile(in.model_dir + "/config.json");
    if (!read.ok()) {
      *reason = read.status().message();
      return 0;
    }
    text = std::move(*read);
  }
  auto cfg = ParseGemma4Config(text);
  if (!cfg.ok()) {
    *reason = cfg.status().message();
    return 0;
  }
  return 100;
}

sdk::StatusOr<std::unique_ptr<Gemma4Model>> Gemma4Model::Open(const sdk::OpenParams& p) {
  if (p.backend == nullptr) {
    return sdk::InvalidArgumentError("gemma4: no backend given (open needs the host's backend)");
  }
  if (!WeightDtypeOk(p.weight_dtype)) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("gemma4: weight type ", oxi_dtype_name(p.weight_dtype),
                    " is not one to load weights as (as stored, f32, bf16, f16, q8_0, q4_0)"));
  }
  std::unique_ptr<Gemma4Model> m(new Gemma4Model(p.backend));
  OXI_ASSIGN_OR_RETURN(std::string text, sdk::ReadFile(p.model_dir + "/config.json"));
  OXI_ASSIGN_OR_RETURN(m->cfg_, ParseGemma4Config(text));
  OXI_RETURN_IF_ERROR(LoadGemma4Weights(m->cx_, p, m->cfg_, &m->weights_));
  m->chunk_ = p.prefill_chunk > 0 ? p.prefill_chunk : kDefaultPrefillChunk;
  m->context_ = p.context_length > 0 ? p.context_length : m->cfg_.max_position_embeddings;
  if (m->context_ > (int64_t{1} << 31) - 1) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("gemma4: context length ", m->context_, " does not fit 32-bit positions"));
  }
  m->max_sequences_ = p.max_sequences;
  // Room for the window behind a step's first query plus the step.
  const int64_t ring = std::min<int64_t>(m->cfg_.sliding_window + m->chunk_, m->context_);
  m->store_ =
      std::make_unique<SequenceStore>(m->cfg_, m->cx_, m->max_sequences_, ring, m->context_);
  m->decoder_ = std::make_unique<Decoder>(m->cfg_, m->weights_, m->cx_, m->store_.get());
  if (!p.draft_dir.empty()) {
    OXI_ASSIGN_OR_RETURN(m->assistant_, Assistant::Load(m->cx_, p, m->cfg_));
    m->store_->set_behind(std::max<int64_t>(m->cfg_.sliding_window - 1, m->assistant_->behind()));
    sdk::Log(p.host, OXI_LOG_INFO, "gemma4",
             sdk::StrCat("drafting with the assistant in ", p.draft_dir, ": ",
                         m->assistant_->config().text.num_layers, " layers, hidden ",
                         m->assistant_->config().text.hidden_size));
  }
  OXI_RETURN_IF_ERROR(m->OpenVision(p, text));
  OXI_RETURN_IF_ERROR(m->OpenAudio(p, text));
  if (const std::string q = m->cx_.QuantSummary(p.weight_dtype); !q.empty()) {
    sdk::Log(p.host, OXI_LOG_INFO, "gemma4", q);
  }
  sdk::Log(
      p.host, OXI_LOG_INFO, "gemma4",
      sdk::StrCat("opened ", p.model_dir, ": ", m->cfg_.num_layers, " layers, hidden ",
                  m->cfg_.hidden_size, ", vocab ", m->cfg_.vocab_size, ", on ", m->cx_.device()));
  return m;
}

sdk::ModelInfo Gemma4Model::Info() const {
  sdk::ModelInfo i;
  i.capabilities = OXI_MODEL_TEXT | OXI_MODEL_EMBEDDING_INPUT;
  if (vision_ != nullptr) i.capabilities |= OXI_MODEL_IMAGE_INPUT;
  if (audio_ != nullptr) i.capabilities |= OXI_MODEL_AUDIO_INPUT;
  if (assistant_ != nullptr) i.capabilities |= OXI_MODEL_DRAFT;
  i.family = "gemma4";
  i.vocab_size = cfg_.vocab_size;
  i.hidden_size = cfg_.hidden_size;
  i.context_length = context_;
  i.max_sequences = max_sequences_;
  i.can_rewind = true;  // but see the header: not across embedding-fed positions
  i.default_chat_template = kGemma4ChatTemplate;
  i.stop_tokens = cfg_.tokens.stop_tokens;
  i.special_tokens = cfg_.tokens.special_tokens;
  i.reasoning_start = "<|channel>";
  i.reasoning_end = "<channel|>";
  return i;
}

sdk::Status Gemma4Model::CheckEntry(const sdk::BatchEntry& e, int index) const {
  const Sequence& s = store_->at(e.seq);
  if (s.length + e.n > context_) {
    return sdk::OutOfRangeError(sdk::StrCat("gemma4: entry ", index, ": sequence ", e.seq, " at ",
                                            s.length, " positions plus ", e.n,
                                            " exceeds the context of ", context_));
  }
  if (e.positions != nullptr) {
    for (int64_t t = 0; t < e.n; ++t) {
      if (e.positions[t] != s.length + t) {
        return sdk::InvalidArgumentError(
            sdk::StrCat("gemma4: entry ", index, ": position ", t, " is ", e.positions[t],
                        ", but sequence ", e.seq, " continues at ", s.length + t,
                        ": this model takes consecutive positions only (pass none)"));
      }
    }
  }
  const int64_t ple_vocab = cfg_.vocab_size_per_layer_input;
  if (cfg_.hidden_size_per_layer_input > 0 && e.tokens != nullptr) {
    for (int64_t t = 0; t < e.n; ++t) {
      if (!e.UsesEmbedding(t) && e.tokens[t] >= ple_vocab) {
        return sdk::InvalidArgumentError(
            sdk::StrCat("gemma4: entry ", index, ": token id ", e.tokens[t],
                        " outside the per-layer vocabulary of ", ple_vocab));
      }
    }
  }
  return sdk::OkStatus();
}

sdk::Status Gemma4Model::Forward(const std::vector<sdk::BatchEntry>& batch) {
  for (size_t i = 0; i < batch.size(); ++i) {
    OXI_RETURN_IF_ERROR(CheckEntry(batch[i], static_cast<int>(i)));
  }
  sdk::Status s = Run(batch);
  if (!s.ok()) {
    for (const sdk::BatchEntry& e : batch) store_->Clear(e.seq);
    return s.WithContext("gemma4: forward failed (its sequences were emptied)");
  }
  return s;
}

sdk::Status Gemma4Model::Run(const std::vector<sdk::BatchEntry>& batch) {
  const int64_t H = cfg_.hidden_size, V = cfg_.vocab_size;
  std::vector<int64_t> done(batch.size(), 0);
  std::vector<size_t> order(batch.size());
  std::vector<Piece> pieces;
  std::vector<std::vector<float>> hidden;  // per piece, with an assistant
  for (;;) {
    // Shortest remainders first, so decode entries are not held back by a prefill.
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return batch[a].n - done[a] < batch[b].n - done[b];
    });
    pieces.clear();
    std::vector<size_t> entry_of;
    int64_t budget = chunk_;
    for (size_t i : order) {
      const sdk::BatchEntry& e = batch[i];
      const int64_t take = std::min({e.n - done[i], chunk_, budget});
      if (take <= 0) continue;
      budget -= take;
      Piece p;
      p.seq = e.seq;
      p.n = take;
      const int64_t off = done[i];
      p.tokens = e.tokens != nullptr ? e.tokens + off : nullptr;
      p.embeddings = e.embeddings != nullptr ? e.embeddings + off * H : nullptr;
      p.embedding_mask = e.embedding_mask != nullptr ? e.embedding_mask + off : nullptr;
      if (e.logits == OXI_LOGITS_ALL) {
        p.logits = Piece::kAll;
        p.logits_out = e.logits_out + off * V;
      } else if (e.logits == OXI_LOGITS_LAST && off + take == e.n) {
        p.logits = Piece::kLast;
        p.logits_out = e.logits_out;
      }
      OXI_RETURN_IF_ERROR(store_->Reserve(p.seq, store_->at(p.seq).length + take));
      pieces.push_back(p);
      entry_of.push_back(i);
    }
    if (pieces.empty()) return sdk::OkStatus();
    hidden.resize(pieces.size());
    for (size_t j = 0; j < pieces.size() && assistant_ != nullptr; ++j) {
      hidden[j].resize(static_cast<size_t>(pieces[j].logit_rows() * H));
      pieces[j].hidden_out = hidden[j].data();
    }
    OXI_RETURN_IF_ERROR(decoder_->Step(pieces));
    for (size_t j = 0; j < pieces.size(); ++j) {
      const Piece& p = pieces[j];
      Sequence& s = store_->at(p.seq);
      if (p.hidden_out != nullptr && p.logit_rows() > 0) {
        // An entry split into steps (all logits) continues its rows.
        const int64_t pos0 = s.length + p.n - p.logit_rows();
        if (done[entry_of[j]] > 0 &&
            s.hidden_pos0 + static_cast<int64_t>(s.hidden.size()) / H == pos0) {
          s.hidden.insert(s.hidden.end(), hidden[j].begin(), hidden[j].end());
        } else {
          s.hidden_pos0 = pos0;
          s.hidden.swap(hidden[j]);
        }
      }
      for (int64_t t = 0; t < p.n; ++t) {
        const bool embedded = p.tokens == nullptr || p.UsesEmbedding(t);
        if (embedded) s.first_embedding = std::min(s.first_embedding, s.length + t);
        s.tokens.push_back(embedded ? cfg_.tokens.pad_token_id : p.tokens[t]);
      }
      s.length += p.n;
      done[entry_of[j]] += p.n;
    }
  }
}

sdk::Status Gemma4Model::Rebuild(int32_t src, int32_t dst, int64_t n) {
  const Sequence& from = store_->at(src);
  if (from.first_embedding < n) return RefuseRebuild(src, n, from.first_embedding);
  const std::vector<int32_t> history(from.tokens.begin(), from.tokens.begin() + n);
  store_->Clear(dst);
  sdk::BatchEntry e;
  e.seq = dst;
  e.n = n;
  e.tokens = history.data();
  std::vector<float> logits;
  if (assistant_ != nullptr) {
    // The last position's hidden state, which drafting starts from.
    logits.resize(static_cast<size_t>(cfg_.vocab_size));
    e.logits = OXI_LOGITS_LAST;
    e.logits_out = logits.data();
  }
  sdk::Status s = Run({e});
  if (!s.ok()) {
    store_->Clear(dst);
    return s.WithContext(sdk::StrCat("gemma4: recomputing sequence ", dst, " (now empty)"));
  }
  return s;
}

sdk::Status Gemma4Model::Truncate(int32_t seq, int64_t n_keep) {
  if (n_keep >= store_->at(seq).length) return sdk::OkStatus();
  if (store_->NeedsRebuild(seq, n_keep)) return Rebuild(seq, seq, n_keep);
  store_->DropTail(seq, n_keep);
  return sdk::OkStatus();
}

sdk::Status Gemma4Model::CopySequence(int32_t src, int32_t dst, int64_t n) {
  const Sequence& from = store_->at(src);
  if (n > from.length) {
    return sdk::OutOfRangeError(sdk::StrCat("gemma4: seq_copy: sequence ", src, " holds ",
                                            from.length, " positions, not ", n));
  }
  if (store_->NeedsRebuild(src, n)) return Rebuild(src, dst, n);
  sdk::Status s = store_->CopyPrefix(src, dst, n);
  if (!s.ok()) store_->Clear(dst);
  return s;
}

void Gemma4Model::FreeSequence(int32_t seq) { store_->Release(seq); }

sdk::Status Gemma4Model::Draft(const sdk::DraftRequest& r) {
  if (assistant_ == nullptr) {
    return sdk::FailedPreconditionError(
        "gemma4: draft: the model was not opened with an assistant (oxi_model_open_params."
        "draft_dir: a gemma4_assistant checkpoint; Gemma 4 has no drafting head of its own)");
  }
  return assistant_->Draft(r, *store_, weights_);
}

sdk::Status Gemma4Model::OpenVision(const sdk::OpenParams& p, const std::string& config_text) {
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc doc, sdk::JsonDoc::Parse(config_text, "config.json"));
  VisionConfig vc;
  bool present = false;
  OXI_RETURN_IF_ERROR(ParseVisionConfig(doc.root(), &vc, &present));
  if (!present) return sdk::OkStatus();
  if (!weights_.file.Has("model.vision_tower.patch_embedder.input_proj.weight")) {
    // A text-only save of a multimodal config: the tower is not there.
    sdk::Log(p.host, OXI_LOG_INFO, "gemma4",
             "config.json has a vision_config but the weights no vision tower: text only");
    return sdk::OkStatus();
  }
  vc.text_hidden_size = cfg_.hidden_size;
  // The image processor's settings: processor_config.json (or the older
  // preprocessor_config.json), else its defaults on the tower's patch grid.
  image_cfg_.patch_size = vc.patch_size;
  image_cfg_.pooling_kernel_size = vc.pooling_kernel_size;
  for (const char* name : {"processor_config.json", "preprocessor_config.json"}) {
    const std::string path = p.model_dir + "/" + name;
    auto text = sdk::ReadFile(path);
    if (!text.ok()) continue;
    OXI_ASSIGN_OR_RETURN(sdk::JsonDoc pdoc, sdk::JsonDoc::Parse(*text, name));
    sdk::Json ip =
        pdoc.root().Has("image_processor") ? pdoc.root()["image_processor"] : pdoc.root();
    OXI_ASSIGN_OR_RETURN(image_cfg_, ParseImageProcessorConfig(ip));
    break;
  }
  if (image_cfg_.patch_size != vc.patch_size ||
      image_cfg_.pooling_kernel_size != vc.pooling_kernel_size) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("gemma4: the image processor's patch ", image_cfg_.patch_size, " / pooling ",
                    image_cfg_.pooling_kernel_size, " differ from the vision tower's ",
                    vc.patch_size, " / ", vc.pooling_kernel_size));
  }
  for (const char* role : {"image", "boi", "eoi"}) {
    if (SpecialToken(role) < 0) {
      return sdk::InvalidArgumentError(
          sdk::StrCat("gemma4: config.json names no ", role, "_token_id for the vision tower"));
    }
  }
  OXI_ASSIGN_OR_RETURN(vision_, VisionTower::Load(cx_, weights_.file, vc, p.weight_dtype));
  return sdk::OkStatus();
}

int32_t Gemma4Model::SpecialToken(const char* role) const {
  for (const auto& s : cfg_.tokens.special_tokens) {
    if (s.first == role) return s.second;
  }
  return -1;
}

sdk::StatusOr<sdk::MediaOutput> Gemma4Model::EncodeMedia(const sdk::MediaInput& in) {
  if (in.kind == OXI_MEDIA_AUDIO) return EncodeAudio(in);
  if (in.kind != OXI_MEDIA_IMAGE) {
    return sdk::InvalidArgumentError(sdk::StrCat("gemma4: unknown media kind ", in.kind));
  }
  if (vision_ == nullptr) {
    return sdk::FailedPreconditionError("gemma4: this checkpoint has no vision tower");
  }
  if (cfg_.bidirectional_vision) {
    // Computing the image causally would give wrong answers without a sign.
    return sdk::UnimplementedError(
        "gemma4: this checkpoint's config.json sets use_bidirectional_attention "
        "\"vision\" (images attend both ways on sliding layers), which is not "
        "implemented yet; image input is refused (text works)");
  }
  const int budget = in.max_soft_tokens > 0 ? in.max_soft_tokens : image_cfg_.max_soft_tokens;
  ImageView view{in.pixels, in.width, in.height, in.channels};
  OXI_ASSIGN_OR_RETURN(ImagePatches patches, PreprocessImage(view, image_cfg_, budget));
  OXI_ASSIGN_OR_RETURN(std::vector<float> soft, vision_->Encode(patches));
  return Wrap("boi", "image", "eoi", soft);
}

sdk::MediaOutput Gemma4Model::Wrap(const char* open, const char* placeholder, const char* close,
                                   const std::vector<float>& middle) const {
  const int64_t H = cfg_.hidden_size, n = static_cast<int64_t>(middle.size()) / H;
  sdk::MediaOutput out;
  out.placeholder = SpecialToken(placeholder);
  out.tokens.assign(static_cast<size_t>(n + 2), out.placeholder);
  out.tokens.front() = SpecialToken(open);
  out.tokens.back() = SpecialToken(close);
  out.embedding_mask.assign(static_cast<size_t>(n + 2), 1);
  out.embedding_mask.front() = out.embedding_mask.back() = 0;
  out.embeddings.assign(static_cast<size_t>((n + 2) * H), 0.0f);
  std::copy(middle.begin(), middle.end(), out.embeddings.begin() + H);
  return out;
}

sdk::Status Gemma4Model::OpenAudio(const sdk::OpenParams& p, const std::string& config_text) {
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc doc, sdk::JsonDoc::Parse(config_text, "config.json"));
  AudioConfig ac;
  bool present = false;
  OXI_RETURN_IF_ERROR(ParseAudioConfig(doc.root(), &ac, &present));
  if (!present) return sdk::OkStatus();
  if (!weights_.file.Has("model.audio_tower.subsample_conv_projection.layer0.conv.weight")) {
    sdk::Log(p.host, OXI_LOG_INFO, "gemma4",
             "config.json has an audio_config but the weights no audio tower: no audio input");
    return sdk::OkStatus();
  }
  ac.text_hidden_size = cfg_.hidden_size;
  // The feature extractor's settings: processor_config.json's
  // "feature_extractor" (or the older preprocessor_config.json), else its
  // defaults.
  for (const char* name : {"processor_config.json", "preprocessor_config.json"}) {
    auto text = sdk::ReadFile(p.model_dir + "/" + name);
    if (!text.ok()) continue;
    OXI_ASSIGN_OR_RETURN(sdk::JsonDoc pdoc, sdk::JsonDoc::Parse(*text, name));
    const sdk::Json root = pdoc.root();
    if (root.Has("feature_extractor")) {
      OXI_ASSIGN_OR_RETURN(audio_cfg_, ParseAudioFeatureConfig(root["feature_extractor"]));
      break;
    }
    if (root.Has("feature_size")) {
      OXI_ASSIGN_OR_RETURN(audio_cfg_, ParseAudioFeatureConfig(root));
      break;
    }
  }
  for (const char* role : {"audio", "boa", "eoa"}) {
    if (SpecialToken(role) < 0) {
      return sdk::InvalidArgumentError(
          sdk::StrCat("gemma4: config.json names no ", role, "_token_id for the audio tower"));
    }
  }
  OXI_ASSIGN_OR_RETURN(
      audio_, AudioTower::Load(cx_, weights_.file, ac, audio_cfg_.feature_size, p.weight_dtype));
  return sdk::OkStatus();
}

sdk::StatusOr<sdk::MediaOutput> Gemma4Model::EncodeAudio(const sdk::MediaInput& in) {
  if (audio_ == nullptr) {
    return sdk::FailedPreconditionError("gemma4: this checkpoint has no audio tower");
  }
  if (in.sample_rate != audio_cfg_.sampling_rate) {
    return sdk::InvalidArgumentError(sdk::StrCat("gemma4: audio at ", in.sample_rate,
                                                 " Hz; the feature extractor takes ",
                                                 audio_cfg_.sampling_rate, " Hz"));
  }
  OXI_ASSIGN_OR_RETURN(AudioFeatures f, ExtractLogMel(in.samples, in.n_samples, audio_cfg_));
  // The mask is 1 on a prefix (the padding is at the end): the valid frames
  // are the first n_valid.
  for (int64_t i = 0; i < f.n_frames; ++i) {
    if ((f.mask[i] != 0) != (i < f.n_valid)) {
      return sdk::InternalError("gemma4: the audio frame mask is not a prefix");
    }
  }
  OXI_ASSIGN_OR_RETURN(std::vector<float> soft, audio_->Encode(f.features.data(), f.n_valid));
  return Wrap("boa", "audio", "eoa", soft);
}

}  // namespace gemma4
}  // namespace oxinfer
