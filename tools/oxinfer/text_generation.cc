#include "tools/oxinfer/text_generation.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/chat/chat_template.h"
#include "core/chat/value.h"
#include "core/model_config.h"
#include "core/tokenizer/tokenizer.h"
#include "nlohmann/json.hpp"

using oxinfer::tokenizer::StreamDecoder;
using oxinfer::tokenizer::Tokenizer;

namespace oxinfer {
namespace {

std::atomic<bool> g_interrupted{false};

void OnSigint(int) { g_interrupted.store(true); }

// Ctrl-C stops the reply being generated instead of killing the process.
class SigintGuard {
 public:
  SigintGuard() {
    struct sigaction sa = {};
    sa.sa_handler = &OnSigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: a blocked read returns, so the chat prompt can exit
    sigaction(SIGINT, &sa, &old_);
  }
  ~SigintGuard() { sigaction(SIGINT, &old_, nullptr); }

 private:
  struct sigaction old_;
};

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Markers around a reasoning trace, shown dimmed on a terminal.
struct ThinkMarkers {
  const char* open;
  const char* close;
};
constexpr ThinkMarkers kThinkMarkers[] = {{"<think>", "</think>"}, {"<|channel>", "<channel|>"}};

// Writes streamed text to stdout, dimming reasoning traces on a terminal and
// dropping their markers there.
class StreamPrinter {
 public:
  StreamPrinter() : tty_(isatty(STDOUT_FILENO) != 0) {}
  void Print(const std::string& piece) {
    pending_ += piece;
    // Hold back a tail that may be the start of a marker.
    for (;;) {
      size_t best = std::string::npos;
      const char* marker = nullptr;
      for (const auto& m : kThinkMarkers) {
        const char* want = thinking_ ? m.close : m.open;
        const size_t at = pending_.find(want);
        if (at != std::string::npos && at < best) {
          best = at;
          marker = want;
        }
      }
      if (marker == nullptr) break;
      Emit(pending_.substr(0, best));
      if (!tty_) Emit(marker);
      pending_.erase(0, best + std::string(marker).size());
      thinking_ = !thinking_;
      if (tty_) std::fputs(thinking_ ? "\033[2m" : "\033[0m", stdout);
    }
    size_t keep = 0;
    for (const auto& m : kThinkMarkers) {
      const std::string want = thinking_ ? m.close : m.open;
      for (size_t n = std::min(want.size() - 1, pending_.size()); n > keep; --n) {
        if (pending_.compare(pending_.size() - n, n, want, 0, n) == 0) {
          keep = n;
          break;
        }
      }
    }
    Emit(pending_.substr(0, pending_.size() - keep));
    pending_.erase(0, pending_.size() - keep);
    std::fflush(stdout);
  }
  void Finish() {
    Emit(pending_);
    pending_.clear();
    if (thinking_ && tty_) std::fputs("\033[0m", stdout);
    thinking_ = false;
    std::fflush(stdout);
  }

 private:
  void Emit(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }
  bool tty_;
  bool thinking_ = false;
  std::string pending_;
};

struct Checkpoint {
  std::unique_ptr<Tokenizer> tokenizer;
  std::unique_ptr<chat::ChatTemplate> chat_template;
  std::set<int32_t> stop_ids;
  std::string model_type;
};

absl::StatusOr<Checkpoint> LoadCheckpointText(const std::string& dir) {
  Checkpoint c;
  auto tok = Tokenizer::FromFile(dir + "/tokenizer.json");
  if (!tok.ok()) return tok.status();
  c.tokenizer = *std::move(tok);

  if (auto probe = LoadConfigProbe(dir + "/config.json"); probe.ok()) {
    c.model_type = probe->model_type();
  }
  auto tmpl = chat::ChatTemplate::FromModelDir(dir);
  if (tmpl.ok()) {
    c.chat_template = std::make_unique<chat::ChatTemplate>(*std::move(tmpl));
  } else if (tmpl.status().code() == absl::StatusCode::kNotFound) {
    const bool gemma = c.model_type.rfind("gemma", 0) == 0;
    c.chat_template = std::make_unique<chat::ChatTemplate>(chat::ChatTemplate::Builtin(
        gemma ? chat::BuiltinFormat::kGemma : chat::BuiltinFormat::kChatml));
  } else {
    return tmpl.status();
  }

  // Stop at the checkpoint's end tokens: generation_config.json, else config.json.
  if (auto gen = LoadGenerationConfig(dir + "/generation_config.json"); gen.ok()) {
    for (int32_t id : gen->eos_token_id()) c.stop_ids.insert(id);
  } else if (gen.status().code() != absl::StatusCode::kNotFound) {
    return gen.status();
  }
  if (c.stop_ids.empty()) {
    auto text = ReadTextFile(dir + "/config.json");
    if (text.ok()) {
      const auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
      auto add = [&](const nlohmann::json& v) {
        if (v.is_number_integer()) c.stop_ids.insert(v.get<int32_t>());
        if (v.is_array()) {
          for (const auto& e : v) {
            if (e.is_number_integer()) c.stop_ids.insert(e.get<int32_t>());
          }
        }
      };
      if (j.is_object()) {
        if (j.contains("eos_token_id")) add(j["eos_token_id"]);
        if (j.contains("text_config") && j["text_config"].is_object() &&
            j["text_config"].contains("eos_token_id")) {
          add(j["text_config"]["eos_token_id"]);
        }
      }
    }
  }
  return c;
}

struct TurnStats {
  int64_t prompt_tokens = 0, reused_tokens = 0, generated = 0;
  double prefill_s = 0, decode_s = 0;
  bool interrupted = false;
};

class Conversation {
 public:
  Conversation(ModelInstance& model, Checkpoint& ckpt, const TextOptions& options,
               BackendProfiler* profiler)
      : model_(model),
        ckpt_(ckpt),
        options_(options),
        profiler_(profiler),
        sampler_(options.sampling),
        messages_(nlohmann::json::array()) {
    if (!options.raw && !options.no_system && options.dump_logits.empty()) {
      messages_.push_back({{"role", "system"},
                           {"content", options.system.empty() ? DefaultSystemPrompt()
                                                              : options.system}});
    }
  }

