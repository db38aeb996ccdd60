#include "core/engine/scheduler.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"

namespace oxinfer::engine {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

// The worker's view of a running turn.
struct BatchScheduler::Active {
  std::shared_ptr<Turn> turn;
  TurnRequest request;
  size_t next_prompt = 0;        // the first prompt token not yet fed
  std::vector<int32_t> history;  // prompt + generated, for the repetition penalty
  int32_t feed = 0;              // the token sampled last, fed at the next step
  // Speculative decoding: feed then its drafts (the next step's input), and
  // the current draft length.
  std::vector<int32_t> input;
  int32_t draft_length = 0;
  int64_t drafted = 0, accepted = 0;
  std::vector<DraftRound> rounds;
  int64_t generated = 0;
  int64_t reused = 0;
  std::vector<float> prompt_logits;
  bool sampled = false;  // the prompt's logits have come
  bool finished = false;
  Clock::time_point start, first_logits;
};

// ---- Turn ----

bool Turn::Next(std::vector<int32_t>* tokens) {
  std::unique_lock<std::mutex> lock(mu_);
  reader_waiting_ = true;
  cv_.wait(lock, [&] { return !queue_.empty() || done_; });
  reader_waiting_ = false;
  if (queue_.empty()) return false;
  const int n = static_cast<int>(queue_.size());
  tokens->insert(tokens->end(), queue_.begin(), queue_.end());
  queue_.clear();
  lock.unlock();
  // Only a worker held back by this reader needs waking.
  if (undelivered_.fetch_sub(n) >= BatchScheduler::kMaxRunAhead) scheduler_->Wake();
  return true;
}

void Turn::Stop() {
  stop_.store(true);
  scheduler_->Wake();
}

void Turn::Push(int32_t token) {
  undelivered_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(token);
  if (reader_waiting_) cv_.notify_one();
}

void Turn::Complete(TurnOutcome outcome) {
  std::lock_guard<std::mutex> lock(mu_);
  outcome_ = std::move(outcome);
  done_ = true;
  cv_.notify_one();
}

// ---- BatchScheduler ----

BatchScheduler::BatchScheduler(Model* model, std::mutex* model_mutex, int32_t prefill_chunk,
                               SpeculativeOptions speculative)
    : model_(model),
      model_mutex_(model_mutex),
      prefill_chunk_(prefill_chunk > 0 ? prefill_chunk : 1),
      vocab_size_(model->info().vocab_size),
      context_length_(model->info().context_length),
      speculative_(speculative),
      held_(model->info().max_sequences),
      held_keys_(model->info().max_sequences) {
  worker_ = std::thread([this] { Loop(); });
}

BatchScheduler::~BatchScheduler() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  worker_.join();
}

std::shared_ptr<Turn> BatchScheduler::Start(TurnRequest request) {
  auto a = std::make_unique<Active>();
  a->turn.reset(new Turn(this));
  a->request = std::move(request);
  std::shared_ptr<Turn> turn = a->turn;
  {
    std::lock_guard<std::mutex> lock(mu_);
    incoming_.push_back(std::move(a));
  }
  cv_.notify_one();
  return turn;
}

void BatchScheduler::FreeSequence(int32_t seq) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    frees_.push_back(seq);
  }
  cv_.notify_one();
}

void BatchScheduler::Wake() {
  std::lock_guard<std::mutex> lock(mu_);
  cv_.notify_one();
}

bool BatchScheduler::Runnable(const Active& a) const {
  return a.turn->stop_.load() || (a.request.cancel != nullptr && a.request.cancel->load()) ||
         a.turn->undelivered_.load() < kMaxRunAhead;
}

