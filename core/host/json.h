// The host's JSON services (abi_common.h): json_parse and json_free. The text
// is parsed by the core's strict reader (core/json_util.h) and flattened into
// the node array plugins read (sdk/json.hpp):
//   - nodes[0] is the root; nodes are in document order (pre-order);
//   - an array's or object's children are linked first_child -> next_sibling
//     (-1 ends), n_children counts them; an object's children carry their
//     keys (NUL-terminated, key_size bytes), others have key NULL;
//   - STRING: a NUL-terminated copy (string_size bytes, NULs inside kept);
//   - INT: integers that fit int64 (integer and number); FLOAT: every other
//     number, integers above INT64_MAX included (number); BOOL: integer 0 / 1.
// Memory is linear in the input: one node per value, the strings' bytes once.
#ifndef OXINFER_CORE_HOST_JSON_H_
#define OXINFER_CORE_HOST_JSON_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "oxinfer/abi_common.h"

namespace oxinfer {

// The flattened document; INVALID_ARGUMENT "<source>: line:col: what" for
// text the strict reader refuses. Release with FreeJsonDocument.
absl::StatusOr<const oxi_json*> ParseJsonDocument(std::string_view text, std::string_view source);
void FreeJsonDocument(const oxi_json* doc);

// The C entries of the services table over the two above.
int32_t HostJsonParse(const char* text, uint64_t size, const char* source, const oxi_json** out,
                      char* error, size_t error_size);
void HostJsonFree(const oxi_json* doc);

}  // namespace oxinfer

#endif  // OXINFER_CORE_HOST_JSON_H_
