#include "plugins/models/gemma4/gemma4_assistant.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>

#include "plugins/models/gemma4/gemma4_forward.h"

namespace oxinfer {
namespace gemma4 {
namespace {

using sdk::StrCat;

// token_ordering (i64 or i32 [vocab]) as int32 ids, each checked.
sdk::StatusOr<std::vector<int32_t>> TokenOrdering(const sdk::Weights& file, int64_t vocab) {
  const char* name = "masked_embedding.token_ordering";
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t, file.Get(name, {vocab}, /*float_only=*/false));
  if (t->dtype != OXI_DTYPE_I64 && t->dtype != OXI_DTYPE_I32) {
    return sdk::InvalidArgumentError(StrCat(file.source(), ": ", name, " must be i64 or i32"));
  }
  std::vector<int32_t> ids(static_cast<size_t>(vocab));
  for (int64_t i = 0; i < vocab; ++i) {
    int64_t v = 0;
    if (t->dtype == OXI_DTYPE_I64) {
      std::memcpy(&v, static_cast<const char*>(t->data) + 8 * i, 8);
    } else {
      int32_t v32 = 0;
      std::memcpy(&v32, static_cast<const char*>(t->data) + 4 * i, 4);
      v = v32;
    }
    if (v < 0 || v >= vocab) {
      return sdk::InvalidArgumentError(
          StrCat(file.source(), ": ", name, "[", i, "] = ", v, " is outside the vocabulary"));
    }
    ids[i] = static_cast<int32_t>(v);
  }
  return ids;
}

}  // namespace

sdk::StatusOr<std::unique_ptr<Assistant>> Assistant::Load(const sdk::Compute& cx,
                                                          const sdk::OpenParams& main_params,
                                                          const Gemma4Config& main) {
  std::unique_ptr<Assistant> a(new Assistant(cx));
  const std::string path = main_params.draft_dir + "/config.json";
  OXI_ASSIGN_OR_RETURN(std::string text, sdk::ReadFile(path));
  OXI_ASSIGN_OR_RETURN(a->cfg_, ParseGemma4AssistantConfig(text, path));
  OXI_RETURN_IF_ERROR(CheckAssistantFits(a->cfg_, main).WithContext(main_params.draft_dir));
  const Gemma4Config& c = a->cfg_.text;
  for (const LayerConfig& l : c.layers) a->source_.push_back(AssistantKvSource(main, l.sliding));

  sdk::OpenParams p = main_params;
  p.model_dir = main_params.draft_dir;
  // The ordered head reads rows of the embedding (GetRows), never the table
  // as a matrix, so it needs no Q8_0 copy of it (71 MB for the E4B
  // assistant's 262144 x 256).
  OXI_RETURN_IF_ERROR(
      LoadGemma4Weights(cx, p, c, &a->w_, /*matrix_head=*/!a->cfg_.use_ordered_embeddings));
  const sdk::Weights& file = a->w_.file;
  const int64_t H = c.hidden_size, B = a->cfg_.backbone_hidden_size;
  const auto matrix = [&](const char* name, int64_t n,
                          int64_t k) -> sdk::StatusOr<sdk::OwnedTensor> {
    OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t, file.Get(name, {n, k}, /*float_only=*/false));
    return cx.LoadWeight(file, t, n, k, p.weight_dtype);
  };
  OXI_ASSIGN_OR_RETURN(a->pre_projection_, matrix("pre_projection.weight", H, 2 * B));
  OXI_ASSIGN_OR_RETURN(a->post_projection_, matrix("post_projection.weight", B, H));
  if (a->cfg_.use_ordered_embeddings) {
    OXI_ASSIGN_OR_RETURN(a->centroids_,
                         matrix("masked_embedding.centroids.weight", a->cfg_.num_centroids, H));
    OXI_ASSIGN_OR_RETURN(a->ordering_, TokenOrdering(file, c.vocab_size));
  }
  return a;
}

