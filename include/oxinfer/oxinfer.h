/* oxinfer.h: the C API for programs that embed oxinfer.
 *
 * Separate from the plugin ABI (core/sdk/include/oxinfer/), versioned on its
 * own: OXINFER_API_VERSION_MAJOR changes only when something is removed or
 * changed; new functions and new struct fields (at the end, behind
 * struct_size) raise the minor. Builds as C99 and as C++.
 *
 *   #include <oxinfer/oxinfer.h>
 *   oxinfer_engine* engine;
 *   oxinfer_engine_options options;
 *   oxinfer_engine_options_init(&options);   // model_dir NULL: the installed built-in model
 *   if (oxinfer_engine_open(&options, &engine) != OXINFER_OK) {
 *     fprintf(stderr, "%s\n", oxinfer_last_error());
 *   }
 *   oxinfer_session* session;
 *   oxinfer_session_new(engine, NULL, &session);
 *   oxinfer_session_add_text(session, OXINFER_ROLE_USER, "Hello");
 *   oxinfer_session_generate(session, NULL, on_event, user_data, NULL);
 *   oxinfer_session_free(session);
 *   oxinfer_engine_close(engine);
 *
 * Build: cc app.c $(pkg-config --cflags --libs oxinfer)
 *
 * ERRORS. Every function that can fail returns an oxinfer_status; on any
 * status but OXINFER_OK, oxinfer_last_error() gives a message saying what
 * failed (a file, a field, a flag), valid on that thread until its next call
 * into this API. Nothing aborts the process and no C++ exception leaves it.
 *
 * OWNERSHIP. Handles are opaque; free each with its own function. Strings and
 * structs the API returns are owned by the caller and freed with
 * oxinfer_string_free / oxinfer_reply_free / oxinfer_image_free. Strings the
 * caller passes are copied before the call returns.
 *
 * THREADS.
 *  - oxinfer_engine functions may be called from any thread at once.
 *  - A session is used by one thread at a time: a second thread's call on a
 *    session that is busy returns OXINFER_FAILED_PRECONDITION at once (it
 *    does not wait, and the session is unharmed). Different sessions of one
 *    engine generate at the same time from different threads; the engine
 *    batches their steps into one forward.
 *  - oxinfer_session_cancel may be called from any thread, or a signal
 *    handler, at any time.
 *  - Event callbacks run on the thread that called generate, and must not
 *    call into the same session (other sessions are fine).
 *  - oxinfer_engine_close fails with OXINFER_FAILED_PRECONDITION while any of
 *    its sessions exists; free them first.
 */
#ifndef OXINFER_OXINFER_H_
#define OXINFER_OXINFER_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OXINFER_API_VERSION_MAJOR 1
#define OXINFER_API_VERSION_MINOR 1

/* Status codes: the numbers of absl::StatusCode (and of gRPC). */
typedef enum oxinfer_status {
  OXINFER_OK = 0,
  OXINFER_CANCELLED = 1,
  OXINFER_UNKNOWN = 2,
  OXINFER_INVALID_ARGUMENT = 3,
  OXINFER_DEADLINE_EXCEEDED = 4,
  OXINFER_NOT_FOUND = 5,
  OXINFER_ALREADY_EXISTS = 6,
  OXINFER_PERMISSION_DENIED = 7,
  OXINFER_RESOURCE_EXHAUSTED = 8,
  OXINFER_FAILED_PRECONDITION = 9,
  OXINFER_ABORTED = 10,
  OXINFER_OUT_OF_RANGE = 11,
  OXINFER_UNIMPLEMENTED = 12,
  OXINFER_INTERNAL = 13,
  OXINFER_UNAVAILABLE = 14,
  OXINFER_DATA_LOSS = 15
} oxinfer_status;

