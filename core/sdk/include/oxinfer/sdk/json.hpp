// oxinfer SDK: reading JSON (config.json, tokenizer files) through the host's
// strict, bounded parser. A Json is a read-only view of one value; it knows
// its path in the document, so every error names the file and the field:
//   "config.json: text_config.head_dim: expected an integer, got a string".
//
//   OXI_ASSIGN_OR_RETURN(sdk::JsonDoc doc, sdk::JsonDoc::FromFile(dir + "/config.json"));
//   sdk::Json c = doc.root();
//   if (c.Has("text_config")) c = c["text_config"];
//   OXI_ASSIGN_OR_RETURN(int64_t hidden, c["hidden_size"].Int());
//   OXI_ASSIGN_OR_RETURN(double theta, c["rope_theta"].NumberOr(10000.0));
#ifndef OXINFER_SDK_JSON_HPP_
#define OXINFER_SDK_JSON_HPP_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "oxinfer/abi_common.h"
#include "oxinfer/sdk/common.hpp"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace sdk {

class Json {
 public:
  Json() = default;  // absent
  Json(const oxi_json* doc, int64_t index, std::string source, std::string path)
      : doc_(doc), index_(index), source_(std::move(source)), path_(std::move(path)) {}

  // Absent: a missing member or element (every accessor then says so).
  bool present() const { return doc_ != nullptr && index_ >= 0; }
  int32_t type() const { return present() ? node().type : -1; }
  bool is_null() const { return type() == OXI_JSON_NULL; }
  // Absent or null: where a config may leave a field out.
  bool is_missing() const { return !present() || is_null(); }
  bool is_bool() const { return type() == OXI_JSON_BOOL; }
  bool is_int() const { return type() == OXI_JSON_INT; }
  bool is_number() const { return type() == OXI_JSON_INT || type() == OXI_JSON_FLOAT; }
  bool is_string() const { return type() == OXI_JSON_STRING; }
  bool is_array() const { return type() == OXI_JSON_ARRAY; }
  bool is_object() const { return type() == OXI_JSON_OBJECT; }
  // "config.json: text_config.head_dim" (the document's name, then the path).
  std::string where() const { return path_.empty() ? source_ : source_ + ": " + path_; }

  int64_t size() const { return is_array() || is_object() ? node().n_children : 0; }
  bool Has(std::string_view key) const { return (*this)[key].present(); }
  Json operator[](std::string_view key) const {
    const std::string p = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
    if (!is_object()) return Json(nullptr, -1, source_, p);
    for (int64_t c = node().first_child; c >= 0; c = doc_->nodes[c].next_sibling) {
      const oxi_json_node& n = doc_->nodes[c];
      if (n.key != nullptr && std::string_view(n.key, n.key_size) == key) {
        return Json(doc_, c, source_, p);
      }
    }
    return Json(nullptr, -1, source_, p);
  }
  Json operator[](int64_t i) const {
    const std::string p = path_ + "[" + std::to_string(i) + "]";
    if (!is_array() || i < 0 || i >= size()) return Json(nullptr, -1, source_, p);
    int64_t c = node().first_child;
    for (int64_t k = 0; k < i; ++k) c = doc_->nodes[c].next_sibling;
    return Json(doc_, c, source_, p);
  }
  // The elements of an array or the members of an object, in document order.
  std::vector<Json> Children() const {
    std::vector<Json> out;
    if (!is_array() && !is_object()) return out;
    int64_t i = 0;
    for (int64_t c = node().first_child; c >= 0; c = doc_->nodes[c].next_sibling, ++i) {
      const oxi_json_node& n = doc_->nodes[c];
      std::string p = is_object() ? (path_.empty() ? std::string(n.key, n.key_size)
                                                   : path_ + "." + std::string(n.key, n.key_size))
                                  : path_ + "[" + std::to_string(i) + "]";
      out.emplace_back(doc_, c, source_, std::move(p));
    }
    return out;
  }
  // An object member's key ("" otherwise).
  std::string_view key() const {
    return present() && node().key != nullptr ? std::string_view(node().key, node().key_size)
                                              : std::string_view();
  }