sdk::Status Assistant::Draft(const sdk::DraftRequest& r, const SequenceStore& store,
                             const Gemma4Weights& main_w) {
  const Sequence& s = store.at(r.seq);
  const int64_t p = s.length, B = cfg_.backbone_hidden_size, V = cfg_.text.vocab_size;
  const int64_t row = p - 1 - s.hidden_pos0;
  if (p == 0 || row < 0 || (row + 1) * B > static_cast<int64_t>(s.hidden.size())) {
    return sdk::FailedPreconditionError(
        StrCat("gemma4: draft: sequence ", r.seq, " holds ", p, " positions but no hidden state ",
               "of its last one (feed it with a forward that asks for logits first)"));
  }
  std::vector<float> h(s.hidden.begin() + row * B, s.hidden.begin() + (row + 1) * B);
  int32_t token = r.next_token;
  std::vector<float> logits(static_cast<size_t>(V));
  for (int32_t step = 0; step < r.n_draft; ++step) {
    scratch_.Reset();
    OXI_ASSIGN_OR_RETURN(sdk::Tensor id, scratch_.I32(&token, 1));
    OXI_ASSIGN_OR_RETURN(sdk::Tensor e, scratch_.F32(1, B));
    OXI_ASSIGN_OR_RETURN(sdk::Tensor hh, scratch_.F32(1, B));
    OXI_ASSIGN_OR_RETURN(sdk::Tensor cat, scratch_.F32(1, 2 * B));
    OXI_ASSIGN_OR_RETURN(sdk::Tensor x, scratch_.F32(1, cfg_.text.hidden_size));
    // The main model's scaled embedding (its embed_tokens), then its hidden state.
    OXI_RETURN_IF_ERROR(cx_.GetRows(main_w.embed, id, e));
    OXI_RETURN_IF_ERROR(cx_.Scale(e, e, std::sqrt(static_cast<float>(B))));
    OXI_RETURN_IF_ERROR(cx_.Write(hh, h.data()));
    OXI_RETURN_IF_ERROR(cx_.Concat(e, hh, cat));
    OXI_RETURN_IF_ERROR(cx_.MatMul(cat, pre_projection_, x));
    OXI_ASSIGN_OR_RETURN(token, Step(x, s, p, h.data(), logits.data()));
    r.tokens_out[step] = token;
    if (r.logits_out != nullptr) std::copy(logits.begin(), logits.end(), r.logits_out + step * V);
    if (r.hidden_out != nullptr) std::copy(h.begin(), h.end(), r.hidden_out + step * B);
  }
  return sdk::OkStatus();
}

sdk::StatusOr<int32_t> Assistant::Step(const sdk::Tensor& x, const Sequence& s, int64_t p,
                                       float* hidden, float* logits) {
  const Gemma4Config& c = cfg_.text;
  const int64_t H = c.hidden_size, nq = c.num_heads;
  const float eps = static_cast<float>(c.rms_norm_eps);
  const int32_t p32 = static_cast<int32_t>(p);
  OXI_ASSIGN_OR_RETURN(sdk::Tensor pos, scratch_.I32(&p32, 1));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor ring_pos,
                       scratch_.I32(s.ring_pos.data(), static_cast<int64_t>(s.ring_pos.size())));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor hn, scratch_.F32(1, H));
  for (int li = 0; li < c.num_layers; ++li) {
    const LayerConfig& l = c.layers[li];
    const LayerWeights& lw = w_.layers[li];
    const int64_t hd = l.head_dim;
    OXI_ASSIGN_OR_RETURN(sdk::Tensor q, scratch_.F32(1, nq * hd));
    OXI_ASSIGN_OR_RETURN(sdk::Tensor attn, scratch_.F32(1, nq * hd));
    OXI_RETURN_IF_ERROR(cx_.RmsNorm(x, lw.input_norm, hn, eps));
    OXI_RETURN_IF_ERROR(cx_.MatMul(hn, lw.q_proj, q));
    OXI_RETURN_IF_ERROR(cx_.RmsNorm(q.Reshape(nq, hd), lw.q_norm, q.Reshape(nq, hd), eps));
    OXI_RETURN_IF_ERROR(
        cx_.Rope(q, pos, w_.rope_tables[lw.rope_table], q, c.num_heads, l.head_dim, l.head_dim));
    const LayerCache& kv = s.caches[source_[li]];
    oxi_attention_args args = sdk::Compute::AttentionArgs();
    args.q = q;
    args.out = attn;
    args.q_pos = pos;
    if (l.sliding) {
      // Positions [p - 1 - window, p - 1]: p - kv_pos < window + 2.
      args.k = kv.k.t;
      args.v = kv.v.t;
      args.kv_pos = ring_pos;
      args.window = c.sliding_window + 2;
    } else {
      args.k = kv.k.t.Rows(0, p);
      args.v = kv.v.t.Rows(0, p);
    }
    args.n_heads = c.num_heads;
    args.n_kv_heads = l.num_kv_heads;
    args.head_dim = l.head_dim;
    args.v_head_dim = l.head_dim;
    args.scale = 1.0f;
    args.causal = 1;
    OXI_RETURN_IF_ERROR(cx_.Attention(args).WithContext(StrCat("gemma4 assistant: layer ", li)));
    OXI_RETURN_IF_ERROR(cx_.MatMul(attn, lw.o_proj, hn));
    OXI_RETURN_IF_ERROR(cx_.RmsNorm(hn, lw.post_attn_norm, hn, eps));
    OXI_RETURN_IF_ERROR(cx_.Add(x, hn, x));
    OXI_ASSIGN_OR_RETURN(sdk::Tensor gate, scratch_.F32(1, l.intermediate_size));
    OXI_ASSIGN_OR_RETURN(sdk::Tensor up, scratch_.F32(1, l.intermediate_size));
    OXI_RETURN_IF_ERROR(FeedForward(cx_, lw, eps, x, hn, gate, up));
    if (lw.layer_scalar != 1.0f) OXI_RETURN_IF_ERROR(cx_.Scale(x, x, lw.layer_scalar));
  }
  OXI_ASSIGN_OR_RETURN(sdk::Tensor n, scratch_.F32(1, H));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor hb, scratch_.F32(1, cfg_.backbone_hidden_size));
  OXI_RETURN_IF_ERROR(cx_.RmsNorm(x, w_.final_norm, n, eps));
  OXI_RETURN_IF_ERROR(cx_.MatMul(n, post_projection_, hb));
  OXI_RETURN_IF_ERROR(cx_.Read(hb, hidden));
  return Head(n, logits);
}

