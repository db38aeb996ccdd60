/* oxinfer: element types and the block layouts of the quantised formats.
 *
 * This is the one definition of every layout that crosses a plugin boundary
 * or lives in memory; backends, models and tools all include it. Plain C so
 * that any plugin can use it; the inline conversions are portable scalar code
 * (backends have their own SIMD paths).
 *
 * Layouts (row-major; a quantised row of K elements is K/32 blocks):
 *   F32   IEEE binary32.
 *   BF16  upper 16 bits of binary32 (round-to-nearest-even when converting).
 *   F16   IEEE binary16.
 *   Q8_0  34-byte block: f16 scale d, then 32 int8 q;  x[i] = d * q[i].
 *   Q4_0  18-byte block: f16 scale d, then 16 bytes; byte j holds element j in
 *         its low nibble and element j+16 in its high nibble; x = d * (nibble - 8).
 * Q8_0 and Q4_0 are bit-compatible with GGUF's blocks of the same names.
 *
 * Row-interleaved forms, for matrix-vector products (decode), which then read
 * one sequential stream and get eight rows' dot products in one register:
 *   Q8_0x8, Q4_0x8  the blocks of Q8_0 / Q4_0, rows in groups of 8 (a matrix's
 *         row count must be a multiple of 8). Group g (rows 8g..8g+7) is
 *         K/32 super-blocks, one per block column b, each 8 block sizes long:
 *         the 8 rows' f16 scales (row r at 2r), then their quant bytes four
 *         at a time: byte 16 + 32t + 4r + u holds row r's qs[4t + u].
 *         Same size as the plain form (row bytes are the plain form's); only
 *         whole groups of rows can be sliced. oxi_dtype_x8_block() reads one.
 */
#ifndef OXINFER_DTYPE_H_
#define OXINFER_DTYPE_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum oxi_dtype {
  OXI_DTYPE_INVALID = 0,
  OXI_DTYPE_F32 = 1,
  OXI_DTYPE_BF16 = 2,
  OXI_DTYPE_F16 = 3,
  OXI_DTYPE_Q8_0 = 4,
  OXI_DTYPE_Q4_0 = 5,
  OXI_DTYPE_F64 = 6,
  OXI_DTYPE_I64 = 7,
  OXI_DTYPE_I32 = 8,
  OXI_DTYPE_I16 = 9,
  OXI_DTYPE_I8 = 10,
  OXI_DTYPE_U8 = 11,
  OXI_DTYPE_BOOL = 12,
  OXI_DTYPE_Q8_0_X8 = 13,
  OXI_DTYPE_Q4_0_X8 = 14,
} oxi_dtype;

/* Rows per interleaved group of the _X8 forms. */
#define OXI_X8_ROWS 8

/* Elements per quantisation block. */
#define OXI_QK 32

typedef struct oxi_block_q8_0 {
  uint16_t d; /* f16 scale */
  int8_t qs[OXI_QK];
} oxi_block_q8_0;

typedef struct oxi_block_q4_0 {
  uint16_t d; /* f16 scale */
  uint8_t qs[OXI_QK / 2];
} oxi_block_q4_0;

#ifdef __cplusplus
static_assert(sizeof(oxi_block_q8_0) == 34, "Q8_0 block is 34 bytes");
static_assert(sizeof(oxi_block_q4_0) == 18, "Q4_0 block is 18 bytes");
#else
_Static_assert(sizeof(oxi_block_q8_0) == 34, "Q8_0 block is 34 bytes");
_Static_assert(sizeof(oxi_block_q4_0) == 18, "Q4_0 block is 18 bytes");
#endif

/* The plain form of a row-interleaved type (Q4_0x8 -> Q4_0); others as given. */
static inline oxi_dtype oxi_dtype_plain(oxi_dtype t) {
  return t == OXI_DTYPE_Q8_0_X8 ? OXI_DTYPE_Q8_0 : t == OXI_DTYPE_Q4_0_X8 ? OXI_DTYPE_Q4_0 : t;
}

static inline int oxi_dtype_is_x8(oxi_dtype t) {
  return t == OXI_DTYPE_Q8_0_X8 || t == OXI_DTYPE_Q4_0_X8;
}

/* Elements per storage unit (1, or OXI_QK for the block formats). */
static inline int64_t oxi_dtype_block_elems(oxi_dtype t) {
  t = oxi_dtype_plain(t);
  return (t == OXI_DTYPE_Q8_0 || t == OXI_DTYPE_Q4_0) ? OXI_QK : 1;
}

