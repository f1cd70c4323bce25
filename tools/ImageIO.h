// Image files to and from Buffers, under the names of Halide 14's halide_image_io.h, so that a
// Halide program's `Buffer<uint8_t> in = load_image("rgb.png");` and `save_image(out, "o.png")`
// work against Loom (with `namespace Halide = loom; using namespace Halide::Tools;`).
//
// Formats, chosen by the file's extension (case-insensitive):
//   .png  8- or 16-bit gray, gray+alpha, RGB or RGBA (palette and 1/2/4-bit gray files are
//         expanded to 8 bits when read)
//   .pgm  binary P5, 8 or 16 bit (maxval 255 or 65535)
//   .ppm  binary P6, 8 or 16 bit (maxval 255 or 65535)
// Layout, as Halide's: a file with one channel is a 2-D Buffer (x, y); any other is a 3-D
// Buffer (x, y, c), planar (dim(2).stride() == width * height), all mins zero. Samples are
// uint8 for 8-bit files and uint16 for 16-bit files.
//
// Every failure throws loom::CompileError (Loom's user error, a std::exception) whose message
// names the file and says what to do. (Halide's versions print and abort instead.)
#pragma once

#include <string>
#include <type_traits>

#include "dsl/Buffer.h"
#include "dsl/Type.h"

namespace loom {
namespace Tools {
namespace Internal {

/** Reads `filename` into a new Buffer whose element type is the file's own (uint8 or uint16). */
Buffer<> load_file(const std::string &filename);

/** Throws, naming the file, unless `loaded` (read from `filename`) has elements of `wanted`. */
void check_loaded_type(const Buffer<> &loaded, Type wanted, const std::string &filename);

/** A new Buffer of `dst_type` with the shape of `src`, each element converted with Halide's
 * scaling rules: integers are fixed-point values in [0, 1] (a uint8 255 is a uint16 65535 and a
 * float 1.0f), so widening replicates the bits, narrowing rounds (to 8 bits) or truncates, and
 * a float f becomes round(f * max) of the integer type, wrapping outside [0, 1]. Conversions
 * to and from bool are plain (0 or 1; nonzero is true). Signed integers convert through their
 * unsigned bit patterns. Matches Halide's table (checked value by value) for every pair
 * where one side is uint8 or uint16, which covers loading any file and saving to any format;
 * other pairs may differ (Halide sign-extends an int32 before widening it to 64 bits or to a
 * float). */
Buffer<> convert_image(const Buffer<> &src, Type dst_type);

} // namespace Internal

/** Reads an image file into a Buffer of the file's element type:
 *     Buffer<uint8_t> in = load_image("rgb.png");
 * Assigning to a Buffer of another element type throws (use load_and_convert_image). */
class load_image {
public:
    load_image(const std::string &filename) : filename(filename) {}

    template <typename T, int D> operator Buffer<T, D>() const {
        Buffer<> loaded = Internal::load_file(filename);
        if constexpr (!std::is_void<T>::value) {
            Internal::check_loaded_type(loaded, type_of<T>(), filename);
        }
        return Buffer<T, D>(loaded);
    }

private:
    std::string filename;
};

/** Reads an image file and converts it to the element type of the Buffer it is assigned to,
 * with the scaling rules of Internal::convert_image (a uint8 file into a Buffer<float> holds
 * v / 255.0f). A Buffer<> receives the file's own type. */
class load_and_convert_image {
public:
    load_and_convert_image(const std::string &filename) : filename(filename) {}

    template <typename T, int D> operator Buffer<T, D>() const {
        Buffer<> loaded = Internal::load_file(filename);
        if constexpr (!std::is_void<T>::value) {
            if (loaded.type() != type_of<T>())
                return Buffer<T, D>(Internal::convert_image(loaded, type_of<T>()));
        }
        return Buffer<T, D>(loaded);
    }

private:
    std::string filename;
};

/** Writes `im` in the format of the filename's extension. The Buffer must be one the format
 * holds as it is: uint8 or uint16 elements; 2-D or 3-D with 1 to 4 channels for PNG, 2-D for
 * PGM, 3-D with 3 channels for PPM. Otherwise it throws (use convert_and_save_image). The
 * region written is the Buffer's own, from its mins. */
void save_image(const Buffer<> &im, const std::string &filename);

/** Like save_image, but first converts `im` (leaving it unchanged) to the element type and
 * dimensionality the format fits best, as Halide's does, with the rules of
 * Internal::convert_image: the type with the fewest lost bits, then the fewest extra bits (a
 * Buffer<int8_t> or Buffer<bool> is saved as uint8, a Buffer<float> or Buffer<uint32_t> as
 * uint16, a float v as round(v * 65535)), and a 1-D Buffer gains a height of 1. It still
 * throws where nothing fits (a 2-D Buffer as a PPM, a 4-D Buffer anywhere). */
void convert_and_save_image(const Buffer<> &im, const std::string &filename);

} // namespace Tools
} // namespace loom
