#include "core/gguf/dequantize.h"

#include <cstring>

#include "absl/strings/str_format.h"

namespace oxinfer::gguf {
namespace {

float F16(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400) == 0) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float BF16(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

void Q4_0(const uint8_t* b, float* y) {
  const float d = F16(b);
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>((b[2 + j] & 0xf) - 8) * d;
    y[j + 16] = static_cast<float>((b[2 + j] >> 4) - 8) * d;
  }
}

void Q4_1(const uint8_t* b, float* y) {
  const float d = F16(b), m = F16(b + 2);
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>(b[4 + j] & 0xf) * d + m;
    y[j + 16] = static_cast<float>(b[4 + j] >> 4) * d + m;
  }
}

void Q5_0(const uint8_t* b, float* y) {
  const float d = F16(b);
  uint32_t qh;
  std::memcpy(&qh, b + 2, 4);
  for (int j = 0; j < 16; ++j) {
    const int h0 = ((qh >> j) << 4) & 0x10, h1 = (qh >> (j + 12)) & 0x10;
    y[j] = static_cast<float>(((b[6 + j] & 0xf) | h0) - 16) * d;
    y[j + 16] = static_cast<float>(((b[6 + j] >> 4) | h1) - 16) * d;
  }
}

void Q5_1(const uint8_t* b, float* y) {
  const float d = F16(b), m = F16(b + 2);
  uint32_t qh;
  std::memcpy(&qh, b + 4, 4);
  for (int j = 0; j < 16; ++j) {
    const int h0 = ((qh >> j) << 4) & 0x10, h1 = (qh >> (j + 12)) & 0x10;
    y[j] = static_cast<float>((b[8 + j] & 0xf) | h0) * d + m;
    y[j + 16] = static_cast<float>((b[8 + j] >> 4) | h1) * d + m;
  }
}

void Q8_0(const uint8_t* b, float* y) {
  const float d = F16(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(b[2 + j])) * d;
}

