// Continuous batching: every turn that has work (a chunk of its prompt, or
// the token it sampled last) joins the next forward, one oxi_batch_entry per
// sequence, so concurrent sessions share each pass over the weights.
//
// Threading. One worker thread, owned by the scheduler, makes every call
// into the model (under the model mutex, which others take to reach the
// model or its backend between forwards) and samples. Sessions, on their own
// threads, Start turns and read the tokens with Turn::Next; the worker never
// waits for them except to stay at most kMaxRunAhead tokens ahead of a
// reader. All public functions here are thread-safe.
#ifndef OXINFER_CORE_ENGINE_SCHEDULER_H_
#define OXINFER_CORE_ENGINE_SCHEDULER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "core/engine/drafter.h"
#include "core/engine/generation.h"
#include "core/engine/model.h"
#include "core/sampling/sampler.h"

namespace oxinfer::engine {

// One turn of one sequence: prefill the prompt (reusing what the sequence
// already holds of it), then sample until a stop.
struct TurnRequest {
  int32_t seq = 0;
  std::vector<int32_t> prompt;  // not empty
  // The prompt's soft-token rows by position (null: none); sized as prompt.
  std::shared_ptr<const PromptMedia> media;
  // Used only on the worker thread until the turn ends.
  sampling::Sampler* sampler = nullptr;
  const std::vector<int32_t>* stop_tokens = nullptr;  // sorted; not emitted
  int64_t max_tokens = -1;                            // as GenerationOptions::max_tokens
  bool return_prompt_logits = false;
  bool record_drafts = false;  // TurnOutcome::draft_rounds
  // Read at every step; the turn then ends as kCancelled.
  const std::atomic<bool>* cancel = nullptr;
};

struct TurnOutcome {
  absl::Status status;
  StopReason stop_reason = StopReason::kStopToken;
  int64_t reused_tokens = 0;
  double prefill_seconds = 0, decode_seconds = 0;
  std::vector<float> prompt_logits;
  int64_t drafted_tokens = 0, accepted_tokens = 0;
  std::vector<DraftRound> draft_rounds;
};

class BatchScheduler;

// A running turn as its session sees it.
class Turn {
 public:
  // Waits for tokens; appends them to *tokens and returns true, or returns
  // false once the turn has ended and every token was taken.
  bool Next(std::vector<int32_t>* tokens);
  // Ends the turn at the worker's next step (the session saw a stop string or
  // was cancelled); tokens sampled meanwhile may still arrive.
  void Stop();
  // Valid once Next has returned false.
  const TurnOutcome& outcome() const { return outcome_; }

 private:
  friend class BatchScheduler;
  explicit Turn(BatchScheduler* scheduler) : scheduler_(scheduler) {}
  void Push(int32_t token);
  void Complete(TurnOutcome outcome);

  BatchScheduler* const scheduler_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int32_t> queue_;  // sampled, not yet taken
  bool reader_waiting_ = false;
  bool done_ = false;
  TurnOutcome outcome_;
  std::atomic<int> undelivered_{0};
  std::atomic<bool> stop_{false};
};

class BatchScheduler {
 public:
  // How far sampling may run ahead of a turn's reader.
  static constexpr int kMaxRunAhead = 8;

  // `model` and `model_mutex` are borrowed and must outlive the scheduler;
  // prompts are fed in chunks of at most prefill_chunk tokens per forward.
  // With speculative.drafter (borrowed, outliving the scheduler) every
  // decoding step feeds the sampled token and its drafts, and keeps what the
  // model's own sampling agrees with: the tokens are those of plain decoding.
  BatchScheduler(Model* model, std::mutex* model_mutex, int32_t prefill_chunk,
                 SpeculativeOptions speculative = {});
  // Ends running turns (ABORTED) and joins the worker.
  ~BatchScheduler();
  BatchScheduler(const BatchScheduler&) = delete;
  BatchScheduler& operator=(const BatchScheduler&) = delete;

  // Queues a turn; at most one per sequence at a time.
  std::shared_ptr<Turn> Start(TurnRequest request);
  // Forgets what `seq` holds (seq_free, before any later turn on it).
  void FreeSequence(int32_t seq);

 private:
  friend class Turn;
  struct Active;

  void Wake();
  void Loop();
  bool Runnable(const Active& a) const;
  void Admit(Active& a);
  // One forward over every runnable turn, then sampling; ended turns leave `active`.
  void Step(std::vector<std::unique_ptr<Active>>& active);
  void Sample(Active& a, const float* logits);
  // Drafts for every decoding turn in the batch (model lock held).
  void DraftAll(const std::vector<std::unique_ptr<Active>>& active);
  // Samples the rows of a drafted entry while they agree with the drafts,
  // then drops the positions past the last one kept (model lock taken).
  void Verify(Active& a, const oxi_batch_entry& e);
  void Finish(Active& a, StopReason reason, absl::Status status = absl::OkStatus());

  Model* const model_;
  std::mutex* const model_mutex_;
  const int32_t prefill_chunk_;
  const int32_t vocab_size_;
  const int64_t context_length_;
  const SpeculativeOptions speculative_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::vector<std::unique_ptr<Active>> incoming_;
  std::vector<int32_t> frees_;

  // Worker-only state.
  std::vector<std::vector<int32_t>> held_;  // per sequence: the tokens it holds
  // Per sequence, per held position: the PromptMedia key (0: text), so that
  // a prefix is reused only where its soft tokens are the same too.
  std::vector<std::vector<uint64_t>> held_keys_;
  std::vector<oxi_batch_entry> entries_;
  std::vector<const oxi_batch_entry*> entry_ptrs_;
  std::vector<Active*> batch_;
  std::vector<float> logits_;

  std::thread worker_;
};

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_SCHEDULER_H_
