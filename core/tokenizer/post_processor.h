// Post-processors of tokenizer.json: TemplateProcessing (single sequence),
// BertProcessing, RobertaProcessing, ByteLevel (offsets only: nothing to do)
// and Sequence. What they add to an encoding is a template of special ids
// around the sequence.
#ifndef OXINFER_CORE_TOKENIZER_POST_PROCESSOR_H_
#define OXINFER_CORE_TOKENIZER_POST_PROCESSOR_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "core/tokenizer/json.h"

namespace oxinfer {
namespace tokenizer {

struct TemplateItem {
  bool is_sequence;                  // the input sequence ("A")
  std::vector<int32_t> special_ids;  // otherwise: these ids
};

// Appends the template of the "post_processor" object to *items (none for
// processors that add no tokens). Other types are refused with an error
// naming them.
absl::Status MakePostProcessor(const JsonValue& v, std::vector<TemplateItem>* items);

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_POST_PROCESSOR_H_
