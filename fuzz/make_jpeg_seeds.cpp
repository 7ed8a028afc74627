// Writes the JPEG fuzz target's seeds into fuzz/corpus/jpeg/ (run from the
// repository root; commit the output):
//   g++ -std=c++17 fuzz/make_jpeg_seeds.cpp -lturbojpeg -o /tmp/seeds && /tmp/seeds
// Valid images (4:2:0, greyscale, progressive, 1x1, a thin strip) and broken
// ones (truncated, header only, a forged 65000x65000 frame, flipped bytes).
#include <turbojpeg.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::string encode(int w, int h, int subsamp, int flags, int quality = 75) {
  std::vector<uint8_t> rgb(size_t(w) * h * 3);
  for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = uint8_t((i * 37 + (i / 3) * 11) % 251);
  tjhandle t = tjInitCompress();
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  if (tjCompress2(t, rgb.data(), w, 0, h, TJPF_RGB, &buf, &size, subsamp, quality, flags) != 0)
    throw std::runtime_error(tjGetErrorStr2(t));
  std::string out(reinterpret_cast<char*>(buf), size);
  tjFree(buf);
  tjDestroy(t);
  return out;
}

void write(const std::string& name, const std::string& bytes) {
  std::filesystem::create_directories("fuzz/corpus/jpeg");
  std::ofstream("fuzz/corpus/jpeg/" + name, std::ios::binary) << bytes;
}

// The offset of the SOF0/SOF2 frame's height field.
size_t frame_dims(const std::string& j) {
  for (size_t i = 2; i + 9 < j.size(); ++i)
    if (uint8_t(j[i]) == 0xFF && (uint8_t(j[i + 1]) == 0xC0 || uint8_t(j[i + 1]) == 0xC2)) return i + 5;
  throw std::runtime_error("no SOF marker");
}

}  // namespace

int main() {
  const std::string rgb = encode(40, 30, TJSAMP_420, 0);
  write("rgb_420_40x30.jpg", rgb);
  write("grey_16x16.jpg", encode(16, 16, TJSAMP_GRAY, 0));
  write("progressive_444_24x20.jpg", encode(24, 20, TJSAMP_444, TJFLAG_PROGRESSIVE));
  write("one_pixel.jpg", encode(1, 1, TJSAMP_420, 0));
  write("strip_300x2.jpg", encode(300, 2, TJSAMP_422, 0));
  write("truncated.jpg", rgb.substr(0, rgb.size() * 2 / 3));
  write("header_only.jpg", rgb.substr(0, frame_dims(rgb) + 20));
  std::string forged = rgb;
  const size_t at = frame_dims(forged);
  forged[at] = char(0xFD), forged[at + 1] = char(0xE8), forged[at + 2] = char(0xFD), forged[at + 3] = char(0xE8);
  write("forged_65000x65000.jpg", forged);
  std::string flipped = rgb;
  for (size_t i = flipped.size() / 2; i < flipped.size() - 2; i += 7) flipped[i] = char(~flipped[i]);
  write("flipped_bytes.jpg", flipped);
  write("not_a_jpeg", "GIF89a not a jpeg");
  return 0;
}