/* Bytes per storage unit; 0 for an invalid type. */
static inline int64_t oxi_dtype_block_bytes(oxi_dtype t) {
  switch (oxi_dtype_plain(t)) {
    case OXI_DTYPE_F64: case OXI_DTYPE_I64: return 8;
    case OXI_DTYPE_F32: case OXI_DTYPE_I32: return 4;
    case OXI_DTYPE_BF16: case OXI_DTYPE_F16: case OXI_DTYPE_I16: return 2;
    case OXI_DTYPE_I8: case OXI_DTYPE_U8: case OXI_DTYPE_BOOL: return 1;
    case OXI_DTYPE_Q8_0: return (int64_t)sizeof(oxi_block_q8_0);
    case OXI_DTYPE_Q4_0: return (int64_t)sizeof(oxi_block_q4_0);
    default: return 0;
  }
}

/* Bytes of a row of n elements; -1 if n is not a whole number of blocks. */
static inline int64_t oxi_dtype_row_bytes(oxi_dtype t, int64_t n) {
  int64_t be = oxi_dtype_block_elems(t);
  if (n % be != 0) return -1;
  return n / be * oxi_dtype_block_bytes(t);
}

static inline const char* oxi_dtype_name(oxi_dtype t) {
  switch (t) {
    case OXI_DTYPE_F32: return "f32";
    case OXI_DTYPE_BF16: return "bf16";
    case OXI_DTYPE_F16: return "f16";
    case OXI_DTYPE_Q8_0: return "q8_0";
    case OXI_DTYPE_Q4_0: return "q4_0";
    case OXI_DTYPE_Q8_0_X8: return "q8_0x8";
    case OXI_DTYPE_Q4_0_X8: return "q4_0x8";
    case OXI_DTYPE_F64: return "f64";
    case OXI_DTYPE_I64: return "i64";
    case OXI_DTYPE_I32: return "i32";
    case OXI_DTYPE_I16: return "i16";
    case OXI_DTYPE_I8: return "i8";
    case OXI_DTYPE_U8: return "u8";
    case OXI_DTYPE_BOOL: return "bool";
    default: return "invalid";
  }
}

/* Copies block `b` of row `row` of an _X8 matrix with k columns (starting at
 * `base`) into `out`, as a plain Q8_0 / Q4_0 block. */
static inline void oxi_dtype_x8_block(const void* base, oxi_dtype t, int64_t k, int64_t row,
                                      int64_t b, void* out) {
  const int64_t bb = oxi_dtype_block_bytes(t);
  const int64_t qb = bb - 2; /* quant bytes per block */
  const int r = (int)(row % OXI_X8_ROWS);
  const uint8_t* sb = (const uint8_t*)base +
                      ((row / OXI_X8_ROWS) * (k / OXI_QK) + b) * (OXI_X8_ROWS * bb);
  uint8_t* o = (uint8_t*)out;
  int64_t t4;
  memcpy(o, sb + 2 * r, 2);
  for (t4 = 0; t4 < qb / 4; ++t4) memcpy(o + 2 + 4 * t4, sb + 16 + 32 * t4 + 4 * r, 4);
}

/* ---- scalar conversions (reference semantics for every backend) ---- */

static inline float oxi_bits_to_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static inline uint32_t oxi_f32_to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static inline float oxi_bf16_to_f32(uint16_t h) { return oxi_bits_to_f32((uint32_t)h << 16); }

/* Round to nearest even; NaN stays NaN (quiet). */
static inline uint16_t oxi_f32_to_bf16(float f) {
  uint32_t u = oxi_f32_to_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

static inline float oxi_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  uint32_t u;
  if (exp == 0) {
    if (man == 0) {
      u = sign;
    } else { /* subnormal: normalise */
      int e = -1;
      do {
        e++;
        man <<= 1;
      } while ((man & 0x400u) == 0);
      u = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
    }
  } else if (exp == 0x1f) {
    u = sign | 0x7f800000u | (man << 13);
  } else {
    u = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  return oxi_bits_to_f32(u);
}

/* Round to nearest even, overflow to infinity, NaN preserved. */
static inline uint16_t oxi_f32_to_f16(float f) {
  uint32_t u = oxi_f32_to_bits(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to >= 65520 */
  if (a < 0x38800000u) {                                      /* below the smallest normal */
    if (a < 0x33000000u) return (uint16_t)sign;               /* below half the smallest subnormal */
    uint32_t man = (a & 0x7fffffu) | 0x800000u;
    int shift = 126 - (int)(a >> 23); /* 14..24 */
    uint32_t r = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) r++;
    return (uint16_t)(sign | r);
  }
  uint32_t r = a + 0xfffu + ((a >> 13) & 1u) - (112u << 23);
  return (uint16_t)(sign | (r >> 13));
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OXINFER_DTYPE_H_ */
