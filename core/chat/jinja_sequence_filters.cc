// Filters over sequences and mappings.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/chat/jinja_filters.h"
#include "core/chat/jinja_is_tests.h"
#include "core/chat/jinja_ops.h"
#include "core/chat/jinja_pystr.h"
#include "core/chat/jinja_status.h"
#include "core/limits.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer::chat::jinja_internal {
namespace {

// The `attribute` argument of a filter as a GetPath path; "" when not given.
std::string AttributePath(const Value* attribute) {
  return attribute && !attribute->is_none() ? attribute->Str() : "";
}

// `item`, or its attribute when the filter was given one.
absl::StatusOr<Value> ItemOrAttribute(const Value& item, const Value* attribute) {
  if (!attribute || attribute->is_none()) return item;
  return GetPath(item, attribute->Str());
}

absl::StatusOr<std::vector<Value>> SelectOrReject(const Value& v, const CallArgs& a, bool attr,
                                                  bool select) {
  OXI_ASSIGN_OR_RETURN(auto items, Iterate(v));
  Args args(a);
  std::string attr_name;
  size_t test_pos = 0;
  if (attr) {
    const Value* an = args.Get(0, "attribute");
    if (!an || !an->is_string()) return Err("selectattr/rejectattr need an attribute name");
    attr_name = an->as_string();
    test_pos = 1;
  }
  std::string test;
  std::vector<Value> test_args;
  if (a.args.size() > test_pos) {
    if (!a.args[test_pos].is_string()) return Err("test name must be a string");
    test = a.args[test_pos].as_string();
    for (size_t i = test_pos + 1; i < a.args.size(); ++i) test_args.push_back(a.args[i]);
  }
  std::vector<Value> out;
  for (const Value& item : items) {
    Value x = item;
    if (attr) {
      OXI_ASSIGN_OR_RETURN(auto got, GetPath(item, attr_name));
      x = got;
    }
    bool r;
    if (test.empty()) {
      r = x.Truthy();
    } else {
      OXI_ASSIGN_OR_RETURN(auto t, ApplyTest(test, x, test_args));
      r = t;
    }
    if (r == select) out.push_back(item);
  }
  return out;
}

absl::StatusOr<std::vector<Value>> SortValues(std::vector<Value> items, bool case_sensitive,
                                              bool reverse, const std::string& attribute) {
  std::vector<std::pair<Value, Value>> keyed;
  for (Value& it : items) {
    Value k = it;
    if (!attribute.empty()) {
      OXI_ASSIGN_OR_RETURN(auto got, GetPath(it, attribute));
      k = got;
    }
    keyed.emplace_back(k, std::move(it));
  }
  absl::Status err;
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    auto c = PyCompare(x.first, y.first, case_sensitive);
    if (!c.ok()) {
      err = c.status();
      return false;
    }
    return reverse ? *c > 0 : *c < 0;
  });
  if (!err.ok()) return err;
  std::vector<Value> out;
  for (auto& kv : keyed) out.push_back(std::move(kv.second));
  return out;
}

absl::StatusOr<Value> LengthFilter(const Value& v, const CallArgs& /*a*/) {
  OXI_ASSIGN_OR_RETURN(auto n, Length(v));
  return Value(n);
}

absl::StatusOr<Value> FirstOrLast(const Value& v, bool first) {
  if (v.is_undefined()) return Value::Undefined("first/last of an undefined value");
  OXI_ASSIGN_OR_RETURN(auto items, Iterate(v));
  if (items.empty()) return Value::Undefined("first/last of an empty sequence");
  return first ? items.front() : items.back();
}

absl::StatusOr<Value> FirstFilter(const Value& v, const CallArgs& /*a*/) {
  return FirstOrLast(v, /*first=*/true);
}

absl::StatusOr<Value> LastFilter(const Value& v, const CallArgs& /*a*/) {
  return FirstOrLast(v, /*first=*/false);
}

