// oxinfer SDK: ModelPlugin<T> writes a model plugin's descriptor, its C table
// (oxi_model_iface) and the error plumbing around a C++ class T:
//
//   class MyModel {
//    public:
//     static int32_t Probe(const sdk::ProbeInput& in, std::string* reason);
//     static sdk::StatusOr<std::unique_ptr<MyModel>> Open(const sdk::OpenParams& p);
//     sdk::ModelInfo Info() const;
//     // Language models (each optional):
//     sdk::Status Forward(const std::vector<sdk::BatchEntry>& batch);
//     sdk::Status Truncate(int32_t seq, int64_t n_keep);
//     sdk::Status CopySequence(int32_t src, int32_t dst, int64_t n);
//     void FreeSequence(int32_t seq);
//     // Models with OXI_MODEL_DRAFT (ABI 2.2):
//     sdk::Status Draft(const sdk::DraftRequest& request);
//     // Text-to-image models:
//     sdk::StatusOr<sdk::Image> GenerateImage(const oxi_image_request& request);
//   };
//   OXINFER_MODEL_PLUGIN(MyModel, "mymodel", "1.0.0", "what it runs")
//
// The adapter checks every argument the host passes (sizes, sequence ids,
// token ids, buffers) before T sees it, turns exceptions into OXI_INTERNAL,
// and leaves the entries of methods T lacks NULL.
#ifndef OXINFER_SDK_MODEL_PLUGIN_HPP_
#define OXINFER_SDK_MODEL_PLUGIN_HPP_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "oxinfer/model_abi.h"
#include "oxinfer/sdk/common.hpp"
#include "oxinfer/sdk/status.hpp"
#include "oxinfer/sdk/weight_recorder.hpp"