void BatchScheduler::Loop() {
  std::vector<std::unique_ptr<Active>> active;
  for (;;) {
    std::vector<int32_t> frees;
    std::vector<std::unique_ptr<Active>> incoming;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] {
        return stopping_ || !frees_.empty() || !incoming_.empty() ||
               std::any_of(active.begin(), active.end(),
                           [&](const std::unique_ptr<Active>& a) { return Runnable(*a); });
      });
      if (stopping_) {
        for (auto& a : incoming_) active.push_back(std::move(a));
        incoming_.clear();
        break;
      }
      frees.swap(frees_);
      incoming.swap(incoming_);
    }
    if (!frees.empty() || !incoming.empty()) {
      std::lock_guard<std::mutex> model_lock(*model_mutex_);
      for (int32_t seq : frees) {
        model_->FreeSequence(seq);
        held_[seq].clear();
        held_keys_[seq].clear();
      }
      for (auto& a : incoming) {
        Admit(*a);
        active.push_back(std::move(a));
      }
    }
    Step(active);
  }
  for (auto& a : active) {
    Finish(*a, StopReason::kCancelled, absl::AbortedError("the engine is shutting down"));
  }
}

void BatchScheduler::Admit(Active& a) {
  a.start = Clock::now();
  const std::vector<int32_t>& prompt = a.request.prompt;
  std::vector<int32_t>& held = held_[a.request.seq];
  std::vector<uint64_t>& held_keys = held_keys_[a.request.seq];
  const PromptMedia* media = a.request.media.get();
  auto key = [media](size_t i) { return media != nullptr ? media->keys[i] : uint64_t{0}; };
  // At least the prompt's last token is fed again: its logits start the reply.
  const size_t limit = std::min(held.size(), prompt.size() - 1);
  size_t common = 0;
  while (common < limit && held[common] == prompt[common] && held_keys[common] == key(common)) {
    ++common;
  }
  if (common < held.size()) {
    // A recurrent state cannot be rewound: then the sequence starts over.
    const bool cut = common > 0 && model_->info().can_rewind &&
                     model_->TruncateSequence(a.request.seq, static_cast<int64_t>(common)).ok();
    if (!cut) {
      model_->FreeSequence(a.request.seq);
      common = 0;
    }
    held.resize(common);
    held_keys.resize(common);
  }
  a.next_prompt = common;
  a.reused = static_cast<int64_t>(common);
  a.history = prompt;
  a.draft_length = speculative_.max_draft;
}

void BatchScheduler::DraftAll(const std::vector<std::unique_ptr<Active>>& active) {
  for (const auto& p : active) {
    Active& a = *p;
    if (a.finished || !Runnable(a) || a.next_prompt < a.request.prompt.size()) continue;
    a.input.assign(1, a.feed);
    if (speculative_.drafter == nullptr) continue;
    // No more drafts than could be kept: the rest of max_tokens (the last
    // token comes from the verification itself) and of the context.
    int64_t n = a.draft_length;
    if (a.request.max_tokens > 0) n = std::min(n, a.request.max_tokens - a.generated - 1);
    if (context_length_ > 0) {
      n = std::min(n, context_length_ - static_cast<int64_t>(held_[a.request.seq].size()) - 1);
    }
    if (n < 1) continue;
    auto drafts = speculative_.drafter->Draft(a.request.seq, held_[a.request.seq], a.feed,
                                              static_cast<int32_t>(n));
    if (!drafts.ok()) {
      Finish(a, StopReason::kCancelled, drafts.status());
      continue;
    }
    if (static_cast<int64_t>(drafts->size()) > n) drafts->resize(static_cast<size_t>(n));
    for (int32_t t : *drafts) {
      if (t < 0 || t >= vocab_size_) {
        Finish(a, StopReason::kCancelled,
               absl::InternalError(absl::StrCat("the drafter proposed token ", t,
                                                ", outside the vocabulary of ", vocab_size_)));
        break;
      }
    }
    if (a.finished) continue;
    a.input.insert(a.input.end(), drafts->begin(), drafts->end());
  }
}