absl::StatusOr<Value> ListFilter(const Value& v, const CallArgs& /*a*/) {
  OXI_ASSIGN_OR_RETURN(auto items, Iterate(v));
  return Value::Array(items);
}

absl::StatusOr<Value> ItemsFilter(const Value& v, const CallArgs& /*a*/) {
  if (v.is_undefined()) return Value::Array();
  if (!v.is_dict()) return Err(absl::StrCat("items filter needs a mapping, got ", v.TypeName()));
  return MakeItems(v);
}

absl::StatusOr<Value> JoinFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* sep = args.Get(0, "d");
  const Value* attr = args.Get(1, "attribute");
  OXI_ASSIGN_OR_RETURN(auto items, Iterate(v));
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i && sep) out += sep->Str();
    OXI_ASSIGN_OR_RETURN(Value x, ItemOrAttribute(items[i], attr));
    out += x.Str();
    if (out.size() > limits::kTemplateOutputBytes) break;  // refused by the renderer
  }
  return Value(out);
}

absl::StatusOr<Value> DictSortFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* cs = args.Get(0, "case_sensitive");
  const Value* by = args.Get(1, "by");
  const Value* rev = args.Get(2, "reverse");
  if (!v.is_dict()) return Err(absl::StrCat("dictsort needs a mapping, got ", v.TypeName()));
  bool by_value = by && by->Str() == "value";
  std::vector<Value> items = MakeItems(v).array();
  OXI_ASSIGN_OR_RETURN(auto sorted, SortValues(items, cs && cs->Truthy(), rev && rev->Truthy(),
                                               by_value ? "1" : "0"));
  return Value::Array(sorted);
}

absl::StatusOr<Value> SortFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* rev = args.Get(0, "reverse");
  const Value* cs = args.Get(1, "case_sensitive");
  const Value* attr = args.Get(2, "attribute");
  OXI_ASSIGN_OR_RETURN(auto items, Iterate(v));
  OXI_ASSIGN_OR_RETURN(auto sorted, SortValues(items, cs && cs->Truthy(), rev && rev->Truthy(),
                                               AttributePath(attr)));
  return Value::Array(sorted);
}

absl::StatusOr<Value> UniqueFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* cs = args.Get(0, "case_sensitive");
  const Value* attr = args.Get(1, "attribute");
  OXI_ASSIGN_OR_RETURN(auto items, Iterate(v));
  std::vector<Value> out, seen;
  for (const Value& it : items) {
    OXI_ASSIGN_OR_RETURN(Value k, ItemOrAttribute(it, attr));
    if (k.is_string() && !(cs && cs->Truthy())) k = Value(PyLower(k.as_string()));
    bool dup = false;
    for (const Value& s : seen) {
      if (s.Equals(k)) {
        dup = true;
        break;
      }
    }
    if (!dup) {
      seen.push_back(k);
      out.push_back(it);
    }
  }
  return Value::Array(out);
}

absl::StatusOr<Value> ReverseFilter(const Value& v, const CallArgs& /*a*/) {
  if (v.is_string()) {
    std::u32string u = DecodeUtf8(v.as_string());
    std::reverse(u.begin(), u.end());
    return Value(EncodeUtf8(u));
  }
  OXI_ASSIGN_OR_RETURN(auto items, Iterate(v));
  std::reverse(items.begin(), items.end());
  return Value::Array(items);
}

// select / reject / selectattr / rejectattr.

template <bool kAttr, bool kSelect>

absl::StatusOr<Value> SelectFilter(const Value& v, const CallArgs& a) {
  OXI_ASSIGN_OR_RETURN(auto out, SelectOrReject(v, a, kAttr, kSelect));
  return Value::Array(out);
}

