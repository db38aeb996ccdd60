/* oxinfer plugin ABI 2: media codecs. 2.0: images in and out (8-bit, as
 * stored). 2.1 appends what a model receives: an image as Pillow's
 * ImageOps.exif_transpose + convert("RGB") gives it, and audio as
 * interleaved float samples at the rate the file stores (the host down-mixes
 * and resamples, so every codec's audio goes through the same resampler). */
#ifndef OXINFER_CODEC_ABI_H_
#define OXINFER_CODEC_ABI_H_

#include "oxinfer/abi_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ABI 2.1: limits a decoder checks against the file's header, before it
 * allocates the pixels or samples (decompression bombs). 0: no limit. */
typedef struct oxi_decode_limits {
  uint32_t struct_size;
  int64_t max_pixels;       /* width * height */
  double max_audio_seconds; /* frames / sample_rate */
} oxi_decode_limits;

/* ABI 2.1: decoded audio; free with the codec's free_audio. */
typedef struct oxi_audio {
  uint32_t struct_size;
  int32_t sample_rate; /* Hz, as stored */
  int32_t channels;    /* >= 1 */
  int64_t frames;
  float* samples; /* frames * channels, interleaved, full scale +-1 */
} oxi_audio;

typedef struct oxi_codec_iface {
  uint32_t struct_size;
  const char* formats; /* comma-separated: "png" */
  /* How well this codec reads a file starting with these bytes; 0: not at all. */
  int32_t (*sniff)(const uint8_t* head, size_t n);
  /* Decodes into pixels the plugin allocates; free with free_image. */
  int32_t (*decode_image)(const uint8_t* data, size_t n, oxi_image* out, char* error,
                          size_t error_size);
  void (*free_image)(oxi_image* image);
  /* Encodes; *out is allocated by the plugin, release with free_buffer. */
  int32_t (*encode_image)(const oxi_image* image, const char* format, uint8_t** out,
                          size_t* out_size, char* error, size_t error_size);
  void (*free_buffer)(uint8_t* buffer);

  /* ---- ABI 2.1 (check OXI_HAS_FIELD before reading) ---- */
  uint32_t media; /* OXI_MEDIA_*: what sniff's score is about */
  /* The image as transformers' load_image gives it: EXIF orientation applied,
   * then Pillow's convert("RGB") (3 channels). *format: a static name of what
   * was decoded ("jpeg progressive 4:2:0"). Free with free_image. May be NULL. */
  int32_t (*decode_image_rgb)(const uint8_t* data, size_t n, const oxi_decode_limits* limits,
                              oxi_image* out, const char** format, char* error, size_t error_size);
  /* Every channel at the stored rate; *format as above. May be NULL. */
  int32_t (*decode_audio)(const uint8_t* data, size_t n, const oxi_decode_limits* limits,
                          oxi_audio* out, const char** format, char* error, size_t error_size);
  void (*free_audio)(oxi_audio* audio);
} oxi_codec_iface;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OXINFER_CODEC_ABI_H_ */