// The 6-bit scale and min `j` of a Q4_K / Q5_K block's 12 scale bytes.
void ScaleMinK4(int j, const uint8_t* q, uint8_t* sc, uint8_t* m) {
  if (j < 4) {
    *sc = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *sc = (q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4);
    *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

void Q2_K(const uint8_t* b, float* y) {  // scales[16] qs[64] d dmin
  const uint8_t* scales = b;
  const uint8_t* q = b + 16;
  const float d = F16(b + 80), min = F16(b + 82);
  int is = 0;
  for (int n = 0; n < 256; n += 128) {
    int shift = 0;
    for (int j = 0; j < 4; ++j) {
      for (int half = 0; half < 2; ++half) {
        const uint8_t sc = scales[is++];
        const float dl = d * static_cast<float>(sc & 0xf), ml = min * static_cast<float>(sc >> 4);
        for (int l = 0; l < 16; ++l) {
          *y++ = dl * static_cast<float>((q[l + 16 * half] >> shift) & 3) - ml;
        }
      }
      shift += 2;
    }
    q += 32;
  }
}

void Q3_K(const uint8_t* b, float* y) {  // hmask[32] qs[64] scales[12] d
  const uint8_t* hm = b;
  const uint8_t* q = b + 32;
  const float d_all = F16(b + 108);
  uint32_t aux[4];
  std::memcpy(aux, b + 96, 12);
  const uint32_t k1 = 0x03030303, k2 = 0x0f0f0f0f, tmp = aux[2];
  aux[2] = ((aux[0] >> 4) & k2) | (((tmp >> 4) & k1) << 4);
  aux[3] = ((aux[1] >> 4) & k2) | (((tmp >> 6) & k1) << 4);
  aux[0] = (aux[0] & k2) | (((tmp >> 0) & k1) << 4);
  aux[1] = (aux[1] & k2) | (((tmp >> 2) & k1) << 4);
  int8_t scales[16];
  std::memcpy(scales, aux, 16);
  int is = 0;
  uint8_t m = 1;
  for (int n = 0; n < 256; n += 128) {
    int shift = 0;
    for (int j = 0; j < 4; ++j) {
      for (int half = 0; half < 2; ++half) {
        const float dl = d_all * static_cast<float>(scales[is++] - 32);
        for (int l = 16 * half; l < 16 * half + 16; ++l) {
          const int v = ((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4);
          *y++ = dl * static_cast<float>(v);
        }
      }
      shift += 2;
      m <<= 1;
    }
    q += 32;
  }
}

void Q4_K(const uint8_t* b, float* y) {  // d dmin scales[12] qs[128]
  const float d = F16(b), min = F16(b + 2);
  const uint8_t* scales = b + 4;
  const uint8_t* q = b + 16;
  int is = 0;
  for (int j = 0; j < 256; j += 64) {
    uint8_t sc, m;
    ScaleMinK4(is, scales, &sc, &m);
    const float d1 = d * sc, m1 = min * m;
    ScaleMinK4(is + 1, scales, &sc, &m);
    const float d2 = d * sc, m2 = min * m;
    for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>(q[l] & 0xf) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>(q[l] >> 4) - m2;
    q += 32;
    is += 2;
  }
}

void Q5_K(const uint8_t* b, float* y) {  // d dmin scales[12] qh[32] qs[128]
  const float d = F16(b), min = F16(b + 2);
  const uint8_t* scales = b + 4;
  const uint8_t* qh = b + 16;
  const uint8_t* ql = b + 48;
  int is = 0;
  uint8_t u1 = 1, u2 = 2;
  for (int j = 0; j < 256; j += 64) {
    uint8_t sc, m;
    ScaleMinK4(is, scales, &sc, &m);
    const float d1 = d * sc, m1 = min * m;
    ScaleMinK4(is + 1, scales, &sc, &m);
    const float d2 = d * sc, m2 = min * m;
    for (int l = 0; l < 32; ++l) {
      *y++ = d1 * static_cast<float>((ql[l] & 0xf) + (qh[l] & u1 ? 16 : 0)) - m1;
    }
    for (int l = 0; l < 32; ++l) {
      *y++ = d2 * static_cast<float>((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
    }
    ql += 32;
    is += 2;
    u1 <<= 2;
    u2 <<= 2;
  }
}

void Q6_K(const uint8_t* b, float* y) {  // ql[128] qh[64] scales[16] d
  const uint8_t* ql = b;
  const uint8_t* qh = b + 128;
  const int8_t* sc = reinterpret_cast<const int8_t*>(b + 192);
  const float d = F16(b + 208);
  for (int n = 0; n < 256; n += 128) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l] & 0xf) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      y[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
      y[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
      y[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
      y[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

}  // namespace

absl::Status Dequantize(TensorType type, const void* src, int64_t n, float* dst) {
  int64_t block_elems = 0, block_bytes = 0;
  if (!TensorTypeBlock(static_cast<uint32_t>(type), &block_elems, &block_bytes) ||
      n % block_elems != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("cannot dequantize %d elements of %s", n, TensorTypeName(type)));
  }
  const auto* b = static_cast<const uint8_t*>(src);
  void (*block)(const uint8_t*, float*) = nullptr;
  switch (type) {
    case TensorType::kF32:
      std::memcpy(dst, src, n * sizeof(float));
      return absl::OkStatus();
    case TensorType::kF16:
      for (int64_t i = 0; i < n; ++i) dst[i] = F16(b + 2 * i);
      return absl::OkStatus();
    case TensorType::kBF16:
      for (int64_t i = 0; i < n; ++i) dst[i] = BF16(b + 2 * i);
      return absl::OkStatus();
    case TensorType::kQ4_0:
      block = &Q4_0;
      break;
    case TensorType::kQ4_1:
      block = &Q4_1;
      break;
    case TensorType::kQ5_0:
      block = &Q5_0;
      break;
    case TensorType::kQ5_1:
      block = &Q5_1;
      break;
    case TensorType::kQ8_0:
      block = &Q8_0;
      break;
    case TensorType::kQ2_K:
      block = &Q2_K;
      break;
    case TensorType::kQ3_K:
      block = &Q3_K;
      break;
    case TensorType::kQ4_K:
      block = &Q4_K;
      break;
    case TensorType::kQ5_K:
      block = &Q5_K;
      break;
    case TensorType::kQ6_K:
      block = &Q6_K;
      break;
  }
  for (int64_t i = 0; i < n / block_elems; ++i) block(b + i * block_bytes, dst + i * block_elems);
  return absl::OkStatus();
}

}  // namespace oxinfer::gguf
