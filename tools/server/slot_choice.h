// Which free slot a request takes. Each slot's sequence keeps the tokens of
// its last request (prompt and reply), which the engine reuses when the next
// prompt starts the same way; so a request goes to the slot that holds the
// longest start of its prompt. Where no slot holds a real part of it (less
// than half the prompt: a shared system prompt or template header is not
// worth another conversation's cache), it takes the slot used least recently,
// so that the caches of conversations still going are kept. llama.cpp's
// server chooses the same way (its slot_prompt_similarity, 0.5 by default).
// A model whose sequences cannot be rewound (a recurrent state) reuses a slot
// only when the prompt starts with all the slot holds; another slot's partial
// match is worth nothing there.
#ifndef OXINFER_TOOLS_SERVER_SLOT_CHOICE_H_
#define OXINFER_TOOLS_SERVER_SLOT_CHOICE_H_

#include <cstdint>
#include <vector>

namespace oxinfer::server {

struct SlotHistory {
  std::vector<int32_t> tokens;  // what the slot's sequence was last given
  int64_t last_used = 0;        // larger: more recent; 0: never used
};

// How many tokens `a` and `b` start with in common.
int64_t CommonPrefix(const std::vector<int32_t>& a, const std::vector<int32_t>& b);

// The tokens of `prompt` that `slot` can hand on. The reply's last token may
// not have been fed (it was sampled when the reply ended), hence the slack of
// one for models that cannot rewind.
int64_t Reusable(const SlotHistory& slot, const std::vector<int32_t>& prompt, bool can_rewind);

// The index into `candidates` (not empty) of the slot for `prompt`.
int ChooseSlot(const std::vector<const SlotHistory*>& candidates,
               const std::vector<int32_t>& prompt, bool can_rewind);

}  // namespace oxinfer::server

#endif  // OXINFER_TOOLS_SERVER_SLOT_CHOICE_H_