  StatusOr<int64_t> Int() const {
    if (is_int()) return node().integer;
    if (type() == OXI_JSON_FLOAT) {
      const double d = node().number;
      // The range first: casting a double outside int64's is undefined.
      if (d > -9.2e18 && d < 9.2e18 && d == static_cast<double>(static_cast<int64_t>(d))) {
        return static_cast<int64_t>(d);  // 4.0 as written by some tools
      }
    }
    return Wrong("an integer");
  }
  // An integer within [lo, hi].
  StatusOr<int64_t> IntIn(int64_t lo, int64_t hi) const {
    OXI_ASSIGN_OR_RETURN(int64_t v, Int());
    if (v < lo || v > hi) {
      return InvalidArgumentError(
          StrCat(where(), ": ", v, " is out of range (expected ", lo, " to ", hi, ")"));
    }
    return v;
  }
  StatusOr<double> Number() const {
    if (is_number()) return node().number;
    return Wrong("a number");
  }
  StatusOr<bool> Bool() const {
    if (is_bool()) return node().integer != 0;
    return Wrong("true or false");
  }
  StatusOr<std::string> String() const {
    if (is_string()) return std::string(node().string, node().string_size);
    return Wrong("a string");
  }
  // The value, or `fallback` when the field is absent or null.
  StatusOr<int64_t> IntOr(int64_t fallback) const { return is_missing() ? fallback : Int(); }
  StatusOr<double> NumberOr(double fallback) const {
    return is_missing() ? StatusOr<double>(fallback) : Number();
  }
  StatusOr<bool> BoolOr(bool fallback) const {
    return is_missing() ? StatusOr<bool>(fallback) : Bool();
  }
  StatusOr<std::string> StringOr(const std::string& fallback) const {
    return is_missing() ? StatusOr<std::string>(fallback) : String();
  }
  // The string, or `fallback` when this is not a string (for probes, which
  // only ask whether a field says something).
  std::string StringValueOr(const std::string& fallback) const {
    return is_string() ? std::string(node().string, node().string_size) : fallback;
  }
  // An integer or an array of integers (eos_token_id), as a list.
  StatusOr<std::vector<int64_t>> IntList() const {
    std::vector<int64_t> out;
    if (is_missing()) return out;
    if (is_array()) {
      for (const Json& e : Children()) {
        OXI_ASSIGN_OR_RETURN(int64_t v, e.Int());
        out.push_back(v);
      }
      return out;
    }
    OXI_ASSIGN_OR_RETURN(int64_t v, Int());
    out.push_back(v);
    return out;
  }
  StatusOr<std::vector<std::string>> StringList() const {
    std::vector<std::string> out;
    if (is_missing()) return out;
    if (!is_array()) return Wrong("an array of strings");
    for (const Json& e : Children()) {
      OXI_ASSIGN_OR_RETURN(std::string v, e.String());
      out.push_back(std::move(v));
    }
    return out;
  }

  // INVALID_ARGUMENT naming this field: "<where>: <what>".
  Status Error(const std::string& what) const {
    return InvalidArgumentError(where() + ": " + what);
  }

 private:
  const oxi_json_node& node() const { return doc_->nodes[index_]; }
  static const char* TypeName(int32_t t) {
    switch (t) {
      case OXI_JSON_NULL:
        return "null";
      case OXI_JSON_BOOL:
        return "a boolean";
      case OXI_JSON_INT:
        return "an integer";
      case OXI_JSON_FLOAT:
        return "a number";
      case OXI_JSON_STRING:
        return "a string";
      case OXI_JSON_ARRAY:
        return "an array";
      case OXI_JSON_OBJECT:
        return "an object";
      default:
        return "nothing (missing)";
    }
  }
  Status Wrong(const char* expected) const {
    return InvalidArgumentError(
        StrCat(where(), ": expected ", expected, ", got ", TypeName(type())));
  }

  const oxi_json* doc_ = nullptr;
  int64_t index_ = -1;
  std::string source_;
  std::string path_;
};

// A parsed document; owns the host's parse. Movable.
class JsonDoc {
 public:
  JsonDoc() = default;

  static StatusOr<JsonDoc> Parse(std::string_view text, const std::string& source,
                                 const oxi_host_services* host = Host()) {
    if (!OXI_HOST_HAS(host, json_parse) || !OXI_HOST_HAS(host, json_free)) {
      return UnimplementedError("the host offers no JSON parser");
    }
    const oxi_json* doc = nullptr;
    char error[1024] = {};
    const int32_t rc =
        host->json_parse(text.data(), text.size(), source.c_str(), &doc, error, sizeof error);
    if (rc != OXI_OK || doc == nullptr) {
      return Status(rc == OXI_OK ? OXI_INTERNAL : rc,
                    error[0] ? std::string(error) : source + ": invalid JSON");
    }
    JsonDoc d;
    auto free_fn = host->json_free;
    d.doc_ = std::shared_ptr<const oxi_json>(doc, [free_fn](const oxi_json* p) { free_fn(p); });
    d.source_ = source;
    return d;
  }

  // Reads and parses a file; `name` (default: the file's base name) names it
  // in messages.
  static StatusOr<JsonDoc> FromFile(const std::string& path,
                                    uint64_t max_bytes = uint64_t{64} << 20,
                                    const oxi_host_services* host = Host()) {
    OXI_ASSIGN_OR_RETURN(std::string text, ReadFile(path, max_bytes, host));
    return Parse(text, path, host);
  }

  Json root() const {
    if (doc_ == nullptr || doc_->n_nodes == 0) return Json();
    return Json(doc_.get(), 0, source_, "");
  }
  const std::string& source() const { return source_; }

 private:
  std::shared_ptr<const oxi_json> doc_;
  std::string source_;
};

}  // namespace sdk
}  // namespace oxinfer

#endif  // OXINFER_SDK_JSON_HPP_
