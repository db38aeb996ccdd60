#include "tools/oxinfer/text_command.h"

#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/engine/atomic_file.h"
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
  Conversation(Engine& engine, const TextFlags& flags, std::unique_ptr<engine::Session> session)
      : engine_(engine), flags_(flags), session_(std::move(session)) {
    // --raw and --dump-logits want the prompt as given.
    if (!flags.raw && !flags.no_system && flags.dump_logits.empty()) {
      session_->AddMessage(Message::Text(
          Role::kSystem, flags.system.empty() ? DefaultSystemPrompt() : flags.system));
    }
    chat_.template_kwargs.object().Set("enable_thinking", chat::Value(flags.think));
  }

  engine::Session* session() { return session_.get(); }

  absl::Status Turn(const std::string& line) {
    absl::StatusOr<engine::Prompt> prompt;
    if (flags_.raw) {
      prompt = session_->RawPrompt(line);
    } else {
      session_->AddMessage(Message::Text(Role::kUser, line));
      prompt = session_->ChatPrompt(chat_);
    }
    if (!prompt.ok()) return prompt.status();
    if (flags_.print_prompt) {
      std::fwrite(prompt->text.data(), 1, prompt->text.size(), stdout);
      std::fflush(stdout);
      if (!flags_.raw) session_->SetMessages(DropLast(session_->messages()));
      return absl::OkStatus();
    }
    if (flags_.show_tokens) PrintTokens("prompt", prompt->tokens);

    engine::GenerationOptions options;
    options.max_tokens = flags_.max_tokens;
    options.return_prompt_logits = !flags_.dump_logits.empty();
    const engine::ModelInfo& info = engine_.model_info();
    StreamPrinter printer(info.reasoning_start, info.reasoning_end, prompt->opens_reasoning);
    auto reply = session_->Generate(*prompt, options,
                                    [&](const engine::StreamEvent& e) { printer.Print(e); });
    printer.Finish();
    if (!reply.ok()) return reply.status();
    std::fputc('\n', stdout);
    if (!flags_.dump_logits.empty()) {
      const std::vector<float>& logits = reply->prompt_logits;
      absl::Status s = engine::WriteFileAtomically(
          flags_.dump_logits, absl::string_view(reinterpret_cast<const char*>(logits.data()),
                                                logits.size() * sizeof(float)));
      if (!s.ok()) return s;
    }
    if (flags_.show_tokens) PrintTokens("generated", reply->tokens);
    if (!flags_.raw) {
      Message answer = Message::Text(Role::kAssistant, reply->content);
      answer.reasoning = reply->reasoning;
      session_->AddMessage(std::move(answer));
    }
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
  engine::SessionOptions options;
  options.sampling = flags.sampling;
  auto session = engine.NewSession(options);
  if (!session.ok()) return session.status();
  Conversation conversation(engine, flags, *std::move(session));
  InterruptGuard interrupt(conversation.session());

  if (!flags.chat) {
    // --raw with an empty prompt feeds <bos> alone, as the reference encodes "".
    if (flags.prompt.empty() && !flags.raw) {
      return absl::InvalidArgumentError("no prompt: use -p TEXT or --chat");
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

}  // namespace oxinfer