  absl::StatusOr<std::string> FormatPrompt(const std::string& user_text) {
    if (options_.raw) return user_text;
    nlohmann::json msgs = messages_;
    msgs.push_back({{"role", "user"}, {"content", user_text}});
    auto value = chat::Value::FromJson(msgs.dump());
    if (!value.ok()) return value.status();
    chat::Value extra = chat::Value::Dict();
    extra.object().Set("enable_thinking", chat::Value(options_.think));
    return ckpt_.chat_template->Render(*value, chat::Value::None(), true, extra);
  }

  absl::StatusOr<TurnStats> Turn(const std::string& user_text) {
    TurnStats stats;
    auto prompt = FormatPrompt(user_text);
    if (!prompt.ok()) return prompt.status();
    if (options_.print_prompt) {
      std::fwrite(prompt->data(), 1, prompt->size(), stdout);
      std::fflush(stdout);
      return stats;
    }
    // Raw prompts get the tokenizer's own specials (Gemma's <bos>); templated
    // prompts already spell them out.
    std::vector<int32_t> ids = ckpt_.tokenizer->Encode(*prompt, /*add_special_tokens=*/options_.raw);
    if (ids.empty()) return absl::InvalidArgumentError("the prompt is empty after tokenisation");
    if (options_.show_tokens) PrintTokens("prompt", ids);

    // Reuse what the model already holds of this conversation.
    size_t common = 0;
    while (common < ids.size() && common < cached_.size() && ids[common] == cached_[common]) {
      ++common;
    }
    if (common == ids.size()) --common;  // at least one token to get logits from
    if (common < cached_.size()) {
      if (!model_.Truncate(static_cast<int64_t>(common)).ok()) {
        common = 0;
        if (absl::Status s = model_.Truncate(0); !s.ok()) return s;
      }
      cached_.resize(common);
    }
    stats.prompt_tokens = static_cast<int64_t>(ids.size());
    stats.reused_tokens = static_cast<int64_t>(common);

    std::vector<float> logits(model_.vocab_size());
    const auto t0 = std::chrono::steady_clock::now();
    const absl::Span<const int32_t> fresh(ids.data() + common, ids.size() - common);
    if (absl::Status s = model_.Forward(fresh, absl::MakeSpan(logits)); !s.ok()) return s;
    cached_ = ids;
    const auto t1 = std::chrono::steady_clock::now();
    stats.prefill_s = Seconds(t1 - t0);
    if (!options_.dump_logits.empty()) {
      std::ofstream out(options_.dump_logits, std::ios::binary);
      out.write(reinterpret_cast<const char*>(logits.data()),
                static_cast<std::streamsize>(logits.size() * sizeof(float)));
      if (!out) return absl::InternalError("cannot write " + options_.dump_logits);
    }

    StreamDecoder decoder(*ckpt_.tokenizer, /*skip_special_tokens=*/false);
    StreamPrinter printer;
    std::string reply;
    std::vector<int32_t> history = ids;
    std::vector<int32_t> generated;
    g_interrupted.store(false);
    for (int i = 0; i < options_.max_tokens; ++i) {
      if (g_interrupted.load()) {
        stats.interrupted = true;
        break;
      }
      const int32_t next = sampler_.Sample(logits, history);
      if (ckpt_.stop_ids.count(next)) break;
      generated.push_back(next);
      history.push_back(next);
      const std::string piece = decoder.Step(next);
      reply += piece;
      printer.Print(piece);
      if (i + 1 == options_.max_tokens) break;  // no logits needed after the last one
      if (absl::Status s = model_.Forward(absl::MakeConstSpan(&next, 1), absl::MakeSpan(logits));
          !s.ok()) {
        printer.Finish();
        return s;
      }
      cached_.push_back(next);
    }
    const std::string tail = decoder.Flush();
    reply += tail;
    printer.Print(tail);
    printer.Finish();
    std::fputc('\n', stdout);
    stats.decode_s = Seconds(std::chrono::steady_clock::now() - t1);
    stats.generated = static_cast<int64_t>(generated.size());
    if (options_.show_tokens) PrintTokens("generated", generated);

    if (!options_.raw) {
      messages_.push_back({{"role", "user"}, {"content", user_text}});
      messages_.push_back({{"role", "assistant"}, {"content", reply}});
    }
    return stats;
  }

