// The FFmpeg codec plugin (libavformat / libavcodec / libswresample): the
// first audio stream of whatever FFmpeg reads that libsndfile does not
// (AAC / M4A / MP4, MKV / WebM, ADTS, ...), every frame decoded at the
// stored rate and channel count and converted to interleaved float32 by
// swresample (a sample-format conversion only: no remix, no resampling; the
// host down-mixes and resamples every codec's audio alike). Reads from memory
// through a custom AVIOContext; the stream's declared duration, and then the
// decoded length, are checked against the host's limit.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>
}

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "oxinfer/sdk/codec.hpp"

namespace oxinfer {
namespace ffmpeg_codec {
namespace {

struct Memory {
  const uint8_t* data;
  int64_t size, pos;
};

int ReadPacket(void* u, uint8_t* buf, int n) {
  auto* m = static_cast<Memory*>(u);
  const int64_t k = std::min<int64_t>(n, m->size - m->pos);
  if (k <= 0) return AVERROR_EOF;
  std::memcpy(buf, m->data + m->pos, static_cast<size_t>(k));
  m->pos += k;
  return static_cast<int>(k);
}

int64_t SeekPacket(void* u, int64_t offset, int whence) {
  auto* m = static_cast<Memory*>(u);
  if (whence == AVSEEK_SIZE) return m->size;
  whence &= ~AVSEEK_FORCE;
  const int64_t to = whence == SEEK_SET   ? offset
                     : whence == SEEK_CUR ? m->pos + offset
                                          : m->size + offset;
  if (to < 0 || to > m->size) return AVERROR(EINVAL);
  m->pos = to;
  return to;
}

std::string AvError(int rc) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {0};
  av_strerror(rc, buf, sizeof buf);
  return buf;
}

// Everything FFmpeg allocated for one decode, freed in reverse.
struct Session {
  AVIOContext* io = nullptr;
  AVFormatContext* fmt = nullptr;
  AVCodecContext* dec = nullptr;
  SwrContext* swr = nullptr;
  AVPacket* pkt = nullptr;
  AVFrame* frame = nullptr;
  ~Session() {
    av_frame_free(&frame);
    av_packet_free(&pkt);
    swr_free(&swr);
    avcodec_free_context(&dec);
    avformat_close_input(&fmt);
    if (io != nullptr) av_freep(&io->buffer);
    avio_context_free(&io);
  }
};

// "ffmpeg mov,mp4,m4a,3gp,3g2,mj2 / aac": static for the process.
const char* FormatName(const char* container, const char* codec) {
  static std::mutex mu;
  static std::set<std::string> names;
  std::lock_guard<std::mutex> lock(mu);
  return names.insert(std::string(container) + " / " + codec).first->c_str();
}

struct FfmpegCodec {
  // What FFmpeg alone reads here; below libsndfile's scores, so that WAV,
  // FLAC, Ogg and MP3 go to libsndfile as they go to soundfile.
  static int32_t Sniff(const uint8_t* p, size_t n) {
    if (n >= 12 && std::memcmp(p + 4, "ftyp", 4) == 0) return 60;         // MP4 / M4A / MOV
    if (n >= 4 && std::memcmp(p, "\x1A\x45\xDF\xA3", 4) == 0) return 60;  // Matroska / WebM
    if (n >= 2 && p[0] == 0xFF && (p[1] & 0xF6) == 0xF0) return 60;       // ADTS AAC
    if (n >= 5 && std::memcmp(p, "#!AMR", 5) == 0) return 50;             // AMR
    if (n >= 12 && std::memcmp(p, "RIFF", 4) == 0 && std::memcmp(p + 8, "WAVE", 4) == 0) {
      return 10;  // WAV codecs libsndfile lacks
    }
    return 0;
  }

