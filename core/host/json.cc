#include "core/host/json.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/host/abi_status.h"
#include "core/json_util.h"

namespace oxinfer {
namespace {

struct JsonStorage {
  std::vector<oxi_json_node> nodes;
  std::string chars;  // every key and string, each followed by a NUL
};

// What json_parse hands out: `c` first, so that the oxi_json* is the handle.
struct JsonDocument {
  oxi_json c;
  JsonStorage* storage;
};
static_assert(std::is_standard_layout<JsonDocument>::value,
              "JsonDocument* and its first member must be interconvertible");

// Builds the node array from the strict reader's events.
class FlatJsonBuilder final : public JsonEvents {
 public:
  explicit FlatJsonBuilder(JsonStorage* out, size_t text_size) : out_(*out) {
    // Keys and strings are shorter than their quoted text: never reallocated.
    out_.chars.reserve(text_size);
  }

  bool null() override {
    Add(OXI_JSON_NULL);
    return true;
  }
  bool boolean(bool v) override {
    Add(OXI_JSON_BOOL).integer = v ? 1 : 0;
    return true;
  }
  bool number_integer(number_integer_t v) override {
    oxi_json_node& n = Add(OXI_JSON_INT);
    n.integer = v;
    n.number = static_cast<double>(v);
    return true;
  }
  bool number_unsigned(number_unsigned_t v) override {
    if (v <= static_cast<number_unsigned_t>(INT64_MAX)) {
      return number_integer(static_cast<number_integer_t>(v));
    }
    Add(OXI_JSON_FLOAT).number = static_cast<double>(v);
    return true;
  }
  bool number_float(number_float_t v, const string_t&) override {
    Add(OXI_JSON_FLOAT).number = v;
    return true;
  }
  bool string(string_t& v) override {
    Add(OXI_JSON_STRING).string_size = v.size();
    Store(v);
    return true;
  }
  bool binary(binary_t&) override { return false; }  // not in JSON text
  bool start_object(std::size_t) override {
    open_.push_back({Index(Add(OXI_JSON_OBJECT)), -1});
    return true;
  }
  bool key(string_t& k) override {
    key_size_ = k.size();
    has_key_ = true;
    Store(k);
    return true;
  }
  bool end_object() override {
    open_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    open_.push_back({Index(Add(OXI_JSON_ARRAY)), -1});
    return true;
  }
  bool end_array() override {
    open_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;  // the strict reader reports errors; never called
  }

  // Points keys and strings into the finished character store. They were
  // stored in document order (a member's key just before its value), so one
  // pass in node order finds each.
  void Finish() {
    const char* p = out_.chars.data();
    for (oxi_json_node& n : out_.nodes) {
      if (n.reserved != 0) {  // set by Add: this node carries a key
        n.reserved = 0;
        n.key = p;
        p += n.key_size + 1;
      }
      if (n.type == OXI_JSON_STRING) {
        n.string = p;
        p += n.string_size + 1;
      }
    }
  }

 private:
  struct OpenContainer {
    int64_t index;
    int64_t last_child;
  };

  int64_t Index(const oxi_json_node& n) const { return &n - out_.nodes.data(); }

  // A new node linked as the last child of the innermost open container.
  oxi_json_node& Add(int32_t type) {
    const int64_t index = static_cast<int64_t>(out_.nodes.size());
    oxi_json_node node;
    std::memset(&node, 0, sizeof node);
    node.type = type;
    node.first_child = -1;
    node.next_sibling = -1;
    if (has_key_) {
      node.reserved = 1;  // Finish() points key at the stored bytes
      node.key_size = key_size_;
      has_key_ = false;
    }
    out_.nodes.push_back(node);
    if (!open_.empty()) {
      OpenContainer& parent = open_.back();
      if (parent.last_child < 0) {
        out_.nodes[parent.index].first_child = index;
      } else {
        out_.nodes[parent.last_child].next_sibling = index;
      }
      parent.last_child = index;
      ++out_.nodes[parent.index].n_children;
    }
    return out_.nodes.back();
  }

  void Store(const std::string& s) {
    out_.chars.append(s);
    out_.chars.push_back('\0');
  }

  JsonStorage& out_;
  std::vector<OpenContainer> open_;
  bool has_key_ = false;
  uint64_t key_size_ = 0;
};

}  // namespace

absl::StatusOr<const oxi_json*> ParseJsonDocument(std::string_view text, std::string_view source) {
  auto storage = std::make_unique<JsonStorage>();
  FlatJsonBuilder builder(storage.get(), text.size());
  if (absl::Status s = ParseJsonStrict(text, &builder); !s.ok()) {
    return absl::Status(
        s.code(), absl::StrCat(absl::string_view(source.data(), source.size()), ": ", s.message()));
  }
  builder.Finish();
  auto doc = std::make_unique<JsonDocument>();
  doc->c.struct_size = sizeof(oxi_json);
  doc->c.n_nodes = static_cast<int64_t>(storage->nodes.size());
  doc->c.nodes = storage->nodes.data();
  doc->storage = storage.release();
  return &doc.release()->c;
}

void FreeJsonDocument(const oxi_json* doc) {
  if (doc == nullptr) return;
  JsonDocument* d = reinterpret_cast<JsonDocument*>(const_cast<oxi_json*>(doc));
  delete d->storage;
  delete d;
}

int32_t HostJsonParse(const char* text, uint64_t size, const char* source, const oxi_json** out,
                      char* error, size_t error_size) {
  return ServeAbiCall("json_parse", error, error_size, [&]() -> absl::Status {
    if (out == nullptr) return absl::InvalidArgumentError("json_parse: out is NULL");
    *out = nullptr;
    const char* name = source != nullptr && source[0] ? source : "<json>";
    if (text == nullptr && size > 0) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": json_parse: text is NULL"));
    }
    absl::StatusOr<const oxi_json*> doc =
        ParseJsonDocument(std::string_view(text == nullptr ? "" : text, size), name);
    if (!doc.ok()) return doc.status();
    *out = *doc;
    return absl::OkStatus();
  });
}

void HostJsonFree(const oxi_json* doc) { FreeJsonDocument(doc); }

}  // namespace oxinfer
