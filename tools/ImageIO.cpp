// Decoding and encoding of PNG (through libpng) and binary PGM/PPM, and Halide's element
// conversions. Both file formats store what this file calls "file order": rows top to bottom,
// the channels of a pixel together, 16-bit samples big-endian. Loading decodes into file order
// and then to a planar Buffer; saving goes the other way.
#include "ImageIO.h"

#include <png.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "dsl/Error.h"

namespace loom {
namespace Tools {
namespace {

// --- files --------------------------------------------------------------------------------------

struct FileCloser {
    void operator()(FILE *f) const { std::fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

File open_for_reading(const std::string &filename) {
    File f(std::fopen(filename.c_str(), "rb"));
    user_assert(f) << "Can't open '" << filename << "' for reading: " << std::strerror(errno)
                   << ". Check the path (a relative path starts at the working directory).";
    return f;
}

File open_for_writing(const std::string &filename) {
    File f(std::fopen(filename.c_str(), "wb"));
    user_assert(f) << "Can't open '" << filename << "' for writing: " << std::strerror(errno)
                   << ". Check that its directory exists and is writable.";
    return f;
}

/** Closes a file that was written, reporting a failed write (a full disk) as an error. */
void finish_writing(File f, const std::string &filename) {
    bool failed = std::ferror(f.get()) != 0;
    failed |= std::fclose(f.release()) != 0;
    user_assert(!failed) << "Writing '" << filename << "' failed: " << std::strerror(errno)
                         << ". Check that the disk has room.";
}

// --- file order <-> planar Buffer ---------------------------------------------------------------

/** The samples of an image in file order, with the shape that interprets them. */
struct FileImage {
    int width = 0, height = 0, channels = 0;
    int bits = 8; // 8 or 16
    std::vector<uint8_t> samples;

    size_t row_bytes() const { return (size_t)width * channels * (bits / 8); }
};

/** Byte offsets from the host pointer of every element of `b`, dimension 0 fastest. */
template <typename F> void for_each_offset(const Buffer<> &b, F f) {
    if (b.number_of_elements() == 0) return;
    const int n = b.dimensions();
    std::vector<int> extent(n), pos(n, 0);
    std::vector<int64_t> step(n);
    for (int i = 0; i < n; i++) {
        extent[i] = b.dim(i).extent();
        step[i] = (int64_t)b.dim(i).stride() * b.type().bytes();
    }
    int64_t offset = 0;
    while (true) {
        f(offset);
        int i = 0;
        for (; i < n; i++) {
            offset += step[i];
            if (++pos[i] < extent[i]) break;
            offset -= extent[i] * step[i];
            pos[i] = 0;
        }
        if (i == n) return;
    }
}

/** A planar Buffer (2-D for one channel, else 3-D) holding the samples of `image`. */
Buffer<> to_buffer(const FileImage &image) {
    std::vector<int> sizes = {image.width, image.height};
    if (image.channels != 1) sizes.push_back(image.channels);
    Buffer<> b(UInt(image.bits), sizes);
    const size_t plane = (size_t)image.width * image.height;
    const uint8_t *src = image.samples.data();
    uint8_t *dst8 = static_cast<uint8_t *>(b.raw_data());
    uint16_t *dst16 = static_cast<uint16_t *>(b.raw_data());
    for (size_t i = 0; i < plane; i++) {
        for (int c = 0; c < image.channels; c++) {
            if (image.bits == 8) {
                dst8[c * plane + i] = *src++;
            } else {
                dst16[c * plane + i] = uint16_t(src[0] << 8 | src[1]);
                src += 2;
            }
        }
    }
    return b;
}

/** The samples of a 2-D or 3-D uint8/uint16 Buffer in file order, over the Buffer's own region
 * (strides and mins as they are). */
FileImage from_buffer(const Buffer<> &b) {
    FileImage image;
    image.width = b.width();
    image.height = b.height();
    image.channels = b.channels();
    image.bits = b.type().bits();
    image.samples.resize(image.row_bytes() * image.height);
    const int64_t sx = b.dim(0).stride(), sy = b.dim(1).stride();
    const int64_t sc = b.dimensions() > 2 ? b.dim(2).stride() : 0;
    const uint8_t *src8 = static_cast<const uint8_t *>(b.raw_data());
    const uint16_t *src16 = static_cast<const uint16_t *>(b.raw_data());
    uint8_t *dst = image.samples.data();
    for (int y = 0; y < image.height; y++) {
        for (int x = 0; x < image.width; x++) {
            for (int c = 0; c < image.channels; c++) {
                int64_t at = x * sx + y * sy + c * sc;
                if (image.bits == 8) {
                    *dst++ = src8[at];
                } else {
                    uint16_t v = src16[at];
                    *dst++ = uint8_t(v >> 8);
                    *dst++ = uint8_t(v);
                }
            }
        }
    }
    return image;
}

// --- PNG ----------------------------------------------------------------------------------------
// libpng reports an error by calling our error function, which keeps the message and longjmps
// back to the setjmp in the function that made the failing call. Those functions hold no C++
// object, so the jump skips no destructor; the C++ around them sees a bool and the message.

void keep_png_error(png_structp png, png_const_charp message) {
    *static_cast<std::string *>(png_get_error_ptr(png)) = message;
    png_longjmp(png, 1);
}

void ignore_png_warning(png_structp, png_const_charp) {}

bool read_png_header(png_structp png, png_infop info, FILE *f) {
    if (setjmp(png_jmpbuf(png))) return false;
    png_init_io(png, f);
    png_set_sig_bytes(png, 8);
    png_read_info(png, info);
    // Palette and 1/2/4-bit gray images become 8-bit samples; everything else (including
    // alpha and 16-bit samples) is kept as stored, as Halide's load_png keeps it.
    if (png_get_color_type(png, info) == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    return true;
}

bool read_png_rows(png_structp png, png_bytepp rows) {
    if (setjmp(png_jmpbuf(png))) return false;
    png_read_image(png, rows);
    png_read_end(png, nullptr);
    return true;
}

bool write_png_file(png_structp png, png_infop info, FILE *f, const FileImage *image,
                    int color_type, png_bytepp rows) {
    if (setjmp(png_jmpbuf(png))) return false;
    png_init_io(png, f);
    png_set_IHDR(png, info, image->width, image->height, image->bits, color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_write_image(png, rows);
    png_write_end(png, nullptr);
    return true;
}

std::vector<png_bytep> row_pointers(FileImage &image) {
    std::vector<png_bytep> rows(image.height);
    for (int y = 0; y < image.height; y++)
        rows[y] = image.samples.data() + y * image.row_bytes();
    return rows;
}

Buffer<> load_png(const std::string &filename) {
    File f = open_for_reading(filename);
    png_byte signature[8] = {};
    const size_t got = std::fread(signature, 1, sizeof(signature), f.get());
    user_assert(got == sizeof(signature) && png_sig_cmp(signature, 0, sizeof(signature)) == 0)
        << "Can't load '" << filename << "': it is not a PNG file, though its name ends in .png. "
        << "Check that the file is a PNG image (and not truncated or renamed).";

    std::string error;
    png_structp png =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, keep_png_error, ignore_png_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    struct Destroy {
        png_structp &png;
        png_infop &info;
        ~Destroy() { png_destroy_read_struct(&png, &info, nullptr); }
    } destroy{png, info};
    user_assert(png && info) << "Out of memory starting to read '" << filename << "'";

    user_assert(read_png_header(png, info, f.get()))
        << "Can't load '" << filename << "': libpng says \"" << error
        << "\". The file is damaged or not a PNG libpng can read.";
    FileImage image;
    image.width = (int)png_get_image_width(png, info);
    image.height = (int)png_get_image_height(png, info);
    image.channels = png_get_channels(png, info);
    image.bits = png_get_bit_depth(png, info);
    internal_assert(image.bits == 8 || image.bits == 16)
        << "PNG bit depth " << image.bits << " after expansion, reading " << filename;
    internal_assert(png_get_rowbytes(png, info) == image.row_bytes())
        << "PNG row size disagrees with its shape, reading " << filename;
    image.samples.resize(image.row_bytes() * image.height);
    std::vector<png_bytep> rows = row_pointers(image);
    user_assert(read_png_rows(png, rows.data()))
        << "Can't load '" << filename << "': libpng says \"" << error
        << "\". The file is truncated or damaged.";
    return to_buffer(image);
}

void save_png(const Buffer<> &b, const std::string &filename) {
    user_assert(b.channels() >= 1 && b.channels() <= 4)
        << "Can't save a " << b.channels() << "-channel Buffer as '" << filename
        << "': a PNG holds 1 (gray), 2 (gray, alpha), 3 (RGB) or 4 (RGBA) channels.";
    static const int color_types[4] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                       PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    FileImage image = from_buffer(b);
    std::vector<png_bytep> rows = row_pointers(image);
    File f = open_for_writing(filename);

    std::string error;
    png_structp png =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, keep_png_error, ignore_png_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    struct Destroy {
        png_structp &png;
        png_infop &info;
        ~Destroy() { png_destroy_write_struct(&png, &info); }
    } destroy{png, info};
    user_assert(png && info) << "Out of memory starting to write '" << filename << "'";
    user_assert(
        write_png_file(png, info, f.get(), &image, color_types[image.channels - 1], rows.data()))
        << "Can't save '" << filename << "': libpng says \"" << error << "\".";
    finish_writing(std::move(f), filename);
}

// --- PGM / PPM ----------------------------------------------------------------------------------

/** The next header field: skips whitespace and '#' comments, then reads up to and including
 * the one whitespace character that ends the field. Empty at the end of the file. */
std::string read_pnm_field(FILE *f) {
    int ch = std::fgetc(f);
    while (ch != EOF && (std::isspace(ch) || ch == '#')) {
        if (ch == '#') {
            while (ch != EOF && ch != '\n')
                ch = std::fgetc(f);
        }
        ch = std::fgetc(f);
    }
    std::string field;
    while (ch != EOF && !std::isspace(ch) && field.size() < 32) {
        field += (char)ch;
        ch = std::fgetc(f);
    }
    return field;
}

int parse_pnm_number(const std::string &field, const char *what, const std::string &filename) {
    const bool ok = !field.empty() && field.size() <= 9 &&
                    std::all_of(field.begin(), field.end(), [](char c) { return std::isdigit(c); });
    user_assert(ok) << "Can't load '" << filename << "': its header's " << what << " is \"" << field
                    << "\", not a number. The file is damaged or not a binary PGM/PPM.";
    return std::stoi(field);
}

Buffer<> load_pnm(const std::string &filename) {
    File f = open_for_reading(filename);
    const std::string magic = read_pnm_field(f.get());
    user_assert(magic == "P5" || magic == "P6")
        << "Can't load '" << filename << "': it does not start with P5 (binary PGM) or P6 "
        << "(binary PPM). Loom reads only the binary forms; convert ASCII (P2/P3) files first.";
    FileImage image;
    image.channels = magic == "P5" ? 1 : 3;
    image.width = parse_pnm_number(read_pnm_field(f.get()), "width", filename);
    image.height = parse_pnm_number(read_pnm_field(f.get()), "height", filename);
    const int maxval = parse_pnm_number(read_pnm_field(f.get()), "maximum value", filename);
    user_assert(maxval == 255 || maxval == 65535)
        << "Can't load '" << filename << "': its maximum value is " << maxval
        << "; Loom reads 8-bit (255) and 16-bit (65535) PGM/PPM files only.";
    image.bits = maxval == 255 ? 8 : 16;
    image.samples.resize(image.row_bytes() * image.height);
    const size_t got = std::fread(image.samples.data(), 1, image.samples.size(), f.get());
    user_assert(got == image.samples.size())
        << "Can't load '" << filename << "': it ends after " << got << " bytes of pixels, but a "
        << image.width << "x" << image.height << " image needs " << image.samples.size()
        << ". The file is truncated.";
    return to_buffer(image);
}

void save_pnm(const Buffer<> &b, const std::string &filename, int channels) {
    const char *name = channels == 1 ? "PGM" : "PPM";
    user_assert(b.channels() == channels)
        << "Can't save a " << b.channels() << "-channel Buffer as '" << filename << "': a " << name
        << " holds " << channels << (channels == 1 ? " channel" : " channels")
        << ". Save it as a .png instead.";
    FileImage image = from_buffer(b);
    File f = open_for_writing(filename);
    std::fprintf(f.get(), "%s\n%d %d\n%d\n", channels == 1 ? "P5" : "P6", image.width, image.height,
                 image.bits == 8 ? 255 : 65535);
    std::fwrite(image.samples.data(), 1, image.samples.size(), f.get());
    finish_writing(std::move(f), filename);
}

void save_pgm(const Buffer<> &b, const std::string &filename) { save_pnm(b, filename, 1); }
void save_ppm(const Buffer<> &b, const std::string &filename) { save_pnm(b, filename, 3); }

// --- formats ------------------------------------------------------------------------------------

/** An element type and dimensionality a format stores exactly. */
struct Layout {
    Type type;
    int dimensions;
};

struct Format {
    const char *extension;
    Buffer<> (*load)(const std::string &filename);
    void (*save)(const Buffer<> &b, const std::string &filename);
    /** In Halide's order (type, then dimensions): the first of equally good choices wins. */
    std::vector<Layout> layouts;
    /** The layouts in words, for error messages. */
    const char *shapes;
};

const std::vector<Format> &formats() {
    // A PGM or PPM file is read by its header (P5 or P6), whichever of the two names it has.
    static const std::vector<Format> table = {
        {"png",
         load_png,
         save_png,
         {{UInt(8), 2}, {UInt(8), 3}, {UInt(16), 2}, {UInt(16), 3}},
         "a 2-D (x, y) or 3-D (x, y, c) Buffer"},
        {"pgm", load_pnm, save_pgm, {{UInt(8), 2}, {UInt(16), 2}}, "a 2-D (x, y) Buffer"},
        {"ppm", load_pnm, save_ppm, {{UInt(8), 3}, {UInt(16), 3}}, "a 3-D (x, y, c) Buffer"},
    };
    return table;
}

/** "png" for "a/b.PNG"; empty when the last path component has no dot. */
std::string lowercase_extension(const std::string &filename) {
    const size_t dot = filename.rfind('.');
    const size_t slash = filename.rfind('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string extension = filename.substr(dot + 1);
    for (char &c : extension)
        c = (char)std::tolower((unsigned char)c);
    return extension;
}

const Format &format_of(const std::string &filename, const char *action) {
    const std::string extension = lowercase_extension(filename);
    const auto found = std::find_if(formats().begin(), formats().end(), [&](const Format &format) {
        return extension == format.extension;
    });
    user_assert(found != formats().end())
        << "Can't " << action << " '" << filename << "': Loom's image I/O handles .png, .pgm "
        << "and .ppm files, chosen by the name's extension, and this name "
        << (extension.empty() ? "has none" : "ends in \"" + extension + "\"")
        << ". Use one of those extensions.";
    return *found;
}

bool stores_exactly(const Format &format, Type type, int dimensions) {
    return std::any_of(format.layouts.begin(), format.layouts.end(), [&](const Layout &l) {
        return l.type == type && l.dimensions == dimensions;
    });
}

/** Halide's best_save_format: a missing dimension costs most, then each bit lost, then each
 * bit more than needed, then a different kind of number. */
Layout best_layout(const Format &format, Type type, int dimensions) {
    const Layout *best = nullptr;
    int best_score = 0;
    for (const Layout &l : format.layouts) {
        int score = std::max(0, dimensions - l.dimensions) * 1024 +
                    std::max(0, type.bits() - l.type.bits()) * 8 +
                    std::max(0, l.type.bits() - type.bits()) + (l.type.code != type.code ? 1 : 0);
        if (!best || score < best_score) {
            best = &l;
            best_score = score;
        }
    }
    return *best;
}

/** "uint8_t", "float": how a C++ program names an element type in Buffer<...>. */
std::string cpp_name(Type t) {
    if (t.is_bool()) return "bool";
    if (t.is_float()) return t.bits() == 32 ? "float" : t.bits() == 64 ? "double" : "float16";
    return std::string(t.is_uint() ? "uint" : "int") + std::to_string(t.bits()) + "_t";
}

void check_has_memory(const Buffer<> &b, const std::string &filename) {
    user_assert(b.defined()) << "Can't save an undefined Buffer as '" << filename
                             << "'. Construct or realize it first.";
    user_assert(b.raw_data()) << "Can't save Buffer " << b.name() << " as '" << filename
                              << "': it has no memory (it was a bounds query). Call allocate() "
                              << "and realize into it first.";
}

// --- element conversion -------------------------------------------------------------------------

/** An element as Halide's conversions see it: a bool, an unsigned integer of `bits` bits (a
 * signed one's bit pattern), or a float or double. */
struct Sample {
    enum Kind { Bool, Unsigned, Float32, Float64 } kind;
    int bits;
    uint64_t u;
    double f;
};

template <typename T> T load_as(const uint8_t *p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

Sample read_sample(Type t, const uint8_t *p) {
    if (t.is_bool()) return {Sample::Bool, 1, *p != 0, 0};
    if (t.is_float()) {
        if (t.bits() == 32) return {Sample::Float32, 32, 0, load_as<float>(p)};
        return {Sample::Float64, 64, 0, load_as<double>(p)};
    }
    switch (t.bits()) {
    case 8:
        return {Sample::Unsigned, 8, *p, 0};
    case 16:
        return {Sample::Unsigned, 16, load_as<uint16_t>(p), 0};
    case 32:
        return {Sample::Unsigned, 32, load_as<uint32_t>(p), 0};
    default:
        return {Sample::Unsigned, 64, load_as<uint64_t>(p), 0};
    }
}

/** An unsigned fixed-point value of `from` bits as one of `to` bits: widening repeats the bit
 * pattern (0xab -> 0xabab), narrowing to 8 bits rounds, narrowing to 16 or 32 truncates. */
uint64_t rescale(uint64_t v, int from, int to) {
    if (from == to) return v;
    if (from < to) {
        uint64_t r = 0;
        for (int shift = 0; shift < to; shift += from)
            r |= v << shift;
        return r;
    }
    if (to != 8) return v >> (from - to);
    if (from == 64) {
        v >>= 32; // Halide drops the low half first
        from = 32;
    }
    if (from == 16) return ((v + 0x80) * 255 + 255) >> 16; // round(v / 257)
    return (v + 0x00808080) / 0x01010101;                  // round(v / 0x01010101)
}

/** A float in [0, 1] as an unsigned fixed-point value of `bits` bits, rounded; out-of-range
 * values wrap, as Halide's do. 8 and 16 bits multiply in the source's precision. */
uint64_t float_to_unsigned(const Sample &s, int bits) {
    switch (bits) {
    case 8:
        return s.kind == Sample::Float32 ? (uint8_t)std::lround((float)s.f * 255.0f)
                                         : (uint8_t)std::lround(s.f * 255.0);
    case 16:
        return s.kind == Sample::Float32 ? (uint16_t)std::lround((float)s.f * 65535.0f)
                                         : (uint16_t)std::lround(s.f * 65535.0);
    case 32:
        return (uint32_t)std::llround(s.f * 4294967295.0);
    default:
        return rescale((uint32_t)std::llround(s.f * 4294967295.0), 32, 64);
    }
}

/** An unsigned fixed-point value as a float in [0, 1]. 8- and 16-bit values divide in float
 * precision even for a double result, as Halide's do; 64-bit values keep their high half. */
double unsigned_to_float(uint64_t v, int bits) {
    switch (bits) {
    case 8:
        return v / 255.0f;
    case 16:
        return v / 65535.0f;
    case 32:
        return v / 4294967295.0;
    default:
        return (v >> 32) / 4294967295.0;
    }
}

template <typename T> void store_as(uint8_t *p, T v) { std::memcpy(p, &v, sizeof(T)); }

void write_sample(const Sample &s, Type t, uint8_t *p) {
    if (t.is_bool()) {
        *p = s.kind == Sample::Unsigned || s.kind == Sample::Bool ? s.u != 0 : s.f != 0;
        return;
    }
    if (t.is_float()) {
        double v = s.kind == Sample::Bool       ? (double)s.u
                   : s.kind == Sample::Unsigned ? unsigned_to_float(s.u, s.bits)
                                                : s.f;
        if (t.bits() == 32) {
            store_as(p, (float)v);
        } else {
            store_as(p, v);
        }
        return;
    }
    // Signed integers are stored as the bit pattern of the unsigned result.
    uint64_t v = s.kind == Sample::Bool       ? s.u
                 : s.kind == Sample::Unsigned ? rescale(s.u, s.bits, t.bits())
                                              : float_to_unsigned(s, t.bits());
    switch (t.bits()) {
    case 8:
        *p = (uint8_t)v;
        break;
    case 16:
        store_as(p, (uint16_t)v);
        break;
    case 32:
        store_as(p, (uint32_t)v);
        break;
    default:
        store_as(p, v);
        break;
    }
}

bool is_convertible(Type t) {
    return t.is_scalar() && (t.is_bool() || (t.is_int_or_uint() && t.bits() >= 8) ||
                             (t.is_float() && (t.bits() == 32 || t.bits() == 64)));
}

/** Internal::convert_image into a Buffer of `dimensions` dimensions (at least src's): the
 * extra ones have extent 1. */
Buffer<> convert_padded(const Buffer<> &src, Type dst_type, int dimensions) {
    user_assert(is_convertible(src.type()) && is_convertible(dst_type))
        << "Can't convert a Buffer of " << type_to_string(src.type()) << " to "
        << type_to_string(dst_type)
        << ": image conversion handles bool, 8- to 64-bit integers, float and double.";
    std::vector<int> sizes(dimensions, 1), mins(dimensions, 0);
    for (int i = 0; i < src.dimensions(); i++) {
        sizes[i] = src.dim(i).extent();
        mins[i] = src.dim(i).min();
    }
    Buffer<> dst(dst_type, sizes);
    dst.set_min(mins);
    const Type src_type = src.type();
    const uint8_t *in = static_cast<const uint8_t *>(src.raw_data());
    uint8_t *out = static_cast<uint8_t *>(dst.raw_data());
    // dst is dense with src's extents, so its elements follow src's in the same order.
    for_each_offset(src, [&](int64_t offset) {
        write_sample(read_sample(src_type, in + offset), dst_type, out);
        out += dst_type.bytes();
    });
    return dst;
}

} // namespace

namespace Internal {

Buffer<> load_file(const std::string &filename) {
    return format_of(filename, "load").load(filename);
}

void check_loaded_type(const Buffer<> &loaded, Type wanted, const std::string &filename) {
    user_assert(loaded.type() == wanted)
        << "load_image(\"" << filename << "\") gives a Buffer<" << cpp_name(loaded.type())
        << ">, since the file holds " << loaded.type().bits() << "-bit samples, but it is "
        << "assigned to a Buffer<" << cpp_name(wanted) << ">. Assign it to a Buffer<"
        << cpp_name(loaded.type()) << ">, or use load_and_convert_image to convert the samples.";
}

Buffer<> convert_image(const Buffer<> &src, Type dst_type) {
    user_assert(src.defined()) << "Can't convert an undefined Buffer. Construct it first.";
    return convert_padded(src, dst_type, src.dimensions());
}

} // namespace Internal

void save_image(const Buffer<> &im, const std::string &filename) {
    const Format &format = format_of(filename, "save");
    check_has_memory(im, filename);
    const Type type = im.type();
    user_assert(type == UInt(8) || type == UInt(16))
        << "Can't save a Buffer<" << cpp_name(type) << "> as '" << filename << "': a ."
        << format.extension << " file holds uint8_t or uint16_t samples. Cast the pipeline's "
        << "output to one of those, or use convert_and_save_image to convert while saving.";
    user_assert(stores_exactly(format, type, im.dimensions()))
        << "Can't save a " << im.dimensions() << "-D Buffer as '" << filename << "': a ."
        << format.extension << " file holds " << format.shapes
        << ". Save it in another format, or, if it lacks dimensions, use convert_and_save_image, "
        << "which adds them.";
    im.copy_to_host();
    format.save(im, filename);
}

void convert_and_save_image(const Buffer<> &im, const std::string &filename) {
    const Format &format = format_of(filename, "save");
    check_has_memory(im, filename);
    user_assert(is_convertible(im.type()))
        << "Can't save a Buffer<" << cpp_name(im.type()) << "> as '" << filename
        << "': convert_and_save_image converts Buffers of bool, 8- to 64-bit integers, float "
        << "and double. Cast the pipeline's output to one of those.";
    im.copy_to_host();
    const Layout best = best_layout(format, im.type(), im.dimensions());
    if (best.type == im.type() && best.dimensions == im.dimensions()) {
        save_image(im, filename);
        return;
    }
    const int dimensions = std::max(best.dimensions, im.dimensions());
    save_image(convert_padded(im, best.type, dimensions), filename);
}

} // namespace Tools
} // namespace loom
