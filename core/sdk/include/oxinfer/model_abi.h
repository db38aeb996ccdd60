/* oxinfer plugin ABI 2: model plugins.
 *
 * A model plugin recognises checkpoints (probe), opens one on the backend the
 * host composed (open), tells the host what it needs to know about it (info),
 * and computes: a forward over a batch of sequences for language models, or
 * an image for text-to-image models.
 *
 * Sequences. A language model holds the state of several sequences at once
 * (KV caches, recurrent states), each named by a small id the host picks
 * (0 <= seq_id < info.max_sequences). A sequence starts empty, grows by
 * forward, and is shortened (seq_truncate), forked (seq_copy) or dropped
 * (seq_free) by the host. After a failed forward the sequences of that batch
 * are in an undefined state: the host frees them (seq_free) before reuse.
 *
 * Threading: the host calls one model from one thread at a time; it batches
 * concurrent conversations into one forward.
 */
#ifndef OXINFER_MODEL_ABI_H_
#define OXINFER_MODEL_ABI_H_

#include "oxinfer/abi_common.h"
#include "oxinfer/backend_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct oxi_model oxi_model; /* opaque, owned by the plugin */

typedef struct oxi_model_open_params {
  uint32_t struct_size;
  const char* model_dir;
  /* The composed backend; borrowed, valid until close. */
  const oxi_backend_iface* backend;
  oxi_dtype weight_dtype; /* OXI_DTYPE_INVALID: as stored; Q8_0 / Q4_0: quantise at load */
  int32_t use_mmap;
  int64_t context_length; /* 0: model default */
  int32_t prefill_chunk;  /* tokens per forward block; 0: plugin default */
  int32_t max_sequences;  /* sequences the host keeps at once; 0: 1 */
  /* Optional: loading progress, `done` of `total` units (bytes, tensors...)
   * of the stage named `what`; may be called often. */
  void (*progress)(void* ctx, double done, double total, const char* what);
  void* progress_ctx;
  /* ABI 2.2: 1 when the host will call draft (OXI_MODEL_DRAFT): the model
   * loads its drafting head and keeps what it needs per sequence (the hidden
   * states drafting starts from). 0: it may leave both out. */
  int32_t draft;
  /* ABI 2.3: a separate drafter checkpoint for speculative decoding (a folder,
   * e.g. Gemma 4's assistant, whose layers read this model's caches); the
   * model loads it beside itself and drafts with it (OXI_MODEL_DRAFT). NULL:
   * none. A plugin that has no such drafter for `model_dir` refuses it. */
  const char* draft_dir;
  /* ABI 2.3: optional (NULL: not asked). Called during open once for every
   * weight the model keeps, in the form it keeps it (after quantisation and
   * layout conversion, as held for this backend: dtype, shape and bytes in
   * host memory, valid during the call), so that the host can write the
   * checkpoint as loaded (--save-quantized). A non-zero return fails open
   * with the message written to `error`. */
  int32_t (*record_weight)(void* ctx, const oxi_weight_tensor* tensor, char* error,
                           size_t error_size);
  void* record_ctx;
} oxi_model_open_params;

/* oxi_model_info.capabilities */
#define OXI_MODEL_TEXT 1u            /* forward over token sequences, logits out */
#define OXI_MODEL_EMBEDDING_INPUT 2u /* forward accepts embedding rows (soft tokens) */
#define OXI_MODEL_IMAGE_OUTPUT 4u    /* generate_image */
#define OXI_MODEL_IMAGE_INPUT 8u     /* encode_media of images (ABI 2.1) */
#define OXI_MODEL_AUDIO_INPUT 16u    /* encode_media of audio (ABI 2.1) */
/* draft: the checkpoint drafts its own next tokens (a multi-token-prediction
 * head, ABI 2.2). Such a model also truncates a sequence to any length within
 * the last forward whose entry for it asked OXI_LOGITS_ALL, whatever
 * can_rewind says: a rejected speculative tail is dropped that way. */
#define OXI_MODEL_DRAFT 32u

