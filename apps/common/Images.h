// Inputs and checks shared by the apps: photographs read and written as PNG (libpng), resized
// to the size an app runs at; seeded patterns where no photograph applies; output comparisons
// that name the output and the first differing elements.
#pragma once

#include <loom.h>

#include <cstdint>
#include <functional>
#include <string>

namespace loom_apps {

/** The path of a photograph from Debian's python3-skimage (fetched into data/photos by
 * scripts/fetch-photos.sh; LOOM_PHOTO_DIR overrides the folder), or "" when absent. */
std::string photo_path(const std::string &file_name);

/** Reads an 8-bit PNG (gray, gray+alpha, RGB or RGBA) as a planar (x, y, c) buffer with 1 or
 * 3 channels (alpha dropped). Throws std::runtime_error naming the file on failure. */
loom::Buffer<uint8_t> read_png(const std::string &path);
/** Writes a (x, y) or (x, y, c) buffer with 1 or 3 channels of uint8 or uint16 as PNG. */
void write_png(const loom::Buffer<> &image, const std::string &path);

/** The image resized (bilinear, separable) to width x height; channels kept. */
loom::Buffer<uint8_t> resize_bilinear(const loom::Buffer<uint8_t> &image, int width, int height);

/** An app's input image: `path` if given, else the photograph `default_photo` if present, else
 * a seeded pattern with edges and texture (and a note on stderr, once). Resized to
 * width x height, with `channels` channels (gray is replicated to 3; RGB is averaged to 1). */
loom::Buffer<uint8_t> input_image(const std::string &path, const std::string &default_photo,
                                  int width, int height, int channels);

/** Deterministic uniform values in [lo, hi), from a seed. */
void fill_uniform(loom::Buffer<float> &b, uint32_t seed, float lo, float hi);

/** Compares every element of `got` with `expected(coordinates)`. Integers and floats must be
 * equal bit for bit unless `tolerance` > 0, which allows |got - expected| <= tolerance *
 * max(1, |expected|) for floats (for transcendental functions: Loom calls the C library, the
 * reference too, but vector and scalar code may differ in the last bits). Returns "" when they
 * match, else a message naming `what` with the count and the first few differences. */
std::string compare(const std::string &what, const loom::Buffer<> &got,
                    const std::function<double(const int *coords)> &expected, double tolerance = 0);

} // namespace loom_apps
