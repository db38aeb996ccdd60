#include "core/engine/media_reference.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace oxinfer::engine {
namespace {

using chat::Value;

const Value* StringField(const Value& object, absl::string_view key) {
  const Value* v = object.is_dict() ? object.object().Find(key) : nullptr;
  return v != nullptr && v->is_string() ? v : nullptr;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = absl::ascii_tolower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// file:///a%20b -> "/a b"; a URL's path is percent-encoded.
absl::StatusOr<std::string> FileUrlPath(absl::string_view url) {
  absl::string_view rest = url.substr(7);  // after "file://"
  if (absl::StartsWith(rest, "localhost/")) rest.remove_prefix(9);
  if (!absl::StartsWith(rest, "/")) {
    return absl::InvalidArgumentError("a file:// URL needs an absolute path (file:///...)");
  }
  std::string path;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] != '%') {
      path += rest[i];
      continue;
    }
    const int hi = i + 2 < rest.size() ? HexDigit(rest[i + 1]) : -1;
    const int lo = hi >= 0 ? HexDigit(rest[i + 2]) : -1;
    if (lo < 0) return absl::InvalidArgumentError("a bad %-escape in the file:// URL");
    path += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  if (path.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError("the file:// URL holds a NUL byte");
  }
  return path;
}

absl::StatusOr<std::string> Base64(absl::string_view text, absl::string_view what) {
  std::string bytes;
  if (!absl::Base64Unescape(text, &bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not valid base64"));
  }
  if (bytes.empty()) return absl::InvalidArgumentError(absl::StrCat(what, " is empty"));
  return bytes;
}

// A data: URL, a file:// URL or a path.
absl::StatusOr<MediaReference> FromUrl(ContentPart::Type type, absl::string_view url) {
  MediaReference ref;
  ref.type = type;
  if (url.empty()) return absl::InvalidArgumentError("the URL or path is empty");
  if (absl::StartsWithIgnoreCase(url, "data:")) {
    const size_t comma = url.find(',');
    if (comma == absl::string_view::npos) {
      return absl::InvalidArgumentError("a data: URL needs a ',' before its data");
    }
    if (!absl::EndsWithIgnoreCase(url.substr(0, comma), ";base64")) {
      return absl::InvalidArgumentError(
          "only base64 data: URLs are accepted (data:...;base64,...)");
    }
    auto bytes = Base64(url.substr(comma + 1), "the data: URL's data");
    if (!bytes.ok()) return bytes.status();
    ref.source = MediaReference::Source::kBytes;
    ref.data = *std::move(bytes);
    return ref;
  }
  if (absl::StartsWithIgnoreCase(url, "http://") || absl::StartsWithIgnoreCase(url, "https://")) {
    return absl::InvalidArgumentError(
        "http(s) URLs are not fetched; give the file as a base64 data: URL or a local path");
  }
  ref.source = MediaReference::Source::kPath;
  if (absl::StartsWithIgnoreCase(url, "file://")) {
    auto path = FileUrlPath(url);
    if (!path.ok()) return path.status();
    ref.data = *std::move(path);
  } else {
    ref.data = std::string(url);
  }
  return ref;
}

}  // namespace

bool IsMediaPartType(absl::string_view type) {
  return type == "image_url" || type == "input_audio" || type == "image" || type == "audio";
}

absl::StatusOr<MediaReference> ParseMediaReference(const Value& part) {
  const Value* type = StringField(part, "type");
  if (type == nullptr || !IsMediaPartType(type->as_string())) {
    return absl::InvalidArgumentError("not an image or audio part");
  }
  const std::string& t = type->as_string();
  if (t == "image_url") {
    // {"image_url": {"url": U}}, or {"image_url": U} as some clients send.
    const Value* field = part.object().Find("image_url");
    const Value* url = field == nullptr     ? nullptr
                       : field->is_string() ? field
                                            : StringField(*field, "url");
    if (url == nullptr) {
      return absl::InvalidArgumentError("an image_url part needs \"image_url\": {\"url\": ...}");
    }
    return FromUrl(ContentPart::Type::kImage, url->as_string());
  }
  if (t == "input_audio") {
    const Value* field = part.object().Find("input_audio");
    const Value* data = field != nullptr ? StringField(*field, "data") : nullptr;
    if (data == nullptr) {
      return absl::InvalidArgumentError(
          "an input_audio part needs \"input_audio\": {\"data\": <base64>, \"format\": ...}");
    }
    const Value* format = field->object().Find("format");
    if (format != nullptr && !format->is_string()) {
      return absl::InvalidArgumentError("input_audio.format must be a string");
    }
    // The decoder is chosen from the bytes; the format is only the client's word for it.
    auto bytes = Base64(data->as_string(), "input_audio.data");
    if (!bytes.ok()) return bytes.status();
    MediaReference ref;
    ref.type = ContentPart::Type::kAudio;
    ref.data = *std::move(bytes);
    return ref;
  }
  // transformers: {"type": "image", "url" | "path" | "image": ...}; likewise audio.
  const ContentPart::Type kind =
      t == "image" ? ContentPart::Type::kImage : ContentPart::Type::kAudio;
  for (const char* key : {"url", "path", t.c_str()}) {
    const Value* v = part.object().Find(key);
    if (v == nullptr) continue;
    if (!v->is_string())
      return absl::InvalidArgumentError(absl::StrCat("\"", key, "\" must be a string"));
    if (std::string(key) == "path") {
      if (v->as_string().empty()) return absl::InvalidArgumentError("the path is empty");
      MediaReference ref;
      ref.type = kind;
      ref.source = MediaReference::Source::kPath;
      ref.data = v->as_string();
      return ref;
    }
    return FromUrl(kind, v->as_string());
  }
  return absl::InvalidArgumentError(absl::StrCat("an ", t, " part needs \"url\", \"path\" or \"", t,
                                                 "\" (a data: URL or a path)"));
}

}  // namespace oxinfer::engine
