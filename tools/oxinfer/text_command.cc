#include "tools/oxinfer/text_command.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/builtin_tools/builtin_tools.h"
#include "core/engine/atomic_file.h"
#include "core/engine/chat_prompt.h"
#include "core/engine/conversation_json.h"
#include "core/engine/tool_loop.h"
#include "core/engine/message.h"
#include "core/limits.h"
#include "tools/oxinfer/interrupt.h"
#include "tools/oxinfer/stream_printer.h"
#include "tools/oxinfer/system_prompt.h"

namespace oxinfer {
namespace {

using engine::Engine;
using engine::Message;
using engine::Role;

// What the flags say the conversation starts with, and how it is rendered.
struct ConversationStart {
  std::vector<Message> messages;
  engine::ChatOptions chat;
};

absl::StatusOr<ConversationStart> StartConversation(const TextFlags& flags) {
  ConversationStart start;
  if (!flags.messages_file.empty()) {
    if (flags.raw) return absl::InvalidArgumentError("--messages and --raw exclude each other");
    auto text = engine::ReadConversationFile(flags.messages_file);
    if (!text.ok()) return text.status();
    auto messages = engine::ParseMessagesJson(*text, flags.messages_file);
    if (!messages.ok()) return messages.status();
    start.messages = *std::move(messages);  // no default system prompt
  } else if (!flags.raw && !flags.no_system && flags.dump_logits.empty()) {
    // --raw and --dump-logits want the prompt as given.
    start.messages.push_back(
        Message::Text(Role::kSystem, flags.system.empty() ? DefaultSystemPrompt() : flags.system));
  }
  std::vector<chat::Value> tools;
  if (!flags.tools_file.empty()) {
    auto text = engine::ReadConversationFile(flags.tools_file);
    if (!text.ok()) return text.status();
    auto declared = engine::ParseToolsJson(*text, flags.tools_file);
    if (!declared.ok()) return declared.status();
    tools = declared->array();
  }
  if (flags.tools) {
    const chat::Value builtin = builtin_tools::Declarations();
    for (const chat::Value& t : builtin.array()) tools.push_back(t);
  }
  if (!tools.empty()) start.chat.tools = chat::Value::Array(std::move(tools));
  start.chat.template_kwargs.object().Set("enable_thinking", chat::Value(flags.think));
  return start;
}

std::string CallText(const engine::ToolCall& call) {
  return absl::StrCat(call.name, "(", call.ArgumentsJson(), ")");
}

// One line of stdin without its newline, at most limits::kChatLineBytes long:
// false at the end of input; an error for a longer line (stdin may be an
// endless stream such as /dev/zero).
absl::StatusOr<bool> ReadChatLine(std::string* line) {
  line->clear();
  for (;;) {
    const int c = std::fgetc(stdin);
    if (c == EOF) return !line->empty();
    if (c == '\n') return true;
    if (line->size() >= limits::kChatLineBytes) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "--chat: an input line is longer than the limit of %d bytes", limits::kChatLineBytes));
    }
    line->push_back(static_cast<char>(c));
  }
}

class Conversation {
 public:
  Conversation(Engine& engine, const TextFlags& flags, std::unique_ptr<engine::Session> session,
               ConversationStart start)
      : engine_(engine), flags_(flags), session_(std::move(session)), chat_(std::move(start.chat)) {
    session_->SetMessages(std::move(start.messages));
  }

  engine::Session* session() { return session_.get(); }

  // One reply, to `line` (none: to the conversation as it stands).
  absl::Status Turn(const std::string& line) {
    absl::StatusOr<engine::Prompt> prompt;
    if (flags_.raw) {
      prompt = session_->RawPrompt(line);
    } else {
      if (!line.empty()) session_->AddMessage(Message::Text(Role::kUser, line));
      prompt = session_->ChatPrompt(chat_);
    }
    if (!prompt.ok()) return prompt.status();
    if (flags_.print_prompt) {
      std::fwrite(prompt->text.data(), 1, prompt->text.size(), stdout);
      std::fflush(stdout);
      if (!flags_.raw && !line.empty()) session_->SetMessages(DropLast(session_->messages()));
      return absl::OkStatus();
    }
    if (flags_.show_tokens) PrintTokens("prompt", prompt->tokens);

    engine::GenerationOptions options;
    options.max_tokens = flags_.max_tokens;
    options.return_prompt_logits = !flags_.dump_logits.empty();
    const engine::ModelInfo& info = engine_.model_info();
    StreamPrinter printer(info.reasoning_start, info.reasoning_end, prompt->opens_reasoning);
    auto print = [&](const engine::StreamEvent& e) {
      if (e.tool_call == nullptr) printer.Print(e);
    };
    absl::StatusOr<engine::Reply> reply;
    if (flags_.raw) {
      reply = session_->Generate(*prompt, options, print);
    } else {
      // Built-in tools run when --tools declared them; other calls end the turn.
      auto run = [&](const engine::ToolCall& call) -> std::optional<std::string> {
        if (!flags_.tools || (call.name != "calculate" && call.name != "get_current_datetime")) {
          return std::nullopt;
        }
        return builtin_tools::Run(call);
      };
      auto shown = [&](const engine::ToolCall& call, const std::string& result) {
        printer.Finish();
        std::printf("[tool %s -> %s]\n", CallText(call).c_str(), result.c_str());
        std::fflush(stdout);
      };
      reply = engine::RespondWithTools(*session_, chat_, options, run, print, shown);
    }
    printer.Finish();
    if (!reply.ok()) return reply.status();
    for (const engine::ToolCall& call : reply->tool_calls) {
      std::printf("[tool %s: not run]\n", CallText(call).c_str());
    }
    std::fputc('\n', stdout);
    if (!flags_.dump_logits.empty()) {
      const std::vector<float>& logits = reply->prompt_logits;
      absl::Status s = engine::WriteFileAtomically(
          flags_.dump_logits, absl::string_view(reinterpret_cast<const char*>(logits.data()),
                                                logits.size() * sizeof(float)));
      if (!s.ok()) return s;
    }
    if (flags_.show_tokens) PrintTokens("generated", reply->tokens);
    PrintStats(*reply);
    return absl::OkStatus();
  }

