// Element-wise and data-movement kernels: unary / scale, binary with
// broadcast, GLU, fill, copy (with conversion between float types), concat,
// get_rows / set_rows, and convert. Grid-stride loops over rows x cols.
#include "plugins/backends/cuda/kernels/common.cuh"

using namespace oxinfer::cuda;

// fn >= 0: out = act(x); fn < 0: out = x * scale + bias (SCALE). In place.
extern "C" __global__ void ox_unary(const UnaryParams p) {
  const int64_t cols = p.x.cols;
  OX_FOR_EACH(i, p.x.rows * cols) {
    const int64_t r = i / cols, c = i % cols;
    const float v = RowF(p.x, r)[c];
    RowF(p.out, r)[c] = p.fn < 0 ? v * p.scale + p.bias : Activation(p.fn, v);
  }
}

extern "C" __global__ void ox_binary(const BinaryParams p) {
  const int64_t cols = p.a.cols;
  OX_FOR_EACH(i, p.a.rows * cols) {
    const int64_t r = i / cols, c = i % cols;
    const float u = RowF(p.a, r)[c];
    const float v = RowF(p.b, p.b.rows == 1 ? 0 : r)[p.b.cols == 1 ? 0 : c];
    float o;
    switch (p.fn) {
      case 1:
        o = u + v;
        break;
      case 2:
        o = u - v;
        break;
      case 3:
        o = u * v;
        break;
      default:
        o = u / v;
    }
    RowF(p.out, r)[c] = o;
  }
}

extern "C" __global__ void ox_glu(const GluParams p) {
  const int64_t cols = p.gate.cols;
  OX_FOR_EACH(i, p.gate.rows * cols) {
    const int64_t r = i / cols, c = i % cols;
    RowF(p.out, r)[c] = Activation(p.act, RowF(p.gate, r)[c]) * RowF(p.up, r)[c];
  }
}

extern "C" __global__ void ox_fill(const FillParams p) {
  const int64_t cols = p.dst.cols;
  OX_FOR_EACH(i, p.dst.rows * cols) StoreF(p.dst, i / cols, i % cols, p.value);
}

// dst[r][col_offset + c] = src[r][c], converting between F32 / F16 / BF16
// (the same type: copied as is, I32 included).
extern "C" __global__ void ox_copy(const CopyParams p) {
  const int64_t cols = p.src.cols;
  const bool same = p.src.dtype == p.dst.dtype;
  OX_FOR_EACH(i, p.src.rows * cols) {
    const int64_t r = i / cols, c = i % cols;
    if (same && p.src.dtype != kBF16 && p.src.dtype != kF16) {
      reinterpret_cast<uint32_t*>(RowPtr(p.dst, r))[p.col_offset + c] =
          reinterpret_cast<const uint32_t*>(RowPtr(p.src, r))[c];
    } else if (same) {
      reinterpret_cast<uint16_t*>(RowPtr(p.dst, r))[p.col_offset + c] =
          reinterpret_cast<const uint16_t*>(RowPtr(p.src, r))[c];
    } else {
      StoreF(p.dst, r, p.col_offset + c, LoadF(p.src, r, c));
    }
  }
}

// Bytes of rows of any type (block types included): a row of `cols` bytes.
extern "C" __global__ void ox_copy_bytes(const CopyParams p) {
  const int64_t cols = p.src.cols;  // bytes per row here
  OX_FOR_EACH(i, p.src.rows * cols) {
    const int64_t r = i / cols, c = i % cols;
    RowPtr(p.dst, r)[c] = RowPtr(p.src, r)[c];
  }
}

// out[i] = table[ids[i]] as f32 (ids checked on the host side: the kernel
// clamps nothing and skips an id out of range, leaving zeros).
extern "C" __global__ void ox_get_rows(const RowsParams p) {
  const int64_t cols = p.table.cols;
  OX_FOR_EACH(i, p.out.rows * cols) {
    const int64_t r = i / cols, c = i % cols;
    const int32_t id = RowI(p.ids, 0)[r];
    RowF(p.out, r)[c] = (id >= 0 && id < p.table.rows) ? LoadAny(p.table, id, c) : 0.0f;
  }
}

// out[ids[i]] = table[i] (f32 -> F32 / F16 / BF16). Repeated ids: the last
// row wins, so each destination row is written by the last i naming it.
extern "C" __global__ void ox_set_rows(const RowsParams p) {
  const int64_t cols = p.table.cols, n = p.table.rows;
  OX_FOR_EACH(i, n * cols) {
    const int64_t r = i / cols, c = i % cols;
    const int32_t id = RowI(p.ids, 0)[r];
    if (id < 0 || id >= p.out.rows) continue;
    bool last = true;
    for (int64_t j = r + 1; j < n; ++j) last = last && RowI(p.ids, 0)[j] != id;
    if (last) StoreF(p.out, id, c, RowF(p.table, r)[c]);
  }
}

// Floats (F32 / BF16 / F16) or blocks to floats: dst = src as dst's type.
extern "C" __global__ void ox_convert_to_float(const ConvertParams p) {
  const int64_t cols = p.src.cols;
  OX_FOR_EACH(i, p.src.rows * cols) {
    const int64_t r = i / cols, c = i % cols;
    StoreF(p.dst, r, c, LoadAny(p.src, r, c));
  }
}

// Floats to Q8_0 / Q4_0 blocks, bit-exact with GGUF's reference quantisers
// (Q8_0: d = amax/127, q = roundf(x/d); Q4_0: d = max/-8 of the element of
// largest magnitude, q = min(15, (int8)(x/d + 8.5))). One thread per block.
extern "C" __global__ void ox_convert_to_blocks(const ConvertParams p) {
  const int64_t nb = p.src.cols / kQK;
  OX_FOR_EACH(i, p.src.rows * nb) {
    const int64_t r = i / nb, b = i % nb;
    float x[kQK];
    for (int j = 0; j < kQK; ++j) x[j] = LoadF(p.src, r, b * kQK + j);
    if (p.dst.dtype == kQ8_0) {
      char* blk = RowPtr(p.dst, r) + b * kQ8Bytes;
      float amax = 0.0f;
      for (int j = 0; j < kQK; ++j) amax = fmaxf(amax, fabsf(x[j]));
      const float d = amax / 127.0f;
      const float id = d != 0.0f ? 1.0f / d : 0.0f;
      *reinterpret_cast<uint16_t*>(blk) = FToF16(d);
      for (int j = 0; j < kQK; ++j)
        reinterpret_cast<int8_t*>(blk + 2)[j] = int8_t(roundf(x[j] * id));
    } else {
      char* blk = RowPtr(p.dst, r) + b * kQ4Bytes;
      float amax = 0.0f, max = 0.0f;
      for (int j = 0; j < kQK; ++j) {
        if (amax < fabsf(x[j])) {
          amax = fabsf(x[j]);
          max = x[j];
        }
      }
      const float d = max / -8.0f;
      const float id = d != 0.0f ? 1.0f / d : 0.0f;
      *reinterpret_cast<uint16_t*>(blk) = FToF16(d);
      for (int j = 0; j < kQK / 2; ++j) {
        const int q0 = min(15, int(int8_t(x[j] * id + 8.5f)));
        const int q1 = min(15, int(int8_t(x[j + kQK / 2] * id + 8.5f)));
        reinterpret_cast<uint8_t*>(blk + 2)[j] = uint8_t(q0 | (q1 << 4));
      }
    }
  }
}