void BatchScheduler::Verify(Active& a, const oxi_batch_entry& e) {
  const std::vector<int32_t> input = std::move(a.input);  // e.tokens points into it
  a.input.clear();
  const int32_t n_drafts = static_cast<int32_t>(e.n_tokens) - 1;
  std::vector<int32_t>& held = held_[a.request.seq];
  std::vector<uint64_t>& keys = held_keys_[a.request.seq];
  int32_t accepted = 0;
  int64_t consumed = 0;
  for (int64_t j = 0; j < e.n_tokens; ++j) {
    held.push_back(e.tokens[j]);
    keys.push_back(0);
    consumed = j + 1;
    Sample(a, e.logits_out + j * static_cast<int64_t>(vocab_size_));
    if (a.finished || j == n_drafts || a.feed != e.tokens[j + 1]) break;
    ++accepted;
  }
  a.drafted += n_drafts;
  a.accepted += accepted;
  if (a.request.record_drafts && n_drafts > 0) {
    a.rounds.push_back(
        DraftRound{std::vector<int32_t>(e.tokens + 1, e.tokens + e.n_tokens), accepted});
  }
  a.draft_length = NextDraftLength(speculative_, a.draft_length, n_drafts, accepted);
  if (consumed == e.n_tokens) return;
  absl::Status cut;
  {
    std::lock_guard<std::mutex> model_lock(*model_mutex_);
    cut = model_->TruncateSequence(a.request.seq, static_cast<int64_t>(held.size()));
    if (!cut.ok()) {
      model_->FreeSequence(a.request.seq);
      held.clear();
      keys.clear();
    }
  }
  if (!cut.ok() && !a.finished) Finish(a, StopReason::kCancelled, cut);
}

void BatchScheduler::Step(std::vector<std::unique_ptr<Active>>& active) {
  for (auto& a : active) {
    if (a->turn->stop_.load() || (a->request.cancel != nullptr && a->request.cancel->load())) {
      Finish(*a, StopReason::kCancelled);
    }
  }
  {
    std::lock_guard<std::mutex> model_lock(*model_mutex_);
    DraftAll(active);
  }
  entries_.clear();
  batch_.clear();
  int n_logits = 0;
  for (auto& a : active) {
    if (a->finished || !Runnable(*a)) continue;
    // A decoding turn joins only with the input DraftAll gave it.
    if (a->next_prompt >= a->request.prompt.size() && a->input.empty()) continue;
    oxi_batch_entry e = {};
    e.struct_size = sizeof e;
    e.seq_id = a->request.seq;
    const std::vector<int32_t>& prompt = a->request.prompt;
    if (a->next_prompt < prompt.size()) {
      const size_t n =
          std::min(prompt.size() - a->next_prompt, static_cast<size_t>(prefill_chunk_));
      e.tokens = prompt.data() + a->next_prompt;
      e.n_tokens = static_cast<int64_t>(n);
      const PromptMedia* media = a->request.media.get();
      if (media != nullptr &&
          std::any_of(media->mask.begin() + a->next_prompt,
                      media->mask.begin() + a->next_prompt + n, [](uint8_t m) { return m != 0; })) {
        e.embeddings =
            media->rows.data() + a->next_prompt * static_cast<size_t>(media->hidden_size);
        e.embedding_mask = media->mask.data() + a->next_prompt;
      }
      e.logits = a->next_prompt + n == prompt.size() ? OXI_LOGITS_LAST : OXI_LOGITS_NONE;
    } else {
      e.tokens = a->input.data();
      e.n_tokens = static_cast<int64_t>(a->input.size());
      e.logits = e.n_tokens > 1 ? OXI_LOGITS_ALL : OXI_LOGITS_LAST;
    }
    n_logits += e.logits == OXI_LOGITS_ALL    ? static_cast<int>(e.n_tokens)
                : e.logits == OXI_LOGITS_LAST ? 1
                                              : 0;
    entries_.push_back(e);
    batch_.push_back(a.get());
  }
  if (!entries_.empty()) {
    logits_.resize(static_cast<size_t>(n_logits) * vocab_size_);
    entry_ptrs_.clear();
    float* out = logits_.data();
    for (oxi_batch_entry& e : entries_) {
      if (e.logits != OXI_LOGITS_NONE) {
        e.logits_out = out;
        out += (e.logits == OXI_LOGITS_ALL ? e.n_tokens : 1) * static_cast<int64_t>(vocab_size_);
      }
      entry_ptrs_.push_back(&e);
    }
    absl::Status status;
    {
      std::lock_guard<std::mutex> model_lock(*model_mutex_);
      status = model_->Forward(entry_ptrs_);
      if (!status.ok()) {
        for (Active* a : batch_) {
          model_->FreeSequence(a->request.seq);
          held_[a->request.seq].clear();
          held_keys_[a->request.seq].clear();
        }
      }
    }
    for (size_t i = 0; i < batch_.size(); ++i) {
      Active& a = *batch_[i];
      if (!status.ok()) {
        Finish(a, StopReason::kCancelled, status);
        continue;
      }
      const oxi_batch_entry& e = entries_[i];
      if (a.next_prompt >= a.request.prompt.size()) {
        Verify(a, e);  // a decoding step, with or without drafts
        continue;
      }
      std::vector<int32_t>& held = held_[a.request.seq];
      held.insert(held.end(), e.tokens, e.tokens + e.n_tokens);
      std::vector<uint64_t>& keys = held_keys_[a.request.seq];
      if (a.next_prompt < a.request.prompt.size()) {
        const PromptMedia* media = a.request.media.get();
        for (int64_t j = 0; j < e.n_tokens; ++j) {
          keys.push_back(media != nullptr ? media->keys[a.next_prompt + j] : 0);
        }
        a.next_prompt += e.n_tokens;
      } else {
        keys.push_back(0);
      }
      if (e.logits == OXI_LOGITS_LAST) Sample(a, e.logits_out);
    }
  }
  active.erase(std::remove_if(active.begin(), active.end(),
                              [](const std::unique_ptr<Active>& a) { return a->finished; }),
               active.end());
}