namespace oxinfer {
namespace sdk {

struct ProbeInput {
  std::string model_dir;
  std::string config_json;  // config.json, or model_index.json for a diffusers folder; may be empty
};

struct OpenParams {
  std::string model_dir;
  const oxi_backend_iface* backend = nullptr;
  oxi_dtype weight_dtype = OXI_DTYPE_INVALID;  // INVALID: as stored
  bool use_mmap = false;
  int64_t context_length = 0;  // 0: the model's
  int32_t prefill_chunk = 0;   // 0: the plugin's default
  int32_t max_sequences = 1;
  const oxi_host_services* host = nullptr;
  void (*progress_fn)(void* ctx, double done, double total, const char* what) = nullptr;
  void* progress_ctx = nullptr;
  bool draft = false;     // ABI 2.2: the host will call draft
  std::string draft_dir;  // ABI 2.3: a separate drafter checkpoint ("": none)
  // ABI 2.3 (--save-quantized): non-null when the host asks for the weights
  // as loaded; attach it to the checkpoint (Weights::RecordInto).
  std::shared_ptr<WeightRecorder> recorder;
  void Progress(double done, double total, const char* what) const {
    if (progress_fn != nullptr) progress_fn(progress_ctx, done, total, what);
  }
};

// What oxi_model_info carries, as C++ values (the adapter keeps them alive).
struct ModelInfo {
  uint32_t capabilities = OXI_MODEL_TEXT;
  std::string family;
  int32_t vocab_size = 0;
  int32_t hidden_size = 0;
  int64_t context_length = 0;
  int32_t max_sequences = 1;
  bool can_rewind = true;
  std::string default_chat_template;  // "": none
  std::vector<int32_t> stop_tokens;
  std::vector<std::pair<std::string, int32_t>> special_tokens;  // role, id
  std::string reasoning_start, reasoning_end;                   // "": none
};

// One checked entry of a forward.
struct BatchEntry {
  int32_t seq = 0;
  int64_t n = 0;
  const int32_t* tokens = nullptr;          // may be null when every position is an embedding
  const float* embeddings = nullptr;        // [n][hidden_size] or null
  const uint8_t* embedding_mask = nullptr;  // null with embeddings: every position
  const int32_t* positions = nullptr;       // null: consecutive
  oxi_logits_mode logits = OXI_LOGITS_NONE;
  float* logits_out = nullptr;
  // Whether position i takes embeddings[i] instead of its token's embedding.
  bool UsesEmbedding(int64_t i) const {
    return embeddings != nullptr && (embedding_mask == nullptr || embedding_mask[i] != 0);
  }
};

// A checked oxi_draft_args (ABI 2.2); the buffers are the host's.
struct DraftRequest {
  int32_t seq = 0;
  int32_t next_token = 0;
  int32_t n_draft = 0;
  int32_t* tokens_out = nullptr;  // [n_draft]
  float* logits_out = nullptr;    // [n_draft][vocab] or null
  float* hidden_out = nullptr;    // [n_draft][hidden] or null
};

struct Image {
  int32_t width = 0, height = 0, channels = 3;
  std::vector<uint8_t> pixels;  // height rows of width * channels bytes
};

// One attachment to encode (model_abi.h oxi_media_input), pointers borrowed.
struct MediaInput {
  oxi_media_kind kind = OXI_MEDIA_IMAGE;
  const uint8_t* pixels = nullptr;  // IMAGE
  int32_t width = 0, height = 0, channels = 3;
  const float* samples = nullptr;  // AUDIO
  int64_t n_samples = 0;
  int32_t sample_rate = 0;
  int32_t max_soft_tokens = 0;  // IMAGE; 0: the model's default
};

// What replaces the attachment's placeholder (oxi_media_output).
struct MediaOutput {
  int32_t placeholder = 0;
  std::vector<int32_t> tokens;
  std::vector<uint8_t> embedding_mask;
  std::vector<float> embeddings;  // [tokens][hidden_size], zero where the mask is 0
};

namespace internal {

template <typename T, typename = void>
struct HasForward : std::false_type {};
template <typename T>
struct HasForward<T, std::void_t<decltype(std::declval<T&>().Forward(
                         std::declval<const std::vector<BatchEntry>&>()))>> : std::true_type {};
template <typename T, typename = void>
struct HasTruncate : std::false_type {};
template <typename T>
struct HasTruncate<T, std::void_t<decltype(std::declval<T&>().Truncate(int32_t{}, int64_t{}))>>
    : std::true_type {};
template <typename T, typename = void>
struct HasCopySequence : std::false_type {};
template <typename T>
struct HasCopySequence<
    T, std::void_t<decltype(std::declval<T&>().CopySequence(int32_t{}, int32_t{}, int64_t{}))>>
    : std::true_type {};
template <typename T, typename = void>
struct HasFreeSequence : std::false_type {};
template <typename T>
struct HasFreeSequence<T, std::void_t<decltype(std::declval<T&>().FreeSequence(int32_t{}))>>
    : std::true_type {};
template <typename T, typename = void>
struct HasDraft : std::false_type {};
template <typename T>
struct HasDraft<
    T, std::void_t<decltype(std::declval<T&>().Draft(std::declval<const DraftRequest&>()))>>
    : std::true_type {};
template <typename T, typename = void>
struct HasEncodeMedia : std::false_type {};
template <typename T>
struct HasEncodeMedia<
    T, std::void_t<decltype(std::declval<T&>().EncodeMedia(std::declval<const MediaInput&>()))>>
    : std::true_type {};
template <typename T, typename = void>
struct HasGenerateImage : std::false_type {};
template <typename T>
struct HasGenerateImage<T, std::void_t<decltype(std::declval<T&>().GenerateImage(
                               std::declval<const oxi_image_request&>()))>> : std::true_type {};

}  // namespace internal

template <typename T>
class ModelPlugin {
 public:
  static const oxi_model_iface* Iface() {
    static const oxi_model_iface iface = MakeIface();
    return &iface;
  }