  static sdk::StatusOr<sdk::Audio> DecodeAudio(const sdk::Bytes& in,
                                               const sdk::DecodeLimits& limits) {
    av_log_set_level(AV_LOG_QUIET);
    Memory mem{in.data, static_cast<int64_t>(in.size), 0};
    Session s;
    const int kBuf = 1 << 16;
    auto* buf = static_cast<uint8_t*>(av_malloc(kBuf));
    if (buf == nullptr) return sdk::ResourceExhaustedError("ffmpeg: out of memory");
    s.io = avio_alloc_context(buf, kBuf, 0, &mem, ReadPacket, nullptr, SeekPacket);
    if (s.io == nullptr) {
      av_free(buf);
      return sdk::ResourceExhaustedError("ffmpeg: out of memory");
    }
    s.fmt = avformat_alloc_context();
    if (s.fmt == nullptr) return sdk::ResourceExhaustedError("ffmpeg: out of memory");
    s.fmt->pb = s.io;
    s.fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
    int rc = avformat_open_input(&s.fmt, nullptr, nullptr, nullptr);
    if (rc < 0) {
      // avformat_open_input frees the context on failure.
      return sdk::DataLossError("ffmpeg: not a file FFmpeg reads (" + AvError(rc) + ")");
    }
    const char* container = s.fmt->iformat != nullptr ? s.fmt->iformat->name : "ffmpeg";
    rc = avformat_find_stream_info(s.fmt, nullptr);
    if (rc < 0) return sdk::DataLossError(std::string(container) + ": " + AvError(rc));
    const AVCodec* codec = nullptr;
    const int index = av_find_best_stream(s.fmt, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0);
    if (index < 0 || codec == nullptr) {
      return sdk::DataLossError(std::string(container) + ": no audio stream FFmpeg decodes");
    }
    const AVStream* st = s.fmt->streams[index];
    const char* format = FormatName(container, codec->name);
    const int rate = st->codecpar->sample_rate;
    const int channels = st->codecpar->ch_layout.nb_channels;
    if (rate <= 0 || channels <= 0 || channels > 1024) {
      return sdk::DataLossError(std::string(format) + ": corrupt stream parameters");
    }
    if (st->duration > 0 && st->time_base.den > 0) {
      const double seconds = st->duration * av_q2d(st->time_base);
      sdk::Status ls = limits.CheckAudio(static_cast<int64_t>(seconds * rate), rate);
      if (!ls.ok()) return ls.WithContext(format);
    }
    s.dec = avcodec_alloc_context3(codec);
    if (s.dec == nullptr) return sdk::ResourceExhaustedError("ffmpeg: out of memory");
    rc = avcodec_parameters_to_context(s.dec, st->codecpar);
    if (rc >= 0) rc = avcodec_open2(s.dec, codec, nullptr);
    if (rc < 0) return sdk::DataLossError(std::string(format) + ": " + AvError(rc));
    s.pkt = av_packet_alloc();
    s.frame = av_frame_alloc();
    if (s.pkt == nullptr || s.frame == nullptr)
      return sdk::ResourceExhaustedError("ffmpeg: memory");

    sdk::Audio audio;
    audio.sample_rate = rate;
    audio.channels = channels;
    audio.format = format;
    const int64_t max_frames =
        limits.max_audio_seconds > 0 ? static_cast<int64_t>(limits.max_audio_seconds * rate) : -1;
    bool draining = false;
    for (;;) {
      if (!draining) {
        rc = av_read_frame(s.fmt, s.pkt);
        if (rc == AVERROR_EOF) {
          draining = true;
          rc = avcodec_send_packet(s.dec, nullptr);
        } else if (rc < 0) {
          return sdk::DataLossError(std::string(format) + ": corrupt or truncated (" + AvError(rc) +
                                    ")");
        } else {
          if (s.pkt->stream_index == index) rc = avcodec_send_packet(s.dec, s.pkt);
          av_packet_unref(s.pkt);
        }
        if (rc < 0 && rc != AVERROR(EAGAIN)) {
          return sdk::DataLossError(std::string(format) + ": corrupt data (" + AvError(rc) + ")");
        }
      }
      for (;;) {
        rc = avcodec_receive_frame(s.dec, s.frame);
        if (rc == AVERROR(EAGAIN)) break;
        if (rc == AVERROR_EOF) return Finish(s.fmt, &audio, format);
        if (rc < 0) {
          return sdk::DataLossError(std::string(format) + ": corrupt data (" + AvError(rc) + ")");
        }
        sdk::Status fs = Append(&s, s.frame, rate, channels, max_frames, format, &audio);
        av_frame_unref(s.frame);
        if (!fs.ok()) return fs;
      }
    }
  }

