// libFuzzer entry point for the json_parse host service. A document that
// parses must be a well-formed node array (abi_common.h): pre-order, every
// node the child of exactly one container, children counted, keys exactly on
// object members, strings NUL-terminated, the strings' bytes no more than
// the text's; and it must say what nlohmann's document of the same text says.
// Any violation traps, which libFuzzer reports as a crash.
#include "fuzz/json_document_fuzzer.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/host/json.h"
#include "core/json_util.h"

namespace oxinfer {
namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

void CheckNodes(const oxi_json& doc, size_t text_size) {
  const int64_t n = doc.n_nodes;
  Check(n >= 1 && doc.nodes[0].key == nullptr && doc.nodes[0].next_sibling == -1);
  std::vector<int> parents(static_cast<size_t>(n), 0);
  uint64_t string_bytes = 0;
  for (int64_t i = 0; i < n; ++i) {
    const oxi_json_node& node = doc.nodes[i];
    Check(node.type >= OXI_JSON_NULL && node.type <= OXI_JSON_OBJECT && node.reserved == 0);
    Check(node.next_sibling == -1 || (node.next_sibling > i && node.next_sibling < n));
    if (node.type == OXI_JSON_BOOL) Check(node.integer == 0 || node.integer == 1);
    if (node.type == OXI_JSON_INT) Check(node.number == static_cast<double>(node.integer));
    if (node.type == OXI_JSON_STRING) {
      Check(node.string != nullptr && node.string[node.string_size] == '\0');
      string_bytes += node.string_size + 1;
    } else {
      Check(node.string == nullptr && node.string_size == 0);
    }
    if (node.key != nullptr) {
      Check(node.key[node.key_size] == '\0');
      string_bytes += node.key_size + 1;
    }
    const bool container = node.type == OXI_JSON_ARRAY || node.type == OXI_JSON_OBJECT;
    if (!container) {
      Check(node.n_children == 0 && node.first_child == -1);
      continue;
    }
    Check(node.first_child == -1 || node.first_child == i + 1);
    int64_t count = 0;
    for (int64_t c = node.first_child; c >= 0; c = doc.nodes[c].next_sibling) {
      Check(c > i && c < n && count < n);
      ++parents[c];
      Check((doc.nodes[c].key != nullptr) == (node.type == OXI_JSON_OBJECT));
      ++count;
    }
    Check(count == node.n_children);
  }
  Check(parents[0] == 0);
  for (int64_t i = 1; i < n; ++i) Check(parents[i] == 1);
  Check(string_bytes <= text_size);
}

// Node `i` and its subtree against nlohmann's value.
void CheckSame(const oxi_json& doc, int64_t i, const nlohmann::json& v) {
  const oxi_json_node& node = doc.nodes[i];
  switch (node.type) {
    case OXI_JSON_NULL:
      return Check(v.is_null());
    case OXI_JSON_BOOL:
      return Check(v.is_boolean() && v.get<bool>() == (node.integer != 0));
    case OXI_JSON_INT:
      return Check(v.is_number_integer() &&
                   !(v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX) &&
                   v.get<int64_t>() == node.integer);
    case OXI_JSON_FLOAT:
      Check(v.is_number());
      if (v.is_number_float()) Check(v.get<double>() == node.number);
      if (v.is_number_integer()) Check(v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX);
      return;
    case OXI_JSON_STRING:
      return Check(v.is_string() && v.get_ref<const std::string&>() ==
                                        std::string_view(node.string, node.string_size));
    case OXI_JSON_ARRAY: {
      Check(v.is_array() && static_cast<int64_t>(v.size()) == node.n_children);
      size_t k = 0;
      for (int64_t c = node.first_child; c >= 0; c = doc.nodes[c].next_sibling) {
        CheckSame(doc, c, v[k++]);
      }
      return;
    }
    case OXI_JSON_OBJECT: {
      Check(v.is_object() && static_cast<int64_t>(v.size()) == node.n_children);
      for (int64_t c = node.first_child; c >= 0; c = doc.nodes[c].next_sibling) {
        auto it = v.find(std::string(doc.nodes[c].key, doc.nodes[c].key_size));
        Check(it != v.end());
        CheckSame(doc, c, *it);
      }
      return;
    }
    default:
      Check(false);
  }
}

}  // namespace

absl::Status ParseJsonFuzzInput(const uint8_t* data, size_t size) {
  const char* text = reinterpret_cast<const char*>(data);
  const oxi_json* doc = nullptr;
  char error[512];
  error[0] = '\0';
  const int32_t code = HostJsonParse(text, size, "fuzz", &doc, error, sizeof error);
  absl::StatusOr<nlohmann::json> dom = ParseJsonStrict(std::string_view(text, size));
  Check(dom.ok() == (code == OXI_OK));
  if (code != OXI_OK) {
    Check(doc == nullptr && error[0] != '\0');
    return absl::Status(static_cast<absl::StatusCode>(code), error);
  }
  CheckNodes(*doc, size);
  CheckSame(*doc, 0, *dom);
  HostJsonFree(doc);
  return absl::OkStatus();
}

}  // namespace oxinfer

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)oxinfer::ParseJsonFuzzInput(data, size);
  return 0;
}