absl::StatusOr<Value> MapFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  OXI_ASSIGN_OR_RETURN(auto items, Iterate(v));
  std::vector<Value> out;
  const Value* attr = nullptr;
  const Value* def = nullptr;
  for (const auto& [k, kv] : a.kwargs) {
    if (k == "attribute") attr = &kv;
    if (k == "default") def = &kv;
  }
  if (attr) {
    for (const Value& it : items) {
      OXI_ASSIGN_OR_RETURN(auto got, GetPath(it, attr->Str()));
      out.push_back(got.is_undefined() && def ? *def : got);
    }
    return Value::Array(out);
  }
  if (a.args.empty() || !a.args[0].is_string()) return Err("map needs a filter name");
  CallArgs rest;
  rest.args.assign(a.args.begin() + 1, a.args.end());
  rest.kwargs = a.kwargs;
  for (const Value& it : items) {
    OXI_ASSIGN_OR_RETURN(auto got, ApplyFilter(a.args[0].as_string(), it, rest));
    out.push_back(got);
  }
  return Value::Array(out);
}

absl::StatusOr<Value> SumFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* attr = args.Get(0, "attribute");
  const Value* start = args.Get(1, "start");
  OXI_ASSIGN_OR_RETURN(auto items, Iterate(v));
  Value acc = start ? *start : Value(int64_t{0});
  for (const Value& it : items) {
    OXI_ASSIGN_OR_RETURN(Value x, ItemOrAttribute(it, attr));
    OXI_ASSIGN_OR_RETURN(auto s, Arith("+", acc, x));
    acc = s;
  }
  return acc;
}

absl::StatusOr<Value> MinOrMax(const Value& v, const CallArgs& a, bool min) {
  Args args(a);
  const Value* cs = args.Get(0, "case_sensitive");
  const Value* attr = args.Get(1, "attribute");
  OXI_ASSIGN_OR_RETURN(auto items, Iterate(v));
  if (items.empty()) return Value::Undefined("min/max of an empty sequence");
  OXI_ASSIGN_OR_RETURN(auto sorted,
                       SortValues(items, cs && cs->Truthy(), false, AttributePath(attr)));
  return min ? sorted.front() : sorted.back();
}

absl::StatusOr<Value> MinFilter(const Value& v, const CallArgs& a) {
  return MinOrMax(v, a, /*min=*/true);
}

absl::StatusOr<Value> MaxFilter(const Value& v, const CallArgs& a) {
  return MinOrMax(v, a, /*min=*/false);
}

absl::StatusOr<Value> BatchFilter(const Value& v, const CallArgs& a) {
  Args args(a);
  const Value* n = args.Get(0, "linecount");
  const Value* fill = args.Get(1, "fill_with");
  if (!n || n->as_int() <= 0) return Err("batch needs a positive size");
  OXI_ASSIGN_OR_RETURN(auto items, Iterate(v));
  std::vector<Value> out;
  for (size_t i = 0; i < items.size(); i += n->as_int()) {
    std::vector<Value> chunk;
    for (size_t j = i; j < i + n->as_int(); ++j) {
      if (j < items.size()) {
        chunk.push_back(items[j]);
      } else if (fill) {
        chunk.push_back(*fill);
      }
    }
    out.push_back(Value::Array(chunk));
  }
  return Value::Array(out);
}

}  // namespace

std::vector<NamedFilter> SequenceFilters() {
  return {
      {"length", LengthFilter},
      {"count", LengthFilter},
      {"first", FirstFilter},
      {"last", LastFilter},
      {"list", ListFilter},
      {"items", ItemsFilter},
      {"join", JoinFilter},
      {"dictsort", DictSortFilter},
      {"sort", SortFilter},
      {"unique", UniqueFilter},
      {"reverse", ReverseFilter},
      {"select", SelectFilter<false, true>},
      {"reject", SelectFilter<false, false>},
      {"selectattr", SelectFilter<true, true>},
      {"rejectattr", SelectFilter<true, false>},
      {"map", MapFilter},
      {"sum", SumFilter},
      {"min", MinFilter},
      {"max", MaxFilter},
      {"batch", BatchFilter},
  };
}

}  // namespace oxinfer::chat::jinja_internal
