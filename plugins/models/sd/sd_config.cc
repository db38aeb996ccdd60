#include "plugins/models/sd/sd_config.h"

namespace oxinfer {
namespace sd {

sdk::StatusOr<sdk::JsonDoc> ReadConfig(const std::string& path) {
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc doc, sdk::JsonDoc::FromFile(path));
  if (!doc.root().is_object()) {
    return sdk::InvalidArgumentError(path + ": not a JSON object");
  }
  return doc;
}

sdk::StatusOr<std::vector<int64_t>> IntOrList(const sdk::Json& j, size_t n_if_scalar) {
  if (j.is_missing()) return j.Error("missing");
  if (j.is_array()) return j.IntList();
  OXI_ASSIGN_OR_RETURN(int64_t v, j.Int());
  return std::vector<int64_t>(n_if_scalar, v);
}

sdk::Status RefuseUnlessDefault(const sdk::Json& j, const std::string& allowed,
                                const std::string& why) {
  if (j.is_missing()) return sdk::OkStatus();
  if (!allowed.empty() && j.is_string()) {
    OXI_ASSIGN_OR_RETURN(std::string v, j.String());
    if (v == allowed) return sdk::OkStatus();
    return sdk::UnimplementedError(
        sdk::StrCat(j.where(), ": '", v, "' is not supported (", why, ")"));
  }
  return sdk::UnimplementedError(sdk::StrCat(j.where(), " is set (", why, ")"));
}

}  // namespace sd
}  // namespace oxinfer