/* "1.1.0": the library's version; its major is OXINFER_API_VERSION_MAJOR. */
const char* oxinfer_version(void);
/* (major << 16) | minor of the library loaded, to compare with the header's. */
uint32_t oxinfer_api_version(void);
/* The message of this thread's last failed call ("" if none). */
const char* oxinfer_last_error(void);
/* "INVALID_ARGUMENT", ... */
const char* oxinfer_status_name(oxinfer_status status);
void oxinfer_string_free(char* s);

/* ------------------------------------------------------------------ engine */

typedef struct oxinfer_engine oxinfer_engine;

typedef struct oxinfer_engine_options {
  uint32_t struct_size;    /* sizeof(oxinfer_engine_options) */
  const char* model_dir;   /* checkpoint folder; NULL or "": the installed built-in model */
  const char* device;      /* "auto" (NULL), "cpu", "gpu" or a backend plugin's name */
  const char* quantization; /* NULL or "": as stored; "q8" or "q4": quantised at load */
  int32_t threads;         /* worker threads; 0: all cores (the first engine sets it) */
  const char* plugin_dirs; /* colon-separated folders searched first; NULL: none */
  int32_t max_sessions;    /* sessions that may exist at once; 0: 4 */
  int64_t context_length;  /* 0: the model's */
  int32_t use_mmap;        /* map the weights from disk */
} oxinfer_engine_options;

void oxinfer_engine_options_init(oxinfer_engine_options* options);

/* Finds the plugins (plugin_dirs, then the library's own
 * <libdir>/oxinfer/plugins, then OXINFER_PLUGIN_PATH), chooses the
 * backends and opens the checkpoint. */
oxinfer_status oxinfer_engine_open(const oxinfer_engine_options* options, oxinfer_engine** out);
oxinfer_status oxinfer_engine_close(oxinfer_engine* engine);

typedef struct oxinfer_model_info {
  uint32_t struct_size;
  const char* model_dir;    /* owned by the engine */
  const char* plugin;       /* the model plugin's name */
  const char* family;       /* the plugin's name for the architecture */
  int32_t generates_text;
  int32_t generates_images;
  int32_t vocab_size;
  int64_t context_length;
  const char* tool_format;  /* "gemma4", "qwen-xml", "qwen-json" or "none" */
} oxinfer_model_info;

oxinfer_status oxinfer_engine_model_info(const oxinfer_engine* engine, oxinfer_model_info* info);

/* ---------------------------------------------------------------- sessions */

typedef struct oxinfer_session oxinfer_session;

typedef struct oxinfer_sampling {
  uint32_t struct_size;
  float temperature;        /* 0: greedy */
  int32_t top_k;            /* 0: off */
  float top_p;              /* 1: off */
  float min_p;              /* 0: off */
  float repetition_penalty; /* 1: off */
  uint64_t seed;
} oxinfer_sampling;

/* Greedy decoding, every filter off, seed 0. */
void oxinfer_sampling_init(oxinfer_sampling* sampling);

/* sampling NULL: greedy. RESOURCE_EXHAUSTED when max_sessions exist. */
oxinfer_status oxinfer_session_new(oxinfer_engine* engine, const oxinfer_sampling* sampling,
                                   oxinfer_session** out);
void oxinfer_session_free(oxinfer_session* session);
oxinfer_status oxinfer_session_set_sampling(oxinfer_session* session,
                                            const oxinfer_sampling* sampling);

typedef enum oxinfer_role {
  OXINFER_ROLE_SYSTEM = 0,
  OXINFER_ROLE_USER = 1,
  OXINFER_ROLE_ASSISTANT = 2,
  OXINFER_ROLE_TOOL = 3
} oxinfer_role;

typedef enum oxinfer_part_type {
  OXINFER_PART_TEXT = 0,
  OXINFER_PART_IMAGE = 1, /* an encoded image file (PNG, JPEG, ...) in data/size */
  OXINFER_PART_AUDIO = 2  /* an encoded audio file (WAV, FLAC, ...) in data/size */
} oxinfer_part_type;

