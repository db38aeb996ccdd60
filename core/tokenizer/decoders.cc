#include "core/tokenizer/decoders.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/tokenizer/byte_level.h"
#include "core/tokenizer/config_json.h"
#include "core/tokenizer/metaspace.h"
#include "core/tokenizer/pattern.h"
#include "core/tokenizer/utf8.h"

namespace oxinfer {
namespace tokenizer {
namespace {

class ByteLevelDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>* tokens) const override {
    std::string bytes;
    for (const std::string& t : *tokens) {
      const size_t mark = bytes.size();
      bool ok = true;
      size_t pos = 0;
      while (pos < t.size()) {
        if (ValidSequenceLength(t, pos) == 0) {
          ok = false;
          break;
        }
        const int b = UnicodeToByte(DecodeValid(t, &pos));
        if (b < 0) {
          ok = false;
          break;
        }
        bytes.push_back(static_cast<char>(b));
      }
      if (!ok) {
        bytes.resize(mark);
        bytes += t;
      }
    }
    tokens->clear();
    tokens->push_back(IsValidUtf8(bytes) ? std::move(bytes) : ToValidUtf8Lossy(bytes));
  }
};

class ReplaceDecoder : public Decoder {
 public:
  explicit ReplaceDecoder(Replacement r) : replacement_(std::move(r)) {}
  void DecodeChain(std::vector<std::string>* tokens) const override {
    for (std::string& t : *tokens) t = replacement_.Apply(t);
  }

 private:
  Replacement replacement_;
};

class ByteFallbackDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>* tokens) const override {
    std::vector<std::string> out;
    out.reserve(tokens->size());
    std::string pending;
    auto flush = [&]() {
      if (pending.empty()) return;
      if (IsValidUtf8(pending)) {
        out.push_back(pending);
      } else {
        for (size_t i = 0; i < pending.size(); ++i) out.push_back("\xEF\xBF\xBD");
      }
      pending.clear();
    };
    for (std::string& t : *tokens) {
      const int b = ParseByteToken(t);
      if (b >= 0) {
        pending.push_back(static_cast<char>(b));
      } else {
        flush();
        out.push_back(std::move(t));
      }
    }
    flush();
    tokens->swap(out);
  }
};

class FuseDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>* tokens) const override {
    std::string all = absl::StrJoin(*tokens, "");
    tokens->clear();
    tokens->push_back(std::move(all));
  }
};

class StripDecoder : public Decoder {
 public:
  StripDecoder(uint32_t content, size_t start, size_t stop)
      : content_(content), start_(start), stop_(stop) {}
  void DecodeChain(std::vector<std::string>* tokens) const override {
    for (std::string& t : *tokens) {
      std::vector<uint32_t> chars;
      size_t pos = 0;
      while (pos < t.size()) chars.push_back(DecodeValid(t, &pos));
      size_t start_cut = 0;
      for (size_t i = 0; i < start_ && i < chars.size(); ++i) {
        if (chars[i] != content_) break;
        start_cut = i + 1;
      }
      size_t stop_cut = chars.size();
      for (size_t i = 0; i < stop_ && i < chars.size(); ++i) {
        const size_t index = chars.size() - i - 1;
        if (chars[index] != content_) break;
        stop_cut = index;
      }
      std::string out;
      for (size_t i = start_cut; i < stop_cut; ++i) AppendUtf8(chars[i], &out);
      t = std::move(out);
    }
  }

 private:
  uint32_t content_;
  size_t start_, stop_;
};

class MetaspaceDecoder : public Decoder {
 public:
  explicit MetaspaceDecoder(MetaspaceConfig config)
      : replacement_(std::move(config.replacement)), scheme_(config.scheme) {}
  void DecodeChain(std::vector<std::string>* tokens) const override {
    for (size_t i = 0; i < tokens->size(); ++i) {
      std::string& t = (*tokens)[i];
      std::string out;
      size_t pos = 0;
      while (pos < t.size()) {
        if (t.compare(pos, replacement_.size(), replacement_) == 0) {
          if (!(i == 0 && scheme_ != PrependScheme::kNever)) out.push_back(' ');
          pos += replacement_.size();
        } else {
          out.push_back(t[pos++]);
        }
      }
      t = std::move(out);
    }
  }

 private:
  std::string replacement_;
  PrependScheme scheme_;
};

class SequenceDecoder : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> d) : steps_(std::move(d)) {}
  void DecodeChain(std::vector<std::string>* tokens) const override {
    for (const auto& d : steps_) d->DecodeChain(tokens);
  }

 private:
  std::vector<std::unique_ptr<Decoder>> steps_;
};

}  // namespace

int ParseByteToken(const std::string& t) {
  if (t.size() != 6 || t[0] != '<' || t[1] != '0' || t[2] != 'x' || t[5] != '>') return -1;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  const int hi = hex(t[3]), lo = hex(t[4]);
  if (hi < 0 || lo < 0) return -1;
  return hi * 16 + lo;
}

absl::StatusOr<std::unique_ptr<Decoder>> MakeDecoder(const JsonValue& v) {
  const std::string type = TypeOf(v);
  if (type == "ByteLevel") return std::unique_ptr<Decoder>(new ByteLevelDecoder());
  if (type == "ByteFallback") return std::unique_ptr<Decoder>(new ByteFallbackDecoder());
  if (type == "Fuse") return std::unique_ptr<Decoder>(new FuseDecoder());
  if (type == "Replace") {
    auto r = Replacement::FromJson(v, "Replace decoder");
    if (!r.ok()) return r.status();
    return std::unique_ptr<Decoder>(new ReplaceDecoder(*std::move(r)));
  }
  if (type == "Strip") {
    auto content = GetString(v, "content", "Strip decoder");
    if (!content.ok()) return content.status();
    if (content->empty() || ValidSequenceLength(*content, 0) != content->size()) {
      return absl::InvalidArgumentError("Strip decoder: content must be one character");
    }
    size_t pos = 0;
    const uint32_t cp = DecodeValid(*content, &pos);
    const JsonValue* start = v.Find("start");
    const JsonValue* stop = v.Find("stop");
    return std::unique_ptr<Decoder>(
        new StripDecoder(cp, start != nullptr ? static_cast<size_t>(start->number) : 0,
                         stop != nullptr ? static_cast<size_t>(stop->number) : 0));
  }
  if (type == "Metaspace") {
    std::string unknown_scheme;  // read as always
    MetaspaceConfig config = ReadMetaspaceConfig(v, &unknown_scheme);
    return std::unique_ptr<Decoder>(new MetaspaceDecoder(config));
  }
  if (type == "Sequence") {
    auto steps = MakeSequenceSteps<Decoder>(v, "decoders", "decoder", MakeDecoder);
    if (!steps.ok()) return steps.status();
    return std::unique_ptr<Decoder>(new SequenceDecoder(*std::move(steps)));
  }
  return UnsupportedType("decoder", type);
}

}  // namespace tokenizer
}  // namespace oxinfer