 private:
  // What an oxi_model* points to.
  struct Holder {
    std::unique_ptr<T> model;
    ModelInfo info;
    std::vector<oxi_special_token> specials;
  };
  static Holder* H(oxi_model* m) { return reinterpret_cast<Holder*>(m); }
  static const Holder* H(const oxi_model* m) { return reinterpret_cast<const Holder*>(m); }

  static oxi_model_iface MakeIface() {
    oxi_model_iface t;
    std::memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    t.probe = &Probe;
    t.open = &Open;
    t.close = &Close;
    t.info = &Info;
    if constexpr (internal::HasForward<T>::value) t.forward = &Forward;
    if constexpr (internal::HasTruncate<T>::value) t.seq_truncate = &SeqTruncate;
    if constexpr (internal::HasCopySequence<T>::value) t.seq_copy = &SeqCopy;
    if constexpr (internal::HasFreeSequence<T>::value) t.seq_free = &SeqFree;
    if constexpr (internal::HasGenerateImage<T>::value) {
      t.generate_image = &GenerateImage;
      t.free_image = &FreeImage;
    }
    if constexpr (internal::HasEncodeMedia<T>::value) {
      t.encode_media = &EncodeMedia;
      t.free_media = &FreeMedia;
    }
    if constexpr (internal::HasDraft<T>::value) t.draft = &Draft;
    return t;
  }

  static int32_t Probe(const char* model_dir, const char* config_json, char* reason,
                       size_t reason_size) {
    int32_t score = 0;
    const int32_t rc = Guard(reason, reason_size, [&]() -> int32_t {
      ProbeInput in;
      in.model_dir = model_dir != nullptr ? model_dir : "";
      in.config_json = config_json != nullptr ? config_json : "";
      std::string why;
      score = T::Probe(in, &why);
      if (score <= 0) WriteMessage(reason, reason_size, why.empty() ? "not its model" : why);
      return OXI_OK;
    });
    return rc == OXI_OK && score > 0 ? score : 0;
  }

  static int32_t Open(const oxi_model_open_params* p, oxi_model** model, char* error,
                      size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      if (p == nullptr || model == nullptr || p->model_dir == nullptr ||
          !OXI_HAS_FIELD(p, oxi_model_open_params, backend)) {
        return InvalidArgumentError("open: null or truncated arguments");
      }
      *model = nullptr;
      OpenParams o;
      o.model_dir = p->model_dir;
      o.backend = p->backend;
      o.host = Host();
      if (OXI_HAS_FIELD(p, oxi_model_open_params, weight_dtype)) o.weight_dtype = p->weight_dtype;
      if (OXI_HAS_FIELD(p, oxi_model_open_params, use_mmap)) o.use_mmap = p->use_mmap != 0;
      if (OXI_HAS_FIELD(p, oxi_model_open_params, context_length)) {
        o.context_length = p->context_length;
      }
      if (OXI_HAS_FIELD(p, oxi_model_open_params, prefill_chunk)) {
        o.prefill_chunk = p->prefill_chunk;
      }
      if (OXI_HAS_FIELD(p, oxi_model_open_params, max_sequences) && p->max_sequences > 0) {
        o.max_sequences = p->max_sequences;
      }
      if (OXI_HAS_FIELD(p, oxi_model_open_params, progress_ctx)) {
        o.progress_fn = p->progress;
        o.progress_ctx = p->progress_ctx;
      }
      if (OXI_HAS_FIELD(p, oxi_model_open_params, draft)) o.draft = p->draft != 0;
      if (OXI_HAS_FIELD(p, oxi_model_open_params, draft_dir) && p->draft_dir != nullptr) {
        o.draft_dir = p->draft_dir;
      }
      if (o.context_length < 0 || o.prefill_chunk < 0 || o.max_sequences > 4096) {
        return InvalidArgumentError(StrCat("open: context_length ", o.context_length,
                                           ", prefill_chunk ", o.prefill_chunk, ", max_sequences ",
                                           o.max_sequences, ": out of range"));
      }
      if (OXI_HAS_FIELD(p, oxi_model_open_params, record_ctx) && p->record_weight != nullptr) {
        o.recorder = std::make_shared<WeightRecorder>(p->record_weight, p->record_ctx);
      }
      StatusOr<std::unique_ptr<T>> opened = T::Open(o);
      if (o.recorder != nullptr) o.recorder->Close();
      if (!opened.ok()) return opened.status();
      std::unique_ptr<T> m = std::move(*opened);
      if (o.recorder != nullptr && o.recorder->count() == 0) {
        return UnimplementedError("open: this model plugin does not report its weights as loaded");
      }
      auto holder = std::make_unique<Holder>();
      holder->model = std::move(m);
      holder->info = holder->model->Info();
      for (const auto& s : holder->info.special_tokens) {
        holder->specials.push_back(oxi_special_token{s.first.c_str(), s.second, 0});
      }
      *model = reinterpret_cast<oxi_model*>(holder.release());
      return OkStatus();
    });
  }

