// BpeModel::FromJson: the vocabulary and merges of a "BPE" model object,
// streamed from their raw JSON spans into the model's tables.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/limits.h"
#include "core/tokenizer/bpe.h"
#include "core/tokenizer/byte_level.h"
#include "core/tokenizer/config_json.h"
#include "core/tokenizer/utf8.h"

namespace oxinfer {
namespace tokenizer {
namespace {

// Optional string member: absent or null -> nullopt.
absl::StatusOr<std::optional<std::string>> OptString(const JsonValue& obj, absl::string_view key) {
  const JsonValue* v = obj.Find(key);
  if (v == nullptr || v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat("BPE model: \"", key, "\" must be a string"));
  }
  return std::optional<std::string>(v->str);
}

}  // namespace

absl::StatusOr<std::unique_ptr<BpeModel>> BpeModel::FromJson(const JsonValue& model) {
  std::unique_ptr<BpeModel> m(new BpeModel());
  const JsonValue* dropout = model.Find("dropout");
  if (dropout != nullptr && !dropout->is_null()) {
    return absl::UnimplementedError("BPE model: dropout is not supported (non-deterministic)");
  }
  auto unk = OptString(model, "unk_token");
  if (!unk.ok()) return unk.status();
  m->unk_token_ = *unk;
  auto prefix = OptString(model, "continuing_subword_prefix");
  if (!prefix.ok()) return prefix.status();
  m->continuing_subword_prefix_ = *prefix;
  auto suffix = OptString(model, "end_of_word_suffix");
  if (!suffix.ok()) return suffix.status();
  m->end_of_word_suffix_ = *suffix;
  m->fuse_unk_ = GetBool(model, "fuse_unk", false);
  m->byte_fallback_ = GetBool(model, "byte_fallback", false);
  m->ignore_merges_ = GetBool(model, "ignore_merges", false);
  m->affixes_ = (m->continuing_subword_prefix_ && !m->continuing_subword_prefix_->empty()) ||
                (m->end_of_word_suffix_ && !m->end_of_word_suffix_->empty());

  const JsonValue* vocab = model.Find("vocab");
  if (vocab == nullptr) return absl::InvalidArgumentError("BPE model: missing \"vocab\"");
  absl::Status s = m->LoadVocab(*vocab);
  if (!s.ok()) return s;
  const JsonValue* merges = model.Find("merges");
  if (merges != nullptr) {
    s = m->LoadMerges(*merges);
    if (!s.ok()) return s;
  }
  if (m->unk_token_) {
    m->unk_id_ = m->vocab_.Find(*m->unk_token_);
  }
  m->BuildTables();
  return m;
}

absl::Status BpeModel::LoadVocab(const JsonValue& vocab) {
  auto add = [&](absl::string_view token, double id_d) -> absl::Status {
    // Ids size the tables: one near 2^31 must not allocate for all below it.
    if (!(id_d >= 0 && id_d < limits::kMaxVocabSize) || std::floor(id_d) != id_d) {
      return absl::InvalidArgumentError(absl::StrCat("BPE vocab: id ", id_d, " of token '", token,
                                                     "' is not an integer in [0, ",
                                                     limits::kMaxVocabSize, ")"));
    }
    if (arena_.size() + token.size() > arena_.capacity()) {
      return absl::InternalError("BPE vocab: arena overflow");
    }
    const int32_t id = static_cast<int32_t>(id_d);
    if (static_cast<size_t>(id) >= id_to_token_.size()) {
      id_to_token_.resize(id + 1);
      id_present_.resize(id + 1, false);
    }
    const size_t offset = arena_.size();
    arena_.append(token.data(), token.size());
    const absl::string_view stored(arena_.data() + offset, token.size());
    id_to_token_[id] = stored;
    id_present_[id] = true;
    vocab_.InsertOrAssign(stored, id);
    return absl::OkStatus();
  };
  if (vocab.kind == JsonValue::Kind::kObject) {
    size_t total = 0;
    for (const auto& kv : vocab.object) total += kv.first.size();
    arena_.reserve(total);
    vocab_.Reserve(vocab.object.size());
    for (const auto& kv : vocab.object) {
      if (kv.second.kind != JsonValue::Kind::kNumber) {
        return absl::InvalidArgumentError("BPE vocab: ids must be numbers");
      }
      absl::Status s = add(kv.first, kv.second.number);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (vocab.kind != JsonValue::Kind::kRaw) {
    return absl::InvalidArgumentError("BPE model: \"vocab\" must be an object");
  }
  JsonReader r(vocab.raw);
  absl::Status s = r.Expect('{');
  if (!s.ok()) return s;
  arena_.reserve(vocab.raw.size());
  // Upper bound on the entry count (one ':' per entry, plus any inside tokens).
  vocab_.Reserve(std::count(vocab.raw.begin(), vocab.raw.end(), ':'));
  if (r.Consume('}')) return absl::OkStatus();
  std::string key;
  while (true) {
    double id;
    s = r.ParseString(&key);
    if (s.ok()) s = r.Expect(':');
    if (s.ok()) s = r.ParseNumber(&id);
    if (s.ok()) s = add(key, id);
    if (!s.ok()) return s;
    if (r.Consume(',')) continue;
    return r.Expect('}');
  }
}

absl::Status BpeModel::LoadMerges(const JsonValue& merges) {
  const size_t prefix_len = continuing_subword_prefix_ ? continuing_subword_prefix_->size() : 0;
  int32_t rank = 0;
  // Merges are resolved in batches so that the ~3 hash lookups per merge
  // (left, right, merged token) can be prefetched together.
  constexpr int kBatch = 64;
  std::string left[kBatch], right[kBatch], joined[kBatch];
  int count = 0;
  auto flush = [&]() -> absl::Status {
    uint64_t hl[kBatch], hr[kBatch], hj[kBatch];
    for (int i = 0; i < count; ++i) {
      const absl::string_view b = right[i];
      const absl::string_view b_rest = b.size() >= prefix_len ? b.substr(prefix_len) : b;
      joined[i].assign(left[i]);
      joined[i].append(b_rest.data(), b_rest.size());
      hl[i] = VocabIndex::Hash(left[i]);
      hr[i] = VocabIndex::Hash(right[i]);
      hj[i] = VocabIndex::Hash(joined[i]);
      vocab_.Prefetch(hl[i]);
      vocab_.Prefetch(hr[i]);
      vocab_.Prefetch(hj[i]);
    }
    int32_t ia[kBatch], ib[kBatch], in[kBatch];
    for (int i = 0; i < count; ++i) {
      ia[i] = vocab_.Find(left[i], hl[i]);
      ib[i] = vocab_.Find(right[i], hr[i]);
      in[i] = vocab_.Find(joined[i], hj[i]);
      if (ia[i] < 0 || ib[i] < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("BPE merges: token out of vocabulary: ", ia[i] < 0 ? left[i] : right[i]));
      }
      if (in[i] < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("BPE merges: merged token out of vocabulary: ", joined[i]));
      }
      merges_.Prefetch(PairKey(ia[i], ib[i]));
    }
    for (int i = 0; i < count; ++i) {
      merges_.InsertOrAssign(PairKey(ia[i], ib[i]), MergeTable::Value{rank++, in[i]});
    }
    count = 0;
    return absl::OkStatus();
  };
  auto add = [&](absl::string_view a, absl::string_view b) -> absl::Status {
    left[count].assign(a.data(), a.size());
    right[count].assign(b.data(), b.size());
    if (++count == kBatch) return flush();
    return absl::OkStatus();
  };
  auto add_legacy = [&](absl::string_view line) -> absl::Status {
    const size_t sp = line.find(' ');
    if (sp == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("BPE merges: bad merge \"", line, "\""));
    }
    return add(line.substr(0, sp), line.substr(sp + 1));
  };
  if (merges.kind == JsonValue::Kind::kArray) {
    merges_.Reserve(merges.array.size());
    for (const JsonValue& m : merges.array) {
      absl::Status s;
      if (m.is_string()) {
        s = add_legacy(m.str);
      } else if (m.is_array() && m.array.size() == 2 && m.array[0].is_string() &&
                 m.array[1].is_string()) {
        s = add(m.array[0].str, m.array[1].str);
      } else {
        s = absl::InvalidArgumentError("BPE merges: each merge must be \"a b\" or [a, b]");
      }
      if (!s.ok()) return s;
    }
    return flush();
  }
  if (merges.kind != JsonValue::Kind::kRaw) {
    return absl::InvalidArgumentError("BPE model: \"merges\" must be an array");
  }
  JsonReader r(merges.raw);
  absl::Status s = r.Expect('[');
  if (!s.ok()) return s;
  {
    // Upper bound on the merge count: one '[' per [a, b] entry, or two quotes
    // per "a b" entry (the files are pretty-printed, so bytes say little).
    r.SkipWs();
    const bool pairs = r.Peek() == '[';
    const size_t n = pairs ? std::count(merges.raw.begin(), merges.raw.end(), '[')
                           : std::count(merges.raw.begin(), merges.raw.end(), '"') / 2;
    merges_.Reserve(n);
  }
  if (r.Consume(']')) return absl::OkStatus();
  std::string a, b;
  while (true) {
    r.SkipWs();
    if (r.Peek() == '[') {
      s = r.Expect('[');
      if (s.ok()) s = r.ParseString(&a);
      if (s.ok()) s = r.Expect(',');
      if (s.ok()) s = r.ParseString(&b);
      if (s.ok()) s = r.Expect(']');
      if (s.ok()) s = add(a, b);
    } else {
      s = r.ParseString(&a);
      if (s.ok()) s = add_legacy(a);
    }
    if (!s.ok()) return s;
    if (r.Consume(',')) continue;
    s = r.Expect(']');
    if (!s.ok()) return s;
    return flush();
  }
}

void BpeModel::BuildTables() {
  byte_level_ids_.fill(-1);
  byte_fallback_ids_.fill(-1);
  for (int b = 0; b < 256; ++b) {
    byte_level_ids_[b] = vocab_.Find(ByteToUnicodeUtf8(static_cast<uint8_t>(b)));
    byte_fallback_ids_[b] = vocab_.Find(absl::StrFormat("<0x%02X>", b));
  }
  for (size_t id = 0; id < id_to_token_.size(); ++id) {
    if (!id_present_[id]) continue;
    const absl::string_view t = id_to_token_[id];
    if (vocab_.Find(t) != static_cast<int32_t>(id)) continue;
    if (t.empty() || t.size() > 4) continue;
    const size_t len = ValidSequenceLength(t, 0);
    if (len != t.size()) continue;
    size_t pos = 0;
    char_ids_[DecodeValid(t, &pos)] = static_cast<int32_t>(id);
  }
}

}  // namespace tokenizer
}  // namespace oxinfer