void BatchScheduler::Sample(Active& a, const float* logits) {
  const absl::Span<const float> row(logits, vocab_size_);
  if (!a.sampled) {
    a.sampled = true;
    a.first_logits = Clock::now();
    if (a.request.return_prompt_logits) a.prompt_logits.assign(row.begin(), row.end());
  }
  if (a.request.max_tokens == 0) return Finish(a, StopReason::kMaxTokens);
  const int32_t token = a.request.sampler->Sample(row, a.history);
  const std::vector<int32_t>& stops = *a.request.stop_tokens;
  if (std::binary_search(stops.begin(), stops.end(), token)) {
    return Finish(a, StopReason::kStopToken);
  }
  a.history.push_back(token);
  ++a.generated;
  a.turn->Push(token);
  if (a.request.max_tokens > 0 && a.generated >= a.request.max_tokens) {
    return Finish(a, StopReason::kMaxTokens);
  }
  // The next forward would not fit: the reply ends at the context's end.
  if (context_length_ > 0 && static_cast<int64_t>(held_[a.request.seq].size()) >= context_length_) {
    return Finish(a, StopReason::kContextFull);
  }
  a.feed = token;
}

void BatchScheduler::Finish(Active& a, StopReason reason, absl::Status status) {
  const Clock::time_point now = Clock::now();
  TurnOutcome outcome;
  outcome.status = std::move(status);
  outcome.stop_reason = reason;
  outcome.reused_tokens = a.reused;
  outcome.prefill_seconds = Seconds((a.sampled ? a.first_logits : now) - a.start);
  outcome.decode_seconds = a.sampled ? Seconds(now - a.first_logits) : 0.0;
  outcome.prompt_logits = std::move(a.prompt_logits);
  outcome.drafted_tokens = a.drafted;
  outcome.accepted_tokens = a.accepted;
  outcome.draft_rounds = std::move(a.rounds);
  a.finished = true;
  a.turn->Complete(std::move(outcome));
}

}  // namespace oxinfer::engine
