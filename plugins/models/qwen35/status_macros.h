// Status helpers for the plugin (Debian's Abseil has no status macros).
#ifndef OXINFER_PLUGINS_MODELS_QWEN35_STATUS_MACROS_H_
#define OXINFER_PLUGINS_MODELS_QWEN35_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"

#define QWEN35_RETURN_IF_ERROR(expr)         \
  do {                                       \
    absl::Status _qwen35_st = (expr);        \
    if (!_qwen35_st.ok()) return _qwen35_st; \
  } while (0)

// Declares `lhs` from a StatusOr expression, returning its status on error.
#define QWEN35_ASSIGN_OR_RETURN(lhs, expr)      \
  auto lhs##_or = (expr);                       \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = std::move(*lhs##_or)

#endif  // OXINFER_PLUGINS_MODELS_QWEN35_STATUS_MACROS_H_
