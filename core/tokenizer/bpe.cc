#include "core/tokenizer/bpe.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/tokenizer/byte_level.h"
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

bool OptBool(const JsonValue& obj, absl::string_view key) {
  const JsonValue* v = obj.Find(key);
  return v != nullptr && v->kind == JsonValue::Kind::kBool && v->boolean;
}

struct QueueEntry {
  int32_t rank;
  int32_t pos;
  int32_t new_id;
  int32_t left, right;  // the pair when the entry was pushed
};

// Min-heap on (rank, pos), like tokenizers' `Merge` ordering.
struct QueueGreater {
  bool operator()(const QueueEntry& a, const QueueEntry& b) const {
    if (a.rank != b.rank) return a.rank > b.rank;
    return a.pos > b.pos;
  }
};

}  // namespace

uint64_t VocabIndex::Hash(absl::string_view s) { return absl::Hash<absl::string_view>{}(s); }

void VocabIndex::Reserve(size_t n) {
  size_t cap = 16;
  while (cap < n * 2) cap <<= 1;
  if (cap > slots_.size()) Rehash(cap);
}

void VocabIndex::Rehash(size_t capacity) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot{nullptr, 0, 0, -1});
  mask_ = capacity - 1;
  for (const Slot& s : old) {
    if (s.id < 0) continue;
    const uint64_t h = Hash(absl::string_view(s.data, s.len));
    size_t i = h & mask_;
    while (slots_[i].id >= 0) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

void VocabIndex::InsertOrAssign(absl::string_view token, int32_t id) {
  if ((size_ + 1) * 2 > slots_.size()) Rehash(std::max<size_t>(16, slots_.size() * 2));
  const uint64_t h = Hash(token);
  const uint32_t tag = static_cast<uint32_t>(h >> 32);
  for (size_t i = h & mask_;; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.id < 0) {
      s = Slot{token.data(), static_cast<uint32_t>(token.size()), tag, id};
      ++size_;
      return;
    }
    if (s.tag == tag && absl::string_view(s.data, s.len) == token) {
      s.id = id;
      return;
    }
  }
}

int32_t VocabIndex::Find(absl::string_view str, uint64_t h) const {
  if (slots_.empty()) return -1;
  const uint32_t tag = static_cast<uint32_t>(h >> 32);
  for (size_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    if (s.id < 0) return -1;
    if (s.tag == tag && s.len == str.size() && std::memcmp(s.data, str.data(), s.len) == 0) {
      return s.id;
    }
  }
}

void MergeTable::Reserve(size_t n) {
  size_t cap = 16;
  while (cap < n * 2) cap <<= 1;
  if (cap > slots_.size()) Rehash(cap);
}