  // A container that declares its duration (not estimated from the bit
  // rate) and delivers noticeably less was cut short.
  static sdk::StatusOr<sdk::Audio> Finish(const AVFormatContext* fmt, sdk::Audio* audio,
                                          const char* format) {
    if (audio->samples.empty()) {
      return sdk::DataLossError(std::string(format) + ": no audio decoded (corrupt or truncated)");
    }
    const double got =
        static_cast<double>(audio->samples.size() / audio->channels) / audio->sample_rate;
    if (fmt->duration > 0 && fmt->duration_estimation_method != AVFMT_DURATION_FROM_BITRATE) {
      const double declared = static_cast<double>(fmt->duration) / AV_TIME_BASE;
      if (got < declared - 0.025 - 0.01 * declared) {  // codec delay and rounding
        return sdk::DataLossError(std::string(format) + ": truncated: the container declares " +
                                  std::to_string(declared) + " s, the data holds " +
                                  std::to_string(got) + " s");
      }
    }
    return std::move(*audio);
  }

  // Converts one frame to interleaved float at its own rate and layout.
  static sdk::Status Append(Session* s, const AVFrame* f, int rate, int channels,
                            int64_t max_frames, const char* format, sdk::Audio* audio) {
    if (f->ch_layout.nb_channels != channels || f->sample_rate != rate) {
      return sdk::DataLossError(std::string(format) +
                                ": the channel count or rate changes mid-stream");
    }
    if (s->swr == nullptr) {
      // FFmpeg 5.1's prototype takes non-const layouts it does not modify.
      auto* layout = const_cast<AVChannelLayout*>(&f->ch_layout);
      int rc = swr_alloc_set_opts2(&s->swr, layout, AV_SAMPLE_FMT_FLT, rate, layout,
                                   static_cast<AVSampleFormat>(f->format), rate, 0, nullptr);
      if (rc >= 0) rc = swr_init(s->swr);
      if (rc < 0) return sdk::InternalError(std::string(format) + ": swresample: " + AvError(rc));
    }
    const int64_t have = static_cast<int64_t>(audio->samples.size()) / channels;
    if (max_frames >= 0 && have + f->nb_samples > max_frames) {
      return sdk::ResourceExhaustedError(std::string(format) +
                                         ": the audio lasts more than the limit of " +
                                         std::to_string(static_cast<int64_t>(max_frames / rate)) +
                                         " s (--max-audio-seconds raises it)");
    }
    audio->samples.resize(static_cast<size_t>((have + f->nb_samples) * channels));
    uint8_t* out = reinterpret_cast<uint8_t*>(audio->samples.data() + have * channels);
    const int got = swr_convert(s->swr, &out, f->nb_samples,
                                const_cast<const uint8_t**>(f->extended_data), f->nb_samples);
    if (got < 0) return sdk::InternalError(std::string(format) + ": swresample: " + AvError(got));
    audio->samples.resize(static_cast<size_t>((have + got) * channels));
    return sdk::OkStatus();
  }
};

}  // namespace
}  // namespace ffmpeg_codec
}  // namespace oxinfer

OXINFER_CODEC_PLUGIN(oxinfer::ffmpeg_codec::FfmpegCodec, "ffmpeg", "1.0.0",
                     "audio decoder (FFmpeg): AAC / M4A / MP4, MKV / WebM, ADTS and whatever else "
                     "libavformat reads",
                     "m4a,mp4,aac,mkv,webm,mov")