 private:
  static std::vector<Message> DropLast(std::vector<Message> messages) {
    messages.pop_back();
    return messages;
  }

  void PrintTokens(const char* what, const std::vector<int32_t>& ids) const {
    std::string out;
    for (int32_t id : ids) {
      auto tok = engine_.tokenizer()->IdToToken(id);
      absl::StrAppendFormat(&out, " %d:%s", id, tok ? *tok : "?");
    }
    std::fprintf(stderr, "[%s tokens:%s]\n", what, out.c_str());
  }

  void PrintStats(const engine::Reply& reply) {
    const engine::TurnStats& s = reply.stats;
    const int64_t prefilled = s.prompt_tokens - s.reused_tokens;
    const std::string reuse =
        s.reused_tokens ? absl::StrFormat(" (+%d cached)", s.reused_tokens) : "";
    std::fprintf(stderr,
                 "\nprefill: %d tokens%s in %.2f s (%.1f tok/s); decode: %d tokens in %.2f s "
                 "(%.1f tok/s)%s\n",
                 static_cast<int>(prefilled), reuse.c_str(), s.prefill_seconds,
                 s.prefill_seconds > 0 ? prefilled / s.prefill_seconds : 0.0,
                 static_cast<int>(s.generated_tokens), s.decode_seconds,
                 s.decode_seconds > 0 ? s.generated_tokens / s.decode_seconds : 0.0,
                 reply.cancelled() ? "  [interrupted]" : "");
    if (flags_.profile) {
      std::fprintf(stderr, "%s", engine_.ProfileReport().c_str());
      engine_.ResetProfile();
    }
  }

  Engine& engine_;
  const TextFlags& flags_;
  std::unique_ptr<engine::Session> session_;
  engine::ChatOptions chat_;
};

}  // namespace

absl::Status RunText(Engine& engine, const TextFlags& flags) {
  if (absl::Status s = engine::CheckUtf8(flags.prompt, "-p"); !s.ok()) return s;
  if (absl::Status s = engine::CheckUtf8(flags.system, "--system"); !s.ok()) return s;
  // A path that cannot be written fails now, not after the generation.
  if (!flags.dump_logits.empty()) {
    if (absl::Status s = engine::CheckFolderWritable(flags.dump_logits); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("--dump-logits: ", s.message()));
    }
  }
  auto start = StartConversation(flags);
  if (!start.ok()) return start.status();
  engine::SessionOptions options;
  options.sampling = flags.sampling;
  auto session = engine.NewSession(options);
  if (!session.ok()) return session.status();
  Conversation conversation(engine, flags, *std::move(session), *std::move(start));
  InterruptGuard interrupt(conversation.session());

  if (!flags.chat) {
    // --raw with an empty prompt feeds <bos> alone, as the reference encodes "".
    if (flags.prompt.empty() && flags.messages_file.empty() && !flags.raw) {
      return absl::InvalidArgumentError("no prompt: use -p TEXT, --messages FILE or --chat");
    }
    return conversation.Turn(flags.prompt);
  }

  std::fprintf(stderr, "Chat with %s. Ctrl-C stops a reply; Ctrl-D or Ctrl-C here exits.\n",
               engine.model_dir().c_str());
  std::string first = flags.prompt;
  for (;;) {
    std::string line;
    if (!first.empty()) {
      line = std::move(first);
      first.clear();
      std::printf("> %s\n", line.c_str());
    } else {
      std::printf("> ");
      std::fflush(stdout);
      absl::StatusOr<bool> got = ReadChatLine(&line);
      if (!got.ok()) return got.status();
      if (!*got) {
        std::printf("\n");
        return absl::OkStatus();
      }
    }
    if (line.empty()) continue;
    if (absl::Status s = engine::CheckUtf8(line, "the --chat line"); !s.ok()) return s;
    if (absl::Status s = conversation.Turn(line); !s.ok()) return s;
  }
}

absl::Status PrintPromptWithoutModel(const std::string& model_dir, const TextFlags& flags) {
  auto start = StartConversation(flags);
  if (!start.ok()) return start.status();
  if (flags.raw) {
    std::fwrite(flags.prompt.data(), 1, flags.prompt.size(), stdout);
    return absl::OkStatus();
  }
  if (flags.prompt.empty() && flags.messages_file.empty()) {
    return absl::InvalidArgumentError("no prompt: use -p TEXT or --messages FILE");
  }
  auto text = engine::LoadPromptOnlyText(model_dir);
  if (!text.ok()) return text.status();
  if (!flags.prompt.empty()) start->messages.push_back(Message::Text(Role::kUser, flags.prompt));
  auto prompt = engine::RenderChatPrompt(**text, engine::ModelInfo{}, start->messages, start->chat);
  if (!prompt.ok()) return prompt.status();
  std::fwrite(prompt->text.data(), 1, prompt->text.size(), stdout);
  std::fflush(stdout);
  return absl::OkStatus();
}

}  // namespace oxinfer