void MergeTable::Rehash(size_t capacity) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot{kEmpty, {0, 0}});
  mask_ = capacity - 1;
  shift_ = 64;
  for (size_t c = capacity; c > 1; c >>= 1) --shift_;
  for (const Slot& s : old) {
    if (s.key == kEmpty) continue;
    size_t i = Index(s.key);
    while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

void MergeTable::InsertOrAssign(uint64_t key, Value v) {
  if ((size_ + 1) * 2 > slots_.size()) Rehash(std::max<size_t>(16, slots_.size() * 2));
  for (size_t i = Index(key);; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.key == key) {
      s.value = v;
      return;
    }
    if (s.key == kEmpty) {
      s = Slot{key, v};
      ++size_;
      return;
    }
  }
}

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
  m->fuse_unk_ = OptBool(model, "fuse_unk");
  m->byte_fallback_ = OptBool(model, "byte_fallback");
  m->ignore_merges_ = OptBool(model, "ignore_merges");
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
    if (id_d < 0 || id_d > 2e9 || std::floor(id_d) != id_d) {
      return absl::InvalidArgumentError(absl::StrCat("BPE vocab: bad id for token ", token));
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

std::optional<int32_t> BpeModel::TokenToId(absl::string_view token) const {
  const int32_t id = vocab_.Find(token);
  if (id < 0) return std::nullopt;
  return id;
}

bool BpeModel::IdToToken(int32_t id, absl::string_view* token) const {
  if (id < 0 || static_cast<size_t>(id) >= id_to_token_.size() || !id_present_[id]) {
    return false;
  }
  *token = id_to_token_[id];
  return true;
}

void BpeModel::AddChar(absl::string_view chr, bool is_first, bool is_last,
                       std::vector<Symbol>* symbols,
                       std::pair<int32_t, int32_t>* pending_unk) const {
  auto push = [symbols](int32_t id, int32_t len) {
    const int32_t n = static_cast<int32_t>(symbols->size());
    if (n > 0) symbols->back().next = n;
    symbols->push_back(Symbol{id, n - 1, -1, len});
  };
  const int32_t byte_len = static_cast<int32_t>(chr.size());
  std::string affixed;
  absl::string_view s = chr;
  if (affixes_) {
    if (!is_first && continuing_subword_prefix_) affixed = *continuing_subword_prefix_;
    affixed.append(chr.data(), chr.size());
    if (is_last && end_of_word_suffix_) affixed += *end_of_word_suffix_;
    s = affixed;
  }
  const int32_t found = vocab_.Find(s);
  if (found >= 0) {
    if (pending_unk->first >= 0) {
      push(pending_unk->first, pending_unk->second);
      pending_unk->first = -1;
    }
    push(found, byte_len);
    return;
  }
  if (byte_fallback_) {
    bool all = true;
    for (char c : s) all &= byte_fallback_ids_[static_cast<uint8_t>(c)] >= 0;
    if (all) {
      for (char c : s) push(byte_fallback_ids_[static_cast<uint8_t>(c)], 1);
      return;
    }
  }
  if (unk_token_) {
    if (pending_unk->first >= 0) {
      if (fuse_unk_) {
        pending_unk->second += byte_len;
      } else {
        push(pending_unk->first, pending_unk->second);
        *pending_unk = {unk_id_, byte_len};
      }
    } else {
      *pending_unk = {unk_id_, byte_len};
    }
  }
}

void BpeModel::MergeAll(std::vector<Symbol>* symbols_ptr) const {
  std::vector<Symbol>& symbols = *symbols_ptr;
  const int32_t n = static_cast<int32_t>(symbols.size());
  if (n < 2) return;
  thread_local std::vector<QueueEntry> heap;
  heap.clear();
  const QueueGreater greater;
  auto push = [&](int32_t pos, int32_t left, int32_t right) {
    const MergeTable::Value* m = merges_.Find(PairKey(left, right));
    if (m == nullptr) return;
    heap.push_back(QueueEntry{m->rank, pos, m->new_id, left, right});
    std::push_heap(heap.begin(), heap.end(), greater);
  };
  // Prefetch every initial pair's slot first so the cache misses overlap.
  for (int32_t i = 0; i + 1 < n; ++i) merges_.Prefetch(PairKey(symbols[i].id, symbols[i + 1].id));
  for (int32_t i = 0; i + 1 < n; ++i) {
    const MergeTable::Value* m = merges_.Find(PairKey(symbols[i].id, symbols[i + 1].id));
    if (m != nullptr) {
      heap.push_back(QueueEntry{m->rank, i, m->new_id, symbols[i].id, symbols[i + 1].id});
    }
  }
  std::make_heap(heap.begin(), heap.end(), greater);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), greater);
    const QueueEntry top = heap.back();
    heap.pop_back();
    Symbol& cur = symbols[top.pos];
    if (cur.len == 0) continue;
    if (cur.next == -1) continue;
    const int32_t next_pos = cur.next;
    const Symbol right = symbols[next_pos];
    // Skip entries made stale by earlier merges. tokenizers compares the
    // merge result of the current pair with the entry's; an unchanged pair
    // needs no lookup.
    if (cur.id != top.left || right.id != top.right) {
      const MergeTable::Value* target = merges_.Find(PairKey(cur.id, right.id));
      if (target == nullptr || target->new_id != top.new_id) continue;
    }
    cur.id = top.new_id;
    cur.len += right.len;
    cur.next = right.next;
    symbols[next_pos].len = 0;
    if (right.next > -1 && right.next < n) symbols[right.next].prev = top.pos;
    if (cur.prev >= 0) push(cur.prev, symbols[cur.prev].id, cur.id);
    if (cur.next >= 0 && cur.next < n) push(top.pos, cur.id, symbols[cur.next].id);
  }
}

