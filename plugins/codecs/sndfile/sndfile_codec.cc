// The libsndfile codec plugin: WAV (PCM 8-32 bit, float, and the rest
// libsndfile reads), FLAC, Ogg Vorbis, Ogg Opus (at the rate the file stores,
// as libsndfile decodes it), MP3, AIFF, AU, W64, RF64, CAF. Decoded as
// python-soundfile's SoundFile.read(dtype="float32") does: sf_readf_float,
// at most the frame count the header declares. The declared length is
// checked against the host's limit before any sample is allocated, and the
// buffer grows with what is actually decoded, so a header that lies costs
// nothing.
#include <sndfile.h>

#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "oxinfer/sdk/codec.hpp"

namespace oxinfer {
namespace sndfile_codec {
namespace {

struct Memory {
  const uint8_t* data;
  sf_count_t size, pos;
};

sf_count_t Length(void* u) { return static_cast<Memory*>(u)->size; }
sf_count_t Tell(void* u) { return static_cast<Memory*>(u)->pos; }
sf_count_t Seek(sf_count_t offset, int whence, void* u) {
  auto* m = static_cast<Memory*>(u);
  sf_count_t to = whence == SEEK_SET   ? offset
                  : whence == SEEK_CUR ? m->pos + offset
                                       : m->size + offset;
  if (to < 0) to = 0;
  if (to > m->size) to = m->size;
  m->pos = to;
  return to;
}
sf_count_t Read(void* dst, sf_count_t n, void* u) {
  auto* m = static_cast<Memory*>(u);
  if (n < 0) return 0;
  const sf_count_t k = std::min(n, m->size - m->pos);
  std::memcpy(dst, m->data + m->pos, static_cast<size_t>(k));
  m->pos += k;
  return k;
}
sf_count_t Write(const void*, sf_count_t, void*) { return 0; }

struct File {
  SNDFILE* f;
  ~File() {
    if (f != nullptr) sf_close(f);
  }
};

// "wav (Signed 16 bit PCM)": libsndfile's names, kept for the process.
const char* FormatName(int format) {
  static std::mutex mu;
  static std::map<int, std::string> names;
  std::lock_guard<std::mutex> lock(mu);
  auto it = names.find(format);
  if (it != names.end()) return it->second.c_str();
  SF_FORMAT_INFO major = {format & SF_FORMAT_TYPEMASK, nullptr, nullptr};
  SF_FORMAT_INFO sub = {format & SF_FORMAT_SUBMASK, nullptr, nullptr};
  sf_command(nullptr, SFC_GET_FORMAT_INFO, &major, sizeof major);
  sf_command(nullptr, SFC_GET_FORMAT_INFO, &sub, sizeof sub);
  std::string s = major.extension ? major.extension : "audio";
  if (sub.name != nullptr) s += std::string(" (") + sub.name + ")";
  return names.emplace(format, s).first->second.c_str();
}

bool IsMp3Frame(const uint8_t* p, size_t n) {
  // MPEG audio sync, a layer (AAC's ADTS has layer 0: FFmpeg's), a bitrate
  // index other than "bad", a sample-rate index other than reserved.
  return n >= 4 && p[0] == 0xFF && (p[1] & 0xE0) == 0xE0 && ((p[1] >> 1) & 3) != 0 &&
         ((p[1] >> 3) & 3) != 1 && (p[2] >> 4) != 15 && ((p[2] >> 2) & 3) != 3;
}

uint32_t Le32(const uint8_t* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24);
}
uint32_t Be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
}

// libsndfile (like soundfile) quietly clamps a WAV or AIFF whose sample
// chunk runs past the end of the file, and an Ogg stream cut short may
// report fewer frames: such files are refused as truncated here. Returns
// what is wrong, or "".
std::string Truncation(const uint8_t* p, size_t n) {
  const bool wav = n >= 12 && std::memcmp(p, "RIFF", 4) == 0 && std::memcmp(p + 8, "WAVE", 4) == 0;
  const bool aiff = n >= 12 && std::memcmp(p, "FORM", 4) == 0 &&
                    (std::memcmp(p + 8, "AIFF", 4) == 0 || std::memcmp(p + 8, "AIFC", 4) == 0);
  if (wav || aiff) {
    const char* data = wav ? "data" : "SSND";
    for (size_t at = 12; at + 8 <= n;) {
      const uint64_t size = wav ? Le32(p + at + 4) : Be32(p + at + 4);
      if (std::memcmp(p + at, data, 4) == 0) {
        if (size == 0 || size == 0xFFFFFFFFu) return "";  // streamed: length unknown
        if (size > n - at - 8) {
          return "truncated: the " + std::string(data) + " chunk declares " + std::to_string(size) +
                 " bytes, the file holds " + std::to_string(n - at - 8);
        }
        return "";
      }
      at += 8 + size + (size & 1);
    }
    return "truncated: no " + std::string(data) + " chunk";
  }
  if (n >= 4 && std::memcmp(p, "OggS", 4) == 0) {
    // The last page must end the stream (header type flag 4).
    for (size_t at = n >= 27 ? n - 27 : 0;; --at) {
      if (std::memcmp(p + at, "OggS", 4) == 0 && at + 27 <= n) {
        const size_t segments = p[at + 26];
        size_t end = at + 27 + segments;
        for (size_t i = 0; i < segments && at + 27 + i < n; ++i) end += p[at + 27 + i];
        if (end > n) return "truncated: the last Ogg page is cut short";
        return (p[at + 5] & 4) ? "" : "truncated: the Ogg stream has no final page";
      }
      if (at == 0) break;
    }
  }
  return "";
}

struct SndfileCodec {
  static int32_t Sniff(const uint8_t* p, size_t n) {
    auto is = [&](size_t at, const char* tag) {
      const size_t k = std::strlen(tag);
      return n >= at + k && std::memcmp(p + at, tag, k) == 0;
    };
    if ((is(0, "RIFF") || is(0, "RIFX") || is(0, "RF64")) && is(8, "WAVE")) return 100;
    if (is(0, "fLaC") || is(0, "OggS") || is(0, ".snd") || is(0, "caff")) return 100;
    if (is(0, "FORM") && (is(8, "AIFF") || is(8, "AIFC"))) return 100;
    if (is(0, "riff") && n >= 16 && p[4] == 0x2E && p[5] == 0x91) return 100;  // Sony Wave64
    if (is(0, "ID3") || IsMp3Frame(p, n)) return 90;
    return 0;
  }

