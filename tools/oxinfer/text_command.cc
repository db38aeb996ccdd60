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
#include "core/engine/media_parts.h"
#include "core/engine/message.h"
#include "core/engine/tool_loop.h"
#include "core/limits.h"
#include "tools/oxinfer/interrupt.h"
#include "tools/oxinfer/stream_printer.h"
#include "tools/oxinfer/system_prompt.h"

namespace oxinfer {
namespace {

using engine::ContentPart;
using engine::Engine;
using engine::Message;
using engine::Role;

// An image or audio file as the model receives it; errors name the file.
absl::StatusOr<ContentPart> LoadAttachment(const Engine& engine, const std::string& path,
                                           bool audio, const media::DecodeOptions& limits) {
  const char* flag = audio ? "--audio" : "--image";
  if (path.empty()) return absl::InvalidArgumentError(absl::StrCat(flag, " needs a file"));
  return engine::LoadMediaPart(engine.registry(),
                               audio ? ContentPart::Type::kAudio : ContentPart::Type::kImage, path,
                               limits);
}

// A user turn: the attachments, then the text.
Message UserTurn(std::vector<ContentPart> attachments, const std::string& text) {
  if (attachments.empty()) return Message::Text(Role::kUser, text);
  Message m;
  m.role = Role::kUser;
  m.content_form = Message::ContentForm::kParts;
  m.content = std::move(attachments);
  m.content.push_back(ContentPart{ContentPart::Type::kText, text});
  return m;
}

// What the flags say the conversation starts with, and how it is rendered.
struct ConversationStart {
  std::vector<Message> messages;
  engine::ChatOptions chat;
};

// `load_media` reads the media parts of a --messages file.
absl::StatusOr<ConversationStart> StartConversation(const TextFlags& flags,
                                                    const engine::MediaLoader& load_media) {
  ConversationStart start;
  if (!flags.messages_file.empty()) {
    if (flags.raw) return absl::InvalidArgumentError("--messages and --raw exclude each other");
    auto text = engine::ReadConversationFile(flags.messages_file);
    if (!text.ok()) return text.status();
    auto messages = engine::ParseMessagesJson(*text, flags.messages_file, load_media);
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
  start.chat.max_soft_tokens = flags.max_soft_tokens;
  start.chat.expand_media = !flags.print_prompt;  // printed as placeholders
  start.chat.plain_special_tokens = flags.split_special_tokens;
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

  // Attaches a file to the next user turn.
  absl::Status Attach(const std::string& path, bool audio) {
    auto part = LoadAttachment(engine_, path, audio, flags_.media_limits);
    if (!part.ok()) return part.status();
    pending_.push_back(*std::move(part));
    return absl::OkStatus();
  }
  // "/image PATH" or "/audio PATH" in --chat: attaches PATH to the next turn.
  // False when `line` is no such command.
  bool ChatCommand(const std::string& line, absl::Status* status) {
    for (const bool audio : {false, true}) {
      const std::string command = audio ? "/audio " : "/image ";
      if (line.compare(0, command.size(), command) != 0) continue;
      const std::string path = line.substr(command.size());
      *status = Attach(path, audio);
      if (status->ok()) {
        std::fprintf(stderr, "[%s attached to the next turn: %s]\n", audio ? "audio" : "image",
                     path.c_str());
      }
      return true;
    }
    return false;
  }

  // One reply, to `line` (none: to the conversation as it stands).
  absl::Status Turn(const std::string& line) {
    absl::StatusOr<engine::Prompt> prompt;
    if (flags_.raw) {
      prompt = session_->RawPrompt(line, flags_.split_special_tokens);
    } else {
      if (!line.empty()) session_->AddMessage(UserTurn(std::move(pending_), line));
      pending_.clear();
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
    if (!flags_.dump_soft_tokens.empty()) {
      const std::vector<float> soft =
          prompt->media != nullptr ? prompt->media->SoftTokens() : std::vector<float>();
      absl::Status s = engine::WriteFileAtomically(
          flags_.dump_soft_tokens, absl::string_view(reinterpret_cast<const char*>(soft.data()),
                                                     soft.size() * sizeof(float)));
      if (!s.ok()) return s;
      if (prompt->media != nullptr) {
        std::fprintf(stderr, "[%d soft tokens of %d floats written to %s]\n",
                     static_cast<int>(prompt->media->n_soft_tokens), prompt->media->hidden_size,
                     flags_.dump_soft_tokens.c_str());
      }
    }

    engine::GenerationOptions options;
    options.max_tokens = flags_.max_tokens;
    options.return_prompt_logits = !flags_.dump_logits.empty();
    options.record_drafts = flags_.show_drafts;
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
    if (flags_.show_drafts) PrintDrafts(reply->draft_rounds);
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

  static void PrintDrafts(const std::vector<engine::DraftRound>& rounds) {
    for (size_t r = 0; r < rounds.size(); ++r) {
      std::string ids;
      for (int32_t id : rounds[r].drafts) absl::StrAppend(&ids, " ", id);
      std::fprintf(stderr, "[draft %d:%s -> %d/%d accepted]\n", static_cast<int>(r + 1),
                   ids.c_str(), rounds[r].accepted, static_cast<int>(rounds[r].drafts.size()));
    }
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
    if (flags_.profile && flags_.drafting) {
      std::fprintf(stderr, "accepted %d/%d drafts (%.1f%%)\n", static_cast<int>(s.accepted_tokens),
                   static_cast<int>(s.drafted_tokens),
                   s.drafted_tokens > 0 ? 100.0 * s.accepted_tokens / s.drafted_tokens : 0.0);
    }
    if (flags_.profile) {
      std::fprintf(stderr, "%s", engine_.ProfileReport().c_str());
      engine_.ResetProfile();
    }
  }

  Engine& engine_;
  const TextFlags& flags_;
  std::unique_ptr<engine::Session> session_;
  engine::ChatOptions chat_;
  std::vector<ContentPart> pending_;  // attachments of the next user turn
};

absl::Status CheckMediaFlags(const TextFlags& flags) {
  if (flags.images.empty() && flags.audios.empty()) return absl::OkStatus();
  if (flags.raw)
    return absl::InvalidArgumentError("--image and --audio need the chat template, not --raw");
  if (!flags.messages_file.empty()) {
    return absl::InvalidArgumentError(
        "--image and --audio attach to the first user turn; with --messages put the media in the "
        "messages file");
  }
  return absl::OkStatus();
}

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
  if (!flags.dump_soft_tokens.empty()) {
    if (absl::Status s = engine::CheckFolderWritable(flags.dump_soft_tokens); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("--dump-soft-tokens: ", s.message()));
    }
  }
  if (absl::Status s = CheckMediaFlags(flags); !s.ok()) return s;
  auto start = StartConversation(
      flags,
      engine::RegistryMediaLoader(engine.registry(), /*allow_paths=*/true, flags.media_limits));
  if (!start.ok()) return start.status();
  engine::SessionOptions options;
  options.sampling = flags.sampling;
  auto session = engine.NewSession(options);
  if (!session.ok()) return session.status();
  Conversation conversation(engine, flags, *std::move(session), *std::move(start));
  InterruptGuard interrupt(conversation.session());
  for (const bool audio : {false, true}) {
    for (const std::string& path : audio ? flags.audios : flags.images) {
      if (absl::Status s = conversation.Attach(path, audio); !s.ok()) return s;
    }
  }

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
    absl::Status attached;
    if (conversation.ChatCommand(line, &attached)) {
      if (!attached.ok())
        std::fprintf(stderr, "oxinfer: %s\n", std::string(attached.message()).c_str());
      continue;  // a bad file is reported; the chat goes on
    }
    if (absl::Status s = conversation.Turn(line); !s.ok()) return s;
  }
}

absl::Status PrintPromptWithoutModel(const std::string& model_dir, const TextFlags& flags) {
  auto start = StartConversation(flags, engine::PlaceholderMediaLoader());
  if (!start.ok()) return start.status();
  if (flags.raw) {
    std::fwrite(flags.prompt.data(), 1, flags.prompt.size(), stdout);
    return absl::OkStatus();
  }
  if (flags.prompt.empty() && flags.messages_file.empty()) {
    return absl::InvalidArgumentError("no prompt: use -p TEXT or --messages FILE");
  }
  if (absl::Status s = CheckMediaFlags(flags); !s.ok()) return s;
  auto text = engine::LoadPromptOnlyText(model_dir);
  if (!text.ok()) return text.status();
  // Without the model only the placeholders are rendered; the files must exist.
  std::vector<ContentPart> attachments;
  for (const bool audio : {false, true}) {
    for (const std::string& path : audio ? flags.audios : flags.images) {
      std::FILE* f = std::fopen(path.c_str(), "rb");
      if (f == nullptr) {
        return absl::NotFoundError(
            absl::StrFormat("%s %s: cannot open the file", audio ? "--audio" : "--image", path));
      }
      std::fclose(f);
      ContentPart part;
      part.type = audio ? ContentPart::Type::kAudio : ContentPart::Type::kImage;
      attachments.push_back(std::move(part));
    }
  }
  if (!flags.prompt.empty())
    start->messages.push_back(UserTurn(std::move(attachments), flags.prompt));
  auto prompt = engine::RenderChatPrompt(**text, engine::ModelInfo{}, start->messages, start->chat);
  if (!prompt.ok()) return prompt.status();
  std::fwrite(prompt->text.data(), 1, prompt->text.size(), stdout);
  std::fflush(stdout);
  return absl::OkStatus();
}

}  // namespace oxinfer