void BpeModel::TokenizeUncached(absl::string_view word, bool byte_level,
                                std::vector<int32_t>* ids) const {
  thread_local std::vector<Symbol> symbols;
  symbols.clear();
  std::pair<int32_t, int32_t> pending_unk{-1, 0};
  auto push = [](int32_t id, int32_t len) {
    const int32_t n = static_cast<int32_t>(symbols.size());
    if (n > 0) symbols.back().next = n;
    symbols.push_back(Symbol{id, n - 1, -1, len});
  };
  const size_t n = word.size();
  if (byte_level) {
    for (size_t i = 0; i < n; ++i) {
      const uint8_t b = static_cast<uint8_t>(word[i]);
      const int32_t id = byte_level_ids_[b];
      if (id >= 0 && !affixes_ && pending_unk.first < 0) {
        push(id, 1);
      } else {
        AddChar(ByteToUnicodeUtf8(b), i == 0, i + 1 == n, &symbols, &pending_unk);
      }
    }
  } else {
    size_t pos = 0;
    while (pos < n) {
      const size_t start = pos;
      size_t len = ValidSequenceLength(word, pos);
      if (len == 0) len = 1;  // cannot happen: input is valid UTF-8
      pos += len;
      if (!affixes_ && pending_unk.first < 0) {
        size_t p = start;
        const uint32_t cp = len == 1 ? static_cast<uint8_t>(word[start]) : DecodeValid(word, &p);
        auto it = char_ids_.find(cp);
        if (it != char_ids_.end()) {
          push(it->second, static_cast<int32_t>(len));
          continue;
        }
      }
      AddChar(word.substr(start, len), start == 0, pos >= n, &symbols, &pending_unk);
    }
  }
  if (pending_unk.first >= 0) push(pending_unk.first, pending_unk.second);
  MergeAll(&symbols);
  for (const Symbol& s : symbols) {
    if (s.len != 0) ids->push_back(s.id);
  }
}

void BpeModel::Tokenize(absl::string_view word, bool byte_level, std::vector<int32_t>* ids) const {
  if (word.empty()) return;
  if (ignore_merges_) {
    std::string mapped;
    absl::string_view key = word;
    if (byte_level) {
      for (char c : word) mapped += ByteToUnicodeUtf8(static_cast<uint8_t>(c));
      key = mapped;
    }
    const int32_t id = vocab_.Find(key);
    if (id >= 0) {
      ids->push_back(id);
      return;
    }
  }
  const bool cacheable = word.size() <= kMaxCachedWordBytes;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mu_);
    auto it = cache_.find(word);
    if (it != cache_.end()) {
      ids->insert(ids->end(), cache_ids_.begin() + it->second.first,
                  cache_ids_.begin() + it->second.first + it->second.second);
      return;
    }
  }
  const size_t before = ids->size();
  TokenizeUncached(word, byte_level, ids);
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mu_);
    if (cache_.size() >= kMaxCacheEntries) {
      cache_.clear();
      cache_ids_.clear();
    }
    const uint32_t offset = static_cast<uint32_t>(cache_ids_.size());
    cache_ids_.insert(cache_ids_.end(), ids->begin() + before, ids->end());
    cache_.emplace(std::string(word),
                   std::make_pair(offset, static_cast<uint32_t>(ids->size() - before)));
  }
}

}  // namespace tokenizer
}  // namespace oxinfer