  static sdk::StatusOr<sdk::Audio> DecodeAudio(const sdk::Bytes& in,
                                               const sdk::DecodeLimits& limits) {
    Memory mem{in.data, static_cast<sf_count_t>(in.size), 0};
    SF_VIRTUAL_IO io = {Length, Seek, Read, Write, Tell};
    SF_INFO info;
    std::memset(&info, 0, sizeof info);
    File file{sf_open_virtual(&io, SFM_READ, &info, &mem)};
    if (file.f == nullptr) {
      return sdk::DataLossError(std::string("sndfile: not a readable audio file (") +
                                sf_strerror(nullptr) + ")");
    }
    const char* format = FormatName(info.format);
    const std::string truncated = Truncation(in.data, in.size);
    if (!truncated.empty()) return sdk::DataLossError(std::string(format) + ": " + truncated);
    if (info.channels <= 0 || info.channels > 1024 || info.samplerate <= 0) {
      return sdk::DataLossError(std::string(format) + ": corrupt header (" +
                                std::to_string(info.channels) + " channels, " +
                                std::to_string(info.samplerate) + " Hz)");
    }
    sdk::Status s = limits.CheckAudio(info.frames, info.samplerate);
    if (!s.ok()) return s.WithContext(format);
    sdk::Audio audio;
    audio.sample_rate = info.samplerate;
    audio.channels = info.channels;
    audio.format = format;
    const sf_count_t chunk = 65536;
    sf_count_t total = 0;
    while (total < info.frames) {
      const sf_count_t want = std::min(chunk, info.frames - total);
      audio.samples.resize(static_cast<size_t>((total + want) * info.channels));
      const sf_count_t got =
          sf_readf_float(file.f, audio.samples.data() + total * info.channels, want);
      if (got <= 0) break;
      total += got;
    }
    audio.samples.resize(static_cast<size_t>(total * info.channels));
    const int err = sf_error(file.f);
    if (err != SF_ERR_NO_ERROR) {
      return sdk::DataLossError(std::string(format) + ": corrupt data (" + sf_strerror(file.f) +
                                ")");
    }
    if (total == 0) {
      return sdk::DataLossError(std::string(format) + ": no samples (an empty or truncated file)");
    }
    if (total < info.frames) {
      return sdk::DataLossError(std::string(format) + ": truncated: the header declares " +
                                std::to_string(info.frames) + " frames, the data holds " +
                                std::to_string(total));
    }
    return audio;
  }
};

}  // namespace
}  // namespace sndfile_codec
}  // namespace oxinfer

OXINFER_CODEC_PLUGIN(oxinfer::sndfile_codec::SndfileCodec, "sndfile", "1.0.0",
                     "audio decoder (libsndfile): WAV, FLAC, Ogg Vorbis, Ogg Opus, MP3, AIFF, AU, "
                     "W64, RF64, CAF",
                     "wav,flac,ogg,opus,mp3,aiff,au,w64,rf64,caf")