  static void Close(oxi_model* model) {
    Guard([&]() -> int32_t {
      delete H(model);
      return OXI_OK;
    });
  }

  static int32_t Info(const oxi_model* model, oxi_model_info* out) {
    if (model == nullptr || out == nullptr || out->struct_size < sizeof(uint32_t)) {
      return OXI_INVALID_ARGUMENT;
    }
    const Holder* h = H(model);
    const ModelInfo& i = h->info;
    oxi_model_info full;
    std::memset(&full, 0, sizeof full);
    full.struct_size = sizeof full;
    full.capabilities = i.capabilities;
    full.family = i.family.c_str();
    full.vocab_size = i.vocab_size;
    full.hidden_size = i.hidden_size;
    full.context_length = i.context_length;
    full.max_sequences = i.max_sequences;
    full.can_rewind = i.can_rewind ? 1 : 0;
    full.default_chat_template =
        i.default_chat_template.empty() ? nullptr : i.default_chat_template.c_str();
    full.stop_tokens = i.stop_tokens.data();
    full.n_stop_tokens = static_cast<int32_t>(i.stop_tokens.size());
    full.special_tokens = h->specials.data();
    full.n_special_tokens = static_cast<int32_t>(h->specials.size());
    full.reasoning_start = i.reasoning_start.empty() ? nullptr : i.reasoning_start.c_str();
    full.reasoning_end = i.reasoning_end.empty() ? nullptr : i.reasoning_end.c_str();
    const uint32_t size = out->struct_size < sizeof full ? out->struct_size : sizeof full;
    std::memcpy(out, &full, size);
    out->struct_size = size;
    return OXI_OK;
  }

