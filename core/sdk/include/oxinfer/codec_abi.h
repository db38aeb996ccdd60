/* oxinfer plugin ABI 2: media codecs (images in and out; audio follows in a
 * later minor version, appended at the end of the table). */
#ifndef OXINFER_CODEC_ABI_H_
#define OXINFER_CODEC_ABI_H_

#include "oxinfer/abi_common.h"

#ifdef __cplusplus
extern "C" {
#endif

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
} oxi_codec_iface;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OXINFER_CODEC_ABI_H_ */