typedef struct oxinfer_content_part {
  uint32_t struct_size;
  oxinfer_part_type type;
  const char* text;   /* OXINFER_PART_TEXT: UTF-8, NUL-terminated */
  const void* data;   /* image / audio bytes */
  size_t size;
} oxinfer_content_part;

/* Appends a message. Image and audio parts carry a file's bytes (any format a
 * codec plugin decodes), decoded here (a bad file fails and the message is
 * not added); they reach the model as soft tokens where the template renders
 * their placeholders (a model without media input fails at generation). */
oxinfer_status oxinfer_session_add_message(oxinfer_session* session, oxinfer_role role,
                                           const oxinfer_content_part* parts, size_t n_parts);
oxinfer_status oxinfer_session_add_text(oxinfer_session* session, oxinfer_role role,
                                        const char* text);
/* The answer to a tool call (call_id from its event), as a tool message. */
oxinfer_status oxinfer_session_add_tool_result(oxinfer_session* session, const char* call_id,
                                               const char* name, const char* result);
/* Replaces the conversation with an OpenAI-style JSON list of messages (the
 * CLI's --messages format; errors name `source` and the entry). Image and
 * audio parts: {"type": "image_url", "image_url": {"url": U}},
 * {"type": "input_audio", "input_audio": {"data": BASE64, "format": F}}, or
 * transformers' {"type": "image" | "audio", "url" | "path": U}, where U is a
 * base64 data: URL, a file:// URL or a local path. */
oxinfer_status oxinfer_session_set_messages_json(oxinfer_session* session, const char* json,
                                                 const char* source);
/* The conversation as that JSON list. */
oxinfer_status oxinfer_session_messages_json(oxinfer_session* session, char** out);
/* Drops every message. */
oxinfer_status oxinfer_session_clear(oxinfer_session* session);

/* ------------------------------------------------------------------- tools */

/* Declares tools: a JSON list of {"type": "function", "function": {"name",
 * "description", "parameters": <JSON schema>}}; NULL or "[]" declares none.
 * Replies are then parsed for calls in the checkpoint's own format. */
oxinfer_status oxinfer_session_set_tools_json(oxinfer_session* session, const char* json);
/* The built-in tools' declarations (calculate, get_current_datetime). */
oxinfer_status oxinfer_builtin_tools_json(char** out);
/* Runs a built-in tool: `arguments_json` an object; *out is the result or
 * "error: ..." (what the model is told). NOT_FOUND for another name. */
oxinfer_status oxinfer_builtin_tool_run(const char* name, const char* arguments_json, char** out);

/* -------------------------------------------------------------- generation */

typedef enum oxinfer_event_type {
  OXINFER_EVENT_TEXT = 0,      /* a piece of the reply */
  OXINFER_EVENT_REASONING = 1, /* a piece of the reasoning trace */
  OXINFER_EVENT_TOOL_CALL = 2  /* a complete tool call (not part of the text) */
} oxinfer_event_type;

typedef struct oxinfer_event {
  uint32_t struct_size;
  oxinfer_event_type type;
  const char* text;                /* TEXT / REASONING: UTF-8, not NUL-terminated */
  size_t text_size;
  const char* tool_call_id;        /* TOOL_CALL: "call_1", ... (NUL-terminated) */
  const char* tool_name;
  const char* tool_arguments_json; /* a JSON object, compact */
} oxinfer_event;

/* Return 0 to go on, anything else to cancel the reply. Pointers in the
 * event are valid during the call only. */
typedef int (*oxinfer_event_fn)(void* user_data, const oxinfer_event* event);