  // Checks the batch against the model's info and converts it.
  static Status CheckBatch(const Holder& h, const oxi_forward_args* args,
                           std::vector<BatchEntry>* out) {
    if (args == nullptr || args->struct_size < sizeof(oxi_forward_args) || args->n_entries < 0 ||
        (args->n_entries > 0 && args->entries == nullptr)) {
      return InvalidArgumentError("forward: null or truncated arguments");
    }
    const ModelInfo& info = h.info;
    std::set<int32_t> seen;
    for (int32_t e = 0; e < args->n_entries; ++e) {
      const oxi_batch_entry* b = args->entries[e];
      const std::string where = StrCat("forward: entry ", e);
      if (b == nullptr || !OXI_HAS_FIELD(b, oxi_batch_entry, logits_out)) {
        return InvalidArgumentError(where + ": null or truncated");
      }
      if (b->seq_id < 0 || b->seq_id >= info.max_sequences) {
        return InvalidArgumentError(
            StrCat(where, ": sequence id ", b->seq_id, " outside [0, ", info.max_sequences, ")"));
      }
      if (!seen.insert(b->seq_id).second) {
        return InvalidArgumentError(StrCat(where, ": sequence ", b->seq_id, " appears twice"));
      }
      if (b->n_tokens <= 0) return InvalidArgumentError(where + ": no positions");
      if (b->tokens == nullptr && b->embeddings == nullptr) {
        return InvalidArgumentError(where + ": neither tokens nor embeddings");
      }
      if (b->embeddings != nullptr && !(info.capabilities & OXI_MODEL_EMBEDDING_INPUT)) {
        return InvalidArgumentError(where + ": this model takes no embedding input");
      }
      if (b->tokens == nullptr && b->embedding_mask != nullptr) {
        for (int64_t i = 0; i < b->n_tokens; ++i) {
          if (b->embedding_mask[i] == 0) {
            return InvalidArgumentError(
                StrCat(where, ": position ", i, " has neither a token nor an embedding"));
          }
        }
      }
      if (b->tokens != nullptr) {
        for (int64_t i = 0; i < b->n_tokens; ++i) {
          if (b->tokens[i] < 0 || b->tokens[i] >= info.vocab_size) {
            return InvalidArgumentError(StrCat(where, ": token id ", b->tokens[i],
                                               " outside the vocabulary of ", info.vocab_size));
          }
        }
      }
      if (b->logits < OXI_LOGITS_NONE || b->logits > OXI_LOGITS_ALL) {
        return InvalidArgumentError(StrCat(where, ": unknown logits mode ", b->logits));
      }
      if (b->logits != OXI_LOGITS_NONE && b->logits_out == nullptr) {
        return InvalidArgumentError(where + ": logits asked for without a buffer");
      }
      BatchEntry be;
      be.seq = b->seq_id;
      be.n = b->n_tokens;
      be.tokens = b->tokens;
      be.embeddings = b->embeddings;
      be.embedding_mask = b->embedding_mask;
      be.positions = b->positions;
      be.logits = static_cast<oxi_logits_mode>(b->logits);
      be.logits_out = b->logits_out;
      out->push_back(be);
    }
    return OkStatus();
  }

  static Status CheckSeq(const Holder& h, int32_t seq) {
    if (seq < 0 || seq >= h.info.max_sequences) {
      return InvalidArgumentError(
          StrCat("sequence id ", seq, " outside [0, ", h.info.max_sequences, ")"));
    }
    return OkStatus();
  }

