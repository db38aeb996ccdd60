#include "tools/server/image_request.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "core/chat/value.h"
#include "core/json_util.h"

namespace oxinfer::server {
namespace {

using chat::Value;

constexpr int kMaxSide = 4096;
constexpr int kMaxSteps = 1000;

const Value* Field(const Value& body, absl::string_view name) {
  const Value* v = body.object().Find(name);
  return v == nullptr || v->is_none() ? nullptr : v;
}

bool IsInteger(const Value& v) {
  return v.is_int() || (v.is_float() && std::floor(v.as_float()) == v.as_float() &&
                        std::fabs(v.as_float()) < 9e18);
}

int64_t AsInteger(const Value& v) {
  return v.is_int() ? v.as_int() : static_cast<int64_t>(v.as_float());
}

}  // namespace

bool ParseImageRequest(absl::string_view body, ImageJob* job, ApiError* error) {
  auto fail = [&](absl::string_view param, absl::string_view message) {
    *error = BadRequest(std::string(param), absl::StrCat("'", param, "': ", message));
    return false;
  };
  if (auto strict = ParseJsonStrict(std::string_view(body.data(), body.size())); !strict.ok()) {
    *error =
        BadRequest("", absl::StrCat("the body is not valid JSON: ", strict.status().message()));
    return false;
  }
  absl::StatusOr<Value> parsed = Value::FromJson(body);
  if (!parsed.ok() || !parsed->is_dict()) {
    *error = BadRequest("", "the body must be a JSON object");
    return false;
  }
  const Value& b = *parsed;
  const Value* prompt = Field(b, "prompt");
  if (prompt == nullptr) return fail("prompt", "is required");
  if (!prompt->is_string() || prompt->as_string().empty()) {
    return fail("prompt", "must be a non-empty string");
  }
  job->base.prompt = prompt->as_string();
  if (const Value* v = Field(b, "negative_prompt"); v != nullptr) {
    if (!v->is_string()) return fail("negative_prompt", "must be a string");
    job->base.negative_prompt = v->as_string();
  }
  if (const Value* v = Field(b, "n"); v != nullptr) {
    if (!IsInteger(*v) || AsInteger(*v) < 1 || AsInteger(*v) > kMaxImages) {
      return fail("n", absl::StrFormat("must be an integer from 1 to %d", kMaxImages));
    }
    job->n = static_cast<int>(AsInteger(*v));
  }
  if (const Value* v = Field(b, "size"); v != nullptr) {
    if (!v->is_string()) return fail("size", "must be a string WIDTHxHEIGHT such as \"512x512\"");
    if (v->as_string() != "auto") {
      std::vector<std::string> wh = absl::StrSplit(v->as_string(), 'x');
      int w = 0, h = 0;
      if (wh.size() != 2 || !absl::SimpleAtoi(wh[0], &w) || !absl::SimpleAtoi(wh[1], &h) || w < 8 ||
          h < 8 || w > kMaxSide || h > kMaxSide) {
        return fail("size", absl::StrFormat("must be \"auto\" or WIDTHxHEIGHT with sides from 8 to "
                                            "%d, such as \"512x512\"",
                                            kMaxSide));
      }
      job->base.width = w;
      job->base.height = h;
    }
  }
  if (const Value* v = Field(b, "response_format"); v != nullptr) {
    if (!v->is_string() || v->as_string() != "b64_json") {
      return fail("response_format", "only \"b64_json\" is supported (the server keeps no files)");
    }
  }
  if (const Value* v = Field(b, "output_format"); v != nullptr) {
    if (!v->is_string() || v->as_string().empty()) return fail("output_format", "must be a string");
    job->format = v->as_string();
    if (job->format == "jpg") job->format = "jpeg";
  }
  if (const Value* v = Field(b, "steps"); v != nullptr) {
    if (!IsInteger(*v) || AsInteger(*v) < 1 || AsInteger(*v) > kMaxSteps) {
      return fail("steps", absl::StrFormat("must be an integer from 1 to %d", kMaxSteps));
    }
    job->base.steps = static_cast<int32_t>(AsInteger(*v));
  }
  if (const Value* v = Field(b, "guidance_scale"); v != nullptr) {
    if (v->is_bool() || !(v->is_int() || v->is_float()) || v->as_double() < 0 ||
        v->as_double() > 100) {
      return fail("guidance_scale", "must be a number from 0 to 100");
    }
    job->base.guidance = static_cast<float>(v->as_double());
  }
  if (const Value* v = Field(b, "sampler"); v != nullptr) {
    if (!v->is_string() || (v->as_string() != "euler" && v->as_string() != "euler_a")) {
      return fail("sampler", "must be \"euler\" or \"euler_a\"");
    }
    job->base.sampler = v->as_string();
  }
  if (const Value* v = Field(b, "seed"); v != nullptr) {
    if (!IsInteger(*v)) return fail("seed", "must be an integer");
    job->base.seed = static_cast<uint64_t>(AsInteger(*v));
  } else {
    job->base.seed = std::random_device{}();
  }
  return true;
}

}  // namespace oxinfer::server