// The LM head on the final-norm state n: the tied embeddings, or (ordered)
// only the tokens of the top centroids, every other logit below them all.
sdk::StatusOr<int32_t> Assistant::Head(const sdk::Tensor& n, float* logits) {
  const int64_t V = cfg_.text.vocab_size;
  if (!cfg_.use_ordered_embeddings) {
    OXI_ASSIGN_OR_RETURN(sdk::Tensor lg, scratch_.F32(1, V));
    OXI_RETURN_IF_ERROR(cx_.MatMul(n, w_.lm_head(), lg));
    OXI_RETURN_IF_ERROR(cx_.Read(lg, logits));
    return static_cast<int32_t>(std::max_element(logits, logits + V) - logits);
  }
  const int64_t C = cfg_.num_centroids, K = cfg_.tokens_per_centroid();
  const int64_t top = cfg_.centroid_intermediate_top_k;
  OXI_ASSIGN_OR_RETURN(sdk::Tensor cl, scratch_.F32(1, C));
  OXI_RETURN_IF_ERROR(cx_.MatMul(n, centroids_, cl));
  std::vector<float> score(static_cast<size_t>(C));
  OXI_RETURN_IF_ERROR(cx_.Read(cl, score.data()));
  std::vector<int32_t> order(static_cast<size_t>(C));
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + top, order.end(), [&](int32_t a, int32_t b) {
    return score[a] > score[b] || (score[a] == score[b] && a < b);
  });
  std::vector<int32_t> ids;
  for (int64_t j = 0; j < top; ++j) {
    const int32_t* group = ordering_.data() + order[j] * K;
    ids.insert(ids.end(), group, group + K);
  }
  const int64_t m = static_cast<int64_t>(ids.size());
  OXI_ASSIGN_OR_RETURN(sdk::Tensor id_t, scratch_.I32(ids.data(), m));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor rows, scratch_.F32(m, cfg_.text.hidden_size));
  OXI_ASSIGN_OR_RETURN(sdk::Tensor lg, scratch_.F32(1, m));
  OXI_RETURN_IF_ERROR(cx_.GetRows(w_.embed, id_t, rows));
  OXI_RETURN_IF_ERROR(cx_.MatMul(n, rows, lg));
  std::vector<float> sel(static_cast<size_t>(m));
  OXI_RETURN_IF_ERROR(cx_.Read(lg, sel.data()));
  const float fill = *std::min_element(sel.begin(), sel.end()) - 1.0f;
  std::fill(logits, logits + V, fill);
  int32_t best = -1;
  for (int64_t j = 0; j < m; ++j) {
    logits[ids[j]] = sel[j];
    if (best < 0 || sel[j] > logits[best] || (sel[j] == logits[best] && ids[j] < best)) {
      best = ids[j];
    }
  }
  return best;
}

}  // namespace gemma4
}  // namespace oxinfer