  static int32_t Forward(oxi_model* model, const oxi_forward_args* args, char* error,
                         size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      if (model == nullptr) return InvalidArgumentError("forward: no model");
      std::vector<BatchEntry> batch;
      OXI_RETURN_IF_ERROR(CheckBatch(*H(model), args, &batch));
      if (batch.empty()) return OkStatus();
      if constexpr (internal::HasForward<T>::value) {
        return H(model)->model->Forward(batch);
      } else {
        return UnimplementedError("forward");
      }
    });
  }

  static int32_t SeqTruncate(oxi_model* model, int32_t seq, int64_t n_keep, char* error,
                             size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      if (model == nullptr) return InvalidArgumentError("seq_truncate: no model");
      OXI_RETURN_IF_ERROR(CheckSeq(*H(model), seq));
      if (n_keep < 0) return InvalidArgumentError("seq_truncate: negative length");
      if constexpr (internal::HasTruncate<T>::value) {
        return H(model)->model->Truncate(seq, n_keep);
      } else {
        return UnimplementedError("seq_truncate");
      }
    });
  }

  static int32_t SeqCopy(oxi_model* model, int32_t src, int32_t dst, int64_t n, char* error,
                         size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      if (model == nullptr) return InvalidArgumentError("seq_copy: no model");
      OXI_RETURN_IF_ERROR(CheckSeq(*H(model), src));
      OXI_RETURN_IF_ERROR(CheckSeq(*H(model), dst));
      if (n < 0) return InvalidArgumentError("seq_copy: negative length");
      if (src == dst) return InvalidArgumentError("seq_copy: source and destination are the same");
      if constexpr (internal::HasCopySequence<T>::value) {
        return H(model)->model->CopySequence(src, dst, n);
      } else {
        return UnimplementedError("seq_copy");
      }
    });
  }

  static void SeqFree(oxi_model* model, int32_t seq) {
    Guard([&]() -> int32_t {
      if (model == nullptr || !CheckSeq(*H(model), seq).ok()) return OXI_INVALID_ARGUMENT;
      if constexpr (internal::HasFreeSequence<T>::value) H(model)->model->FreeSequence(seq);
      return OXI_OK;
    });
  }

  static int32_t Draft(oxi_model* model, const oxi_draft_args* args, char* error,
                       size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      if (model == nullptr || args == nullptr || !OXI_HAS_FIELD(args, oxi_draft_args, hidden_out) ||
          args->tokens_out == nullptr) {
        return InvalidArgumentError("draft: null or truncated arguments");
      }
      const Holder& h = *H(model);
      OXI_RETURN_IF_ERROR(CheckSeq(h, args->seq_id));
      if (args->next_token < 0 || args->next_token >= h.info.vocab_size) {
        return InvalidArgumentError(StrCat("draft: token id ", args->next_token,
                                           " outside the vocabulary of ", h.info.vocab_size));
      }
      if (args->n_draft < 1 || args->n_draft > 64) {
        return InvalidArgumentError(StrCat("draft: ", args->n_draft, " tokens asked (1 to 64)"));
      }
      if constexpr (internal::HasDraft<T>::value) {
        DraftRequest r;
        r.seq = args->seq_id;
        r.next_token = args->next_token;
        r.n_draft = args->n_draft;
        r.tokens_out = args->tokens_out;
        r.logits_out = args->logits_out;
        r.hidden_out = args->hidden_out;
        return H(model)->model->Draft(r);
      } else {
        return UnimplementedError("draft");
      }
    });
  }

  static int32_t GenerateImage(oxi_model* model, const oxi_image_request* request, oxi_image* out,
                               char* error, size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      if (model == nullptr || request == nullptr || out == nullptr ||
          !OXI_HAS_FIELD(request, oxi_image_request, seed) || request->prompt == nullptr) {
        return InvalidArgumentError("generate_image: null or truncated arguments");
      }
      if constexpr (internal::HasGenerateImage<T>::value) {
        OXI_ASSIGN_OR_RETURN(Image img, H(model)->model->GenerateImage(*request));
        const size_t n = img.pixels.size();
        uint8_t* pixels = static_cast<uint8_t*>(std::malloc(n == 0 ? 1 : n));
        if (pixels == nullptr) return ResourceExhaustedError("generate_image: out of memory");
        if (n != 0) std::memcpy(pixels, img.pixels.data(), n);
        out->struct_size = sizeof(oxi_image);
        out->width = img.width;
        out->height = img.height;
        out->channels = img.channels;
        out->pixels = pixels;
        return OkStatus();
      } else {
        return UnimplementedError("generate_image");
      }
    });
  }

  static int32_t EncodeMedia(oxi_model* model, const oxi_media_input* in, oxi_media_output* out,
                             char* error, size_t error_size) {
    return Guard(error, error_size, [&]() -> Status {
      if (model == nullptr || in == nullptr || out == nullptr ||
          !OXI_HAS_FIELD(in, oxi_media_input, max_soft_tokens) ||
          out->struct_size < sizeof(oxi_media_output)) {
        return InvalidArgumentError("encode_media: null or truncated arguments");
      }
      MediaInput m;
      m.kind = static_cast<oxi_media_kind>(in->kind);
      if (m.kind == OXI_MEDIA_IMAGE) {
        if (in->image.pixels == nullptr || in->image.width <= 0 || in->image.height <= 0) {
          return InvalidArgumentError("encode_media: an image without pixels");
        }
        m.pixels = in->image.pixels;
        m.width = in->image.width;
        m.height = in->image.height;
        m.channels = in->image.channels;
      } else if (m.kind == OXI_MEDIA_AUDIO) {
        if (in->samples == nullptr || in->n_samples <= 0) {
          return InvalidArgumentError("encode_media: an audio clip without samples");
        }
        m.samples = in->samples;
        m.n_samples = in->n_samples;
        m.sample_rate = in->sample_rate;
      } else {
        return InvalidArgumentError(StrCat("encode_media: unknown media kind ", in->kind));
      }
      m.max_soft_tokens = in->max_soft_tokens;
      OXI_ASSIGN_OR_RETURN(MediaOutput o, H(model)->model->EncodeMedia(m));
      const size_t n = o.tokens.size();
      const int32_t hidden = H(model)->info.hidden_size;
      if (o.embedding_mask.size() != n || o.embeddings.size() != n * hidden) {
        return InternalError("encode_media: inconsistent output sizes");
      }
      oxi_media_output r;
      std::memset(&r, 0, sizeof r);
      r.struct_size = sizeof r;
      r.placeholder = o.placeholder;
      r.hidden_size = hidden;
      r.n_tokens = static_cast<int64_t>(n);
      r.tokens = static_cast<int32_t*>(std::malloc(n * sizeof(int32_t) + 1));
      r.embedding_mask = static_cast<uint8_t*>(std::malloc(n + 1));
      r.embeddings = static_cast<float*>(std::malloc(o.embeddings.size() * sizeof(float) + 1));
      if (r.tokens == nullptr || r.embedding_mask == nullptr || r.embeddings == nullptr) {
        FreeMedia(&r);
        return ResourceExhaustedError("encode_media: out of memory");
      }
      std::memcpy(r.tokens, o.tokens.data(), n * sizeof(int32_t));
      std::memcpy(r.embedding_mask, o.embedding_mask.data(), n);
      std::memcpy(r.embeddings, o.embeddings.data(), o.embeddings.size() * sizeof(float));
      for (size_t i = 0; i < n; ++i) r.n_soft_tokens += o.embedding_mask[i] != 0;
      *out = r;
      return OkStatus();
    });
  }

  static void FreeMedia(oxi_media_output* out) {
    if (out == nullptr) return;
    std::free(out->tokens);
    std::free(out->embedding_mask);
    std::free(out->embeddings);
    out->tokens = nullptr;
    out->embedding_mask = nullptr;
    out->embeddings = nullptr;
  }

  static void FreeImage(oxi_image* image) {
    if (image == nullptr) return;
    std::free(image->pixels);
    image->pixels = nullptr;
  }
};

// The descriptor and the entry symbol of a model plugin over class T.
#define OXINFER_MODEL_PLUGIN(T, name, version, description)                                 \
  namespace {                                                                               \
  int32_t OxiModelScore_(const oxi_host_services*, char*, size_t) { return 1; }             \
  const void* OxiModelIface_(const oxi_host_services* host, char*, size_t) {                \
    ::oxinfer::sdk::HostSlot() = host;                                                      \
    return ::oxinfer::sdk::ModelPlugin<T>::Iface();                                         \
  }                                                                                         \
  const oxi_plugin kOxiModelPlugin_ = {                                                     \
      sizeof(oxi_plugin), OXI_ABI_MAJOR,   OXI_ABI_MINOR,  OXI_PLUGIN_MODEL, name, version, \
      description,        &OxiModelScore_, &OxiModelIface_};                                \
  }                                                                                         \
  extern "C" OXI_EXPORT const oxi_plugin* oxinfer_plugin_entry(void) { return &kOxiModelPlugin_; }

}  // namespace sdk
}  // namespace oxinfer

#endif  // OXINFER_SDK_MODEL_PLUGIN_HPP_