typedef struct oxi_special_token {
  const char* role; /* "bos", "eos", "pad", "image", "audio", "boi", "eoi", ... */
  int32_t id;
  int32_t reserved;
} oxi_special_token;

/* What the host needs to know about an opened checkpoint. Strings and arrays
 * belong to the model and stay valid until close. */
typedef struct oxi_model_info {
  uint32_t struct_size;
  uint32_t capabilities; /* OXI_MODEL_* */
  const char* family;    /* "gemma4", "qwen35", "sd" */
  int32_t vocab_size;    /* logits per position */
  int32_t hidden_size;   /* floats per embedding row (OXI_MODEL_EMBEDDING_INPUT) */
  int64_t context_length;
  int32_t max_sequences; /* as opened */
  /* 1: seq_truncate to any length and seq_copy of any prefix; 0: only to 0 or
   * the full length (recurrent states cannot be rewound). */
  int32_t can_rewind;
  /* The chat template to use when the checkpoint has none (NULL: no default). */
  const char* default_chat_template;
  /* End-of-turn tokens from the checkpoint's config, for when it has no
   * generation_config.json. */
  const int32_t* stop_tokens;
  int32_t n_stop_tokens;
  int32_t n_special_tokens;
  const oxi_special_token* special_tokens;
  /* Markers around a reasoning trace in the output ("<think>", "</think>");
   * NULL: the model does not reason. */
  const char* reasoning_start;
  const char* reasoning_end;
} oxi_model_info;

typedef enum oxi_logits_mode {
  OXI_LOGITS_NONE = 0,
  OXI_LOGITS_LAST = 1, /* the entry's last position */
  OXI_LOGITS_ALL = 2,  /* every position of the entry (speculative verification) */
} oxi_logits_mode;

/* n positions appended to one sequence. */
typedef struct oxi_batch_entry {
  uint32_t struct_size;
  int32_t seq_id;
  int64_t n_tokens;
  /* [n_tokens] ids; may be NULL when every position takes an embedding. */
  const int32_t* tokens;
  /* Optional [n_tokens][hidden_size] rows replacing the token embeddings
   * where embedding_mask[i] != 0 (all positions when the mask is NULL). */
  const float* embeddings;
  const uint8_t* embedding_mask;
  /* Optional [n_tokens] positions; NULL: the sequence's length, length+1, ... */
  const int32_t* positions;
  int32_t logits;    /* oxi_logits_mode */
  int32_t reserved;
  float* logits_out; /* [1 or n_tokens][vocab_size], written by forward */
} oxi_batch_entry;

/* One forward: entries of distinct sequences, computed together. */
typedef struct oxi_forward_args {
  uint32_t struct_size;
  int32_t n_entries;
  const oxi_batch_entry* const* entries;
} oxi_forward_args;

/* A text-to-image request (diffusion model plugins). */
typedef struct oxi_image_request {
  uint32_t struct_size;
  const char* prompt;
  const char* negative_prompt; /* NULL or "": empty */
  int32_t steps;               /* 0: the model's default (SD-Turbo 1, others 25) */
  float guidance;              /* < 0: the model's default (SD-Turbo 0, others 7.5) */
  const char* sampler;         /* NULL: default; "euler" or "euler_a" */
  int32_t width, height;       /* 0: the model's native size */
  uint64_t seed;
  /* Optional: called after each denoising step; a non-zero return cancels
   * (generate_image then returns OXI_CANCELLED). */
  int32_t (*progress)(void* ctx, int32_t step, int32_t total);
  void* progress_ctx;
} oxi_image_request;

/* ABI 2.1: an image or an audio clip to encode into soft tokens. */
/* OXI_MEDIA_IMAGE or OXI_MEDIA_AUDIO (abi_common.h). */
typedef uint32_t oxi_media_kind;

typedef struct oxi_media_input {
  uint32_t struct_size;
  int32_t kind; /* oxi_media_kind */
  /* IMAGE: 8-bit pixels (1: grey, 2: grey + alpha, 3: RGB, 4: RGBA), borrowed. */
  oxi_image image;
  /* AUDIO: mono samples in [-1, 1] at sample_rate, borrowed. */
  const float* samples;
  int64_t n_samples;
  int32_t sample_rate;
  /* IMAGE: the soft-token budget (the model says which it accepts); 0: its default. */
  int32_t max_soft_tokens;
} oxi_media_input;