  void PrintStats(const TurnStats& s) const {
    const int64_t prefilled = s.prompt_tokens - s.reused_tokens;
    std::string reuse = s.reused_tokens ? absl::StrFormat(" (+%d cached)", s.reused_tokens) : "";
    std::fprintf(stderr,
                 "\nprefill: %d tokens%s in %.2f s (%.1f tok/s); decode: %d tokens in %.2f s "
                 "(%.1f tok/s)%s\n",
                 static_cast<int>(prefilled), reuse.c_str(), s.prefill_s,
                 s.prefill_s > 0 ? prefilled / s.prefill_s : 0.0, static_cast<int>(s.generated),
                 s.decode_s, s.decode_s > 0 ? s.generated / s.decode_s : 0.0,
                 s.interrupted ? "  [interrupted]" : "");
    if (profiler_ != nullptr) {
      std::fprintf(stderr, "%s", profiler_->Report().c_str());
      profiler_->Reset();
    }
  }

 private:
  void PrintTokens(const char* what, const std::vector<int32_t>& ids) const {
    std::string out;
    for (int32_t id : ids) {
      auto tok = ckpt_.tokenizer->IdToToken(id);
      absl::StrAppendFormat(&out, " %d:%s", id, tok ? *tok : "?");
    }
    std::fprintf(stderr, "[%s tokens:%s]\n", what, out.c_str());
  }

  ModelInstance& model_;
  Checkpoint& ckpt_;
  const TextOptions& options_;
  BackendProfiler* profiler_;
  sampling::Sampler sampler_;
  nlohmann::json messages_;
  std::vector<int32_t> cached_;  // tokens the model holds
};

}  // namespace

std::string DefaultSystemPrompt() {
  const std::time_t now = std::time(nullptr);
  std::tm local = {};
  localtime_r(&now, &local);
  char when[128];
  std::strftime(when, sizeof when, "%A, %B %d, %Y, %H:%M", &local);
  char zone[64];
  std::strftime(zone, sizeof zone, "%Z, UTC%z", &local);
  return absl::StrFormat(
      "You are a helpful assistant running locally on the user's computer with oxinfer. "
      "The local date and time is %s (%s).",
      when, zone);
}

absl::Status RunTextGeneration(ModelInstance& model, const std::string& model_dir,
                               const TextOptions& options, BackendProfiler* profiler) {
  if (absl::Status s = options.sampling.Validate(); !s.ok()) return s;
  auto ckpt = LoadCheckpointText(model_dir);
  if (!ckpt.ok()) return ckpt.status();
  Conversation conversation(model, *ckpt, options, profiler);
  SigintGuard sigint;

  if (!options.chat) {
    if (options.prompt.empty()) return absl::InvalidArgumentError("no prompt: use -p TEXT or --chat");
    auto stats = conversation.Turn(options.prompt);
    if (!stats.ok()) return stats.status();
    if (!options.print_prompt) conversation.PrintStats(*stats);
    return absl::OkStatus();
  }

  std::fprintf(stderr, "Chat with %s. Ctrl-C stops a reply; Ctrl-D or Ctrl-C here exits.\n",
               model_dir.c_str());
  std::string first = options.prompt;
  for (;;) {
    std::string line;
    if (!first.empty()) {
      line = std::move(first);
      first.clear();
      std::printf("> %s\n", line.c_str());
    } else {
      std::printf("> ");
      std::fflush(stdout);
      g_interrupted.store(false);
      if (!std::getline(std::cin, line)) {
        std::printf("\n");
        return absl::OkStatus();
      }
    }
    if (line.empty()) continue;
    auto stats = conversation.Turn(line);
    if (!stats.ok()) return stats.status();
    conversation.PrintStats(*stats);
  }
}

}  // namespace oxinfer
