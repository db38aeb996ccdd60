/* A program that embeds oxinfer through its C API alone.
 *
 *   cc embed.c $(pkg-config --cflags --libs oxinfer) -o embed
 *   ./embed                 # the installed built-in model
 *   ./embed MODEL_DIR "Tell me about the morning"
 *
 * It streams a reply, shows the status and message of a failing call, and
 * runs the built-in calculator. */
#include <oxinfer/oxinfer.h>
#include <stdio.h>
#include <string.h>

static int print_text(void* user_data, const oxinfer_event* event) {
  int* pieces = (int*)user_data;
  if (event->type == OXINFER_EVENT_TEXT) {
    fwrite(event->text, 1, event->text_size, stdout);
    fflush(stdout);
    ++*pieces;
  } else if (event->type == OXINFER_EVENT_TOOL_CALL) {
    printf("[tool call %s %s(%s)]", event->tool_call_id, event->tool_name,
           event->tool_arguments_json);
  }
  return 0; /* non-zero would cancel the reply */
}

static int fail(const char* what, oxinfer_status status) {
  fprintf(stderr, "embed: %s: %s: %s\n", what, oxinfer_status_name(status), oxinfer_last_error());
  return 1;
}

int main(int argc, char** argv) {
  const char* prompt = argc > 2 ? argv[2] : "Tell me about the morning";
  oxinfer_engine_options options;
  oxinfer_engine* engine = NULL;
  oxinfer_session* session = NULL;
  oxinfer_sampling sampling;
  oxinfer_generate_options generate;
  oxinfer_reply* reply = NULL;
  oxinfer_model_info info;
  oxinfer_status status;
  char* result = NULL;
  int pieces = 0;

  printf("oxinfer %s (C API %u.%u)\n", oxinfer_version(), oxinfer_api_version() >> 16,
         oxinfer_api_version() & 0xffff);

  /* A failure comes with a status and a message. */
  oxinfer_engine_options_init(&options);
  options.model_dir = "/nonexistent/model";
  status = oxinfer_engine_open(&options, &engine);
  if (status == OXINFER_OK || strlen(oxinfer_last_error()) == 0) {
    fprintf(stderr, "embed: opening a missing folder did not fail with a message\n");
    return 1;
  }
  printf("expected failure: %s: %s\n", oxinfer_status_name(status), oxinfer_last_error());

  oxinfer_engine_options_init(&options);
  options.model_dir = argc > 1 ? argv[1] : NULL; /* NULL: the built-in model */
  status = oxinfer_engine_open(&options, &engine);
  if (status != OXINFER_OK) return fail("opening the model", status);
  info.struct_size = sizeof info;
  status = oxinfer_engine_model_info(engine, &info);
  if (status != OXINFER_OK) return fail("model info", status);
  printf("model: %s (%s, plugin %s, tool format %s)\n", info.model_dir, info.family, info.plugin,
         info.tool_format);

  oxinfer_sampling_init(&sampling);
  sampling.repetition_penalty = 1.3f; /* the tiny built-in model loops without it */
  status = oxinfer_session_new(engine, &sampling, &session);
  if (status != OXINFER_OK) return fail("a session", status);
  status = oxinfer_session_add_text(session, OXINFER_ROLE_USER, prompt);
  if (status != OXINFER_OK) return fail("a message", status);

  oxinfer_generate_options_init(&generate);
  generate.max_tokens = 32;
  printf("> %s\n", prompt);
  status = oxinfer_session_generate(session, &generate, print_text, &pieces, &reply);
  if (status != OXINFER_OK) return fail("generating", status);
  printf("\n[%lld prompt tokens, %lld generated, %d pieces streamed]\n",
         (long long)reply->prompt_tokens, (long long)reply->generated_tokens, pieces);
  if (reply->generated_tokens <= 0 || pieces <= 0 || strlen(reply->content) == 0) {
    fprintf(stderr, "embed: no text generated\n");
    return 1;
  }
  oxinfer_reply_free(reply);

  /* The built-in calculator, exact. */
  status = oxinfer_builtin_tool_run("calculate", "{\"expression\": \"1234.5 * 6789 - 2^20\"}",
                                    &result);
  if (status != OXINFER_OK) return fail("calculate", status);
  printf("calculate(1234.5 * 6789 - 2^20) = %s\n", result);
  if (strcmp(result, "7332444.5") != 0) return 1;
  oxinfer_string_free(result);

  /* Engines refuse to close under a live session. */
  if (oxinfer_engine_close(engine) != OXINFER_FAILED_PRECONDITION) return 1;
  oxinfer_session_free(session);
  status = oxinfer_engine_close(engine);
  if (status != OXINFER_OK) return fail("closing", status);
  printf("embed: ok\n");
  return 0;
}