/* What replaces the attachment's placeholder token in a tokenised prompt:
 * n_tokens ids, of which those with embedding_mask 1 take the embedding row
 * of their position instead of the token's (oxi_batch_entry.embeddings, as
 * is). Allocated by the plugin; release with free_media. */
typedef struct oxi_media_output {
  uint32_t struct_size;
  int32_t placeholder;   /* the token the chat template renders for the attachment */
  int32_t hidden_size;   /* floats per embedding row */
  int64_t n_tokens;
  int32_t* tokens;          /* [n_tokens] */
  uint8_t* embedding_mask;  /* [n_tokens] */
  float* embeddings;        /* [n_tokens][hidden_size]; zero where the mask is 0 */
  int64_t n_soft_tokens;    /* positions with mask 1 */
} oxi_media_output;

/* ABI 2.2: greedy drafts with the model's own head for a sequence holding
 * positions [0, length) whose next token is `next_token` (sampled, not yet
 * fed). The head reads the hidden states the forwards of that sequence left
 * (draft asks none of the host); the sequence itself is not changed. */
typedef struct oxi_draft_args {
  uint32_t struct_size;
  int32_t seq_id;
  int32_t next_token;
  int32_t n_draft;     /* tokens to draft, >= 1 */
  int32_t* tokens_out; /* [n_draft] */
  /* Optional (NULL: not wanted): the head's logits [n_draft][vocab_size]
   * and its output hidden states [n_draft][hidden_size] of every step. */
  float* logits_out;
  float* hidden_out;
} oxi_draft_args;

typedef struct oxi_model_iface {
  uint32_t struct_size;
  /* How well this plugin handles the checkpoint whose config.json (or, for a
   * diffusers folder, model_index.json) text is given: 0 with a reason when it
   * is not one of its models. */
  int32_t (*probe)(const char* model_dir, const char* config_json, char* reason,
                   size_t reason_size);
  int32_t (*open)(const oxi_model_open_params* params, oxi_model** model, char* error,
                  size_t error_size);
  void (*close)(oxi_model* model);
  /* Fills *info (the caller sets info->struct_size; the plugin writes the
   * fields that fit). */
  int32_t (*info)(const oxi_model* model, oxi_model_info* info);

  /* Language models (NULL for others). */
  int32_t (*forward)(oxi_model* model, const oxi_forward_args* args, char* error,
                     size_t error_size);
  /* Keeps the first n_keep positions of a sequence (see info.can_rewind). */
  int32_t (*seq_truncate)(oxi_model* model, int32_t seq_id, int64_t n_keep, char* error,
                          size_t error_size);
  /* dst (emptied first) becomes a copy of src's first n positions. */
  int32_t (*seq_copy)(oxi_model* model, int32_t src_seq, int32_t dst_seq, int64_t n,
                      char* error, size_t error_size);
  /* Empties a sequence and releases what it held beyond a fixed reserve. */
  void (*seq_free)(oxi_model* model, int32_t seq_id);

  /* Text to image (NULL for language models). RGB pixels allocated by the
   * plugin; release them with free_image. */
  int32_t (*generate_image)(oxi_model* model, const oxi_image_request* request, oxi_image* out,
                            char* error, size_t error_size);
  void (*free_image)(oxi_image* image);

  /* ABI 2.1 (NULL for models without OXI_MODEL_IMAGE_INPUT / AUDIO_INPUT):
   * the soft tokens of one image or clip, computed through the backend. */
  int32_t (*encode_media)(oxi_model* model, const oxi_media_input* input, oxi_media_output* out,
                          char* error, size_t error_size);
  void (*free_media)(oxi_media_output* out);

  /* ABI 2.2 (NULL for models without OXI_MODEL_DRAFT): see oxi_draft_args. */
  int32_t (*draft)(oxi_model* model, const oxi_draft_args* args, char* error, size_t error_size);
} oxi_model_iface;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OXINFER_MODEL_ABI_H_ */