typedef struct oxinfer_generate_options {
  uint32_t struct_size;
  int64_t max_tokens;           /* < 0: until a stop or the context's end; default 512 */
  int32_t enable_thinking;      /* the template's enable_thinking */
  int32_t add_generation_prompt; /* default 1 */
  const char* const* stop_strings;
  size_t n_stop_strings;
  /* Since 1.1. Soft tokens per image at most (Gemma 4: 70, 140, 280, 560 or
   * 1120); 0: the model's default (its processor_config.json). Another value
   * is refused by the model when an image is encoded, naming it. */
  int32_t max_soft_tokens;
} oxinfer_generate_options;

void oxinfer_generate_options_init(oxinfer_generate_options* options);

typedef enum oxinfer_stop_reason {
  OXINFER_STOP_TOKEN = 0,
  OXINFER_STOP_STRING = 1,
  OXINFER_STOP_MAX_TOKENS = 2,
  OXINFER_STOP_CONTEXT_FULL = 3,
  OXINFER_STOP_CANCELLED = 4
} oxinfer_stop_reason;

typedef struct oxinfer_tool_call {
  char* id;
  char* name;
  char* arguments_json;
} oxinfer_tool_call;

typedef struct oxinfer_reply {
  uint32_t struct_size;
  char* content;       /* NUL-terminated */
  char* reasoning;
  oxinfer_tool_call* tool_calls;
  size_t n_tool_calls;
  oxinfer_stop_reason stop_reason;
  int64_t prompt_tokens;
  int64_t reused_tokens;
  int64_t generated_tokens;
  double prefill_seconds;
  double decode_seconds;
} oxinfer_reply;

/* Renders the conversation with the checkpoint's template, generates a reply
 * streaming events to `on_event` (may be NULL), and appends the reply to the
 * conversation as the assistant's, with its tool calls. A cancelled reply is
 * OXINFER_OK with stop_reason OXINFER_STOP_CANCELLED. *reply (reply may be
 * NULL) is freed with oxinfer_reply_free. */
oxinfer_status oxinfer_session_generate(oxinfer_session* session,
                                        const oxinfer_generate_options* options,
                                        oxinfer_event_fn on_event, void* user_data,
                                        oxinfer_reply** reply);
void oxinfer_reply_free(oxinfer_reply* reply);

/* The prompt generate would feed the model now. */
oxinfer_status oxinfer_session_render_prompt(oxinfer_session* session,
                                             const oxinfer_generate_options* options, char** out);

/* Stops the reply being generated (or the next one) as soon as possible.
 * Any thread, async-signal-safe. */
void oxinfer_session_cancel(oxinfer_session* session);

/* ------------------------------------------------------------------ images */

typedef struct oxinfer_image_options {
  uint32_t struct_size;
  const char* prompt;
  const char* negative_prompt;
  int32_t width, height;  /* 0: the model's */
  int32_t steps;          /* 0: the model's default */
  float guidance;         /* < 0: the model's default */
  const char* sampler;    /* NULL: the model's default; "euler", "euler_a" */
  uint64_t seed;
} oxinfer_image_options;

void oxinfer_image_options_init(oxinfer_image_options* options);

typedef struct oxinfer_image {
  int32_t width, height, channels; /* channels 3: RGB, 8 bits each */
  uint8_t* pixels;                 /* width * height * channels, row-major */
} oxinfer_image;

/* Return 0 to go on, anything else to cancel (the call then fails with
 * OXINFER_CANCELLED). */
typedef int (*oxinfer_progress_fn)(void* user_data, int32_t step, int32_t steps);

/* FAILED_PRECONDITION for a model that does not make images. */
oxinfer_status oxinfer_engine_generate_image(oxinfer_engine* engine,
                                             const oxinfer_image_options* options,
                                             oxinfer_progress_fn progress, void* user_data,
                                             oxinfer_image** out);
/* Encodes by the path's extension (".png") and replaces the file atomically. */
oxinfer_status oxinfer_image_write(const oxinfer_engine* engine, const oxinfer_image* image,
                                   const char* path);
void oxinfer_image_free(oxinfer_image* image);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* OXINFER_OXINFER_H_ */
