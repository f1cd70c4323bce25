#include "apps/common/Images.h"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <vector>

namespace loom_apps {

namespace {

bool file_exists(const std::string &path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

struct FileCloser {
    void operator()(FILE *f) const {
        if (f) std::fclose(f);
    }
};
using File = std::unique_ptr<FILE, FileCloser>;

/** Element (coords) of a buffer of any supported type, as a double. */
double element_as_double(const loom::Buffer<> &b, const int *coords) {
    int64_t offset = 0;
    for (int d = 0; d < b.dimensions(); d++) {
        offset += (int64_t)(coords[d] - b.dim(d).min()) * b.dim(d).stride();
    }
    const uint8_t *base = (const uint8_t *)b.raw_data();
    const loom::Type t = b.type();
    const uint8_t *p = base + offset * t.bytes();
    switch (t.code) {
    case loom::Type::Float:
        return t.bits() == 32 ? *(const float *)p : *(const double *)p;
    case loom::Type::Int:
        switch (t.bits()) {
        case 8:
            return *(const int8_t *)p;
        case 16:
            return *(const int16_t *)p;
        case 32:
            return *(const int32_t *)p;
        default:
            return (double)*(const int64_t *)p;
        }
    default:
        switch (t.bits()) {
        case 1:
        case 8:
            return *(const uint8_t *)p;
        case 16:
            return *(const uint16_t *)p;
        case 32:
            return *(const uint32_t *)p;
        default:
            return (double)*(const uint64_t *)p;
        }
    }
}

/** A seeded test card: smooth gradients, sharp edges and fine texture, so that blurs, corner
 * detectors and tone mappers all have something to do. */
loom::Buffer<uint8_t> pattern_image(int width, int height, int channels) {
    loom::Buffer<uint8_t> img(width, height, channels);
    std::mt19937 rng(1234);
    std::uniform_int_distribution<int> noise(-12, 12);
    for (int c = 0; c < channels; c++) {
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                double fx = (double)x / width, fy = (double)y / height;
                double v = 96 + 64 * std::sin(6.28 * (fx * (2 + c) + fy));
                if (((x / 37) + (y / 29)) % 3 == 0) v += 60; // blocks: edges and corners
                v += noise(rng);
                img(x, y, c) = (uint8_t)std::clamp((int)std::lround(v), 0, 255);
            }
        }
    }
    return img;
}

} // namespace

std::string photo_path(const std::string &file_name) {
    const char *env = std::getenv("LOOM_PHOTO_DIR");
    std::string dir = env && *env ? env : LOOM_PHOTO_DIR;
    std::string path = dir + "/" + file_name;
    return file_exists(path) ? path : "";
}

loom::Buffer<uint8_t> read_png(const std::string &path) {
    File f(std::fopen(path.c_str(), "rb"));
    if (!f) throw std::runtime_error("read_png: can't open '" + path + "'");
    // Warnings (such as skimage's photos' "known incorrect sRGB profile") don't stop the read.
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr,
                                             [](png_structp, png_const_charp) {});
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info) {
        png_destroy_read_struct(&png, &info, nullptr);
        throw std::runtime_error("read_png: out of memory reading '" + path + "'");
    }
    std::vector<png_bytep> rows;
    std::vector<uint8_t> pixels;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        throw std::runtime_error("read_png: '" + path + "' is not a readable PNG");
    }
    png_init_io(png, f.get());
    png_read_info(png, info);
    // Normalize to 8-bit gray or RGB without alpha.
    png_set_strip_16(png);
    png_set_palette_to_rgb(png);
    png_set_expand_gray_1_2_4_to_8(png);
    png_set_strip_alpha(png);
    png_read_update_info(png, info);
    const int width = (int)png_get_image_width(png, info);
    const int height = (int)png_get_image_height(png, info);
    const int channels = png_get_channels(png, info);
    const size_t row_bytes = png_get_rowbytes(png, info);
    pixels.resize(row_bytes * height);
    rows.resize(height);
    for (int y = 0; y < height; y++)
        rows[y] = pixels.data() + row_bytes * y;
    png_read_image(png, rows.data());
    png_destroy_read_struct(&png, &info, nullptr);
    if (channels != 1 && channels != 3) {
        throw std::runtime_error("read_png: '" + path + "' has " + std::to_string(channels) +
                                 " channels after conversion; expected gray or RGB");
    }
    loom::Buffer<uint8_t> img(width, height, channels);
    for (int c = 0; c < channels; c++) {
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++)
                img(x, y, c) = rows[y][x * channels + c];
        }
    }
    return img;
}

void write_png(const loom::Buffer<> &image, const std::string &path) {
    const loom::Type t = image.type();
    if (!t.is_uint() || (t.bits() != 8 && t.bits() != 16)) {
        throw std::runtime_error("write_png: '" + path + "' needs a uint8 or uint16 image, got " +
                                 loom::type_to_string(t));
    }
    const int channels = image.dimensions() > 2 ? image.dim(2).extent() : 1;
    if (image.dimensions() < 2 || image.dimensions() > 3 || (channels != 1 && channels != 3)) {
        throw std::runtime_error("write_png: '" + path +
                                 "' needs an (x, y) or (x, y, c) image with 1 or 3 channels");
    }
    const int width = image.dim(0).extent(), height = image.dim(1).extent();
    const int bytes = t.bits() / 8;
    std::vector<uint8_t> pixels((size_t)width * height * channels * bytes);
    int coords[3];
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            for (int c = 0; c < channels; c++) {
                coords[0] = image.dim(0).min() + x;
                coords[1] = image.dim(1).min() + y;
                coords[2] = image.dimensions() > 2 ? image.dim(2).min() + c : 0;
                uint32_t v = (uint32_t)element_as_double(image, coords);
                size_t at = (((size_t)y * width + x) * channels + c) * bytes;
                if (bytes == 2) { // PNG stores 16-bit samples big-endian
                    pixels[at] = (uint8_t)(v >> 8);
                    pixels[at + 1] = (uint8_t)v;
                } else {
                    pixels[at] = (uint8_t)v;
                }
            }
        }
    }
    File f(std::fopen(path.c_str(), "wb"));
    if (!f) throw std::runtime_error("write_png: can't create '" + path + "'");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        throw std::runtime_error("write_png: failed writing '" + path + "'");
    }
    png_init_io(png, f.get());
    png_set_IHDR(png, info, width, height, t.bits(),
                 channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < height; y++) {
        png_write_row(png, pixels.data() + (size_t)y * width * channels * bytes);
    }
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
}

loom::Buffer<uint8_t> resize_bilinear(const loom::Buffer<uint8_t> &image, int width, int height) {
    const int w0 = image.width(), h0 = image.height(), channels = image.channels();
    loom::Buffer<uint8_t> out(width, height, channels);
    for (int y = 0; y < height; y++) {
        // Pixel centers map onto pixel centers.
        double sy = std::clamp((y + 0.5) * h0 / height - 0.5, 0.0, h0 - 1.0);
        int y0 = (int)sy, y1 = std::min(y0 + 1, h0 - 1);
        double wy = sy - y0;
        for (int x = 0; x < width; x++) {
            double sx = std::clamp((x + 0.5) * w0 / width - 0.5, 0.0, w0 - 1.0);
            int x0 = (int)sx, x1 = std::min(x0 + 1, w0 - 1);
            double wx = sx - x0;
            for (int c = 0; c < channels; c++) {
                double top = image(x0, y0, c) * (1 - wx) + image(x1, y0, c) * wx;
                double bottom = image(x0, y1, c) * (1 - wx) + image(x1, y1, c) * wx;
                out(x, y, c) = (uint8_t)std::lround(top * (1 - wy) + bottom * wy);
            }
        }
    }
    return out;
}

loom::Buffer<uint8_t> input_image(const std::string &path, const std::string &default_photo,
                                  int width, int height, int channels) {
    std::string file = !path.empty() ? path : photo_path(default_photo);
    loom::Buffer<uint8_t> src;
    if (file.empty()) {
        static bool noted = false;
        if (!noted) {
            std::fprintf(stderr,
                         "note: photograph %s not found (run scripts/fetch-photos.sh); "
                         "using a generated test card\n",
                         default_photo.c_str());
            noted = true;
        }
        return pattern_image(width, height, channels);
    }
    src = read_png(file);
    if (src.width() != width || src.height() != height) src = resize_bilinear(src, width, height);
    if (src.channels() == channels) return src;
    loom::Buffer<uint8_t> out(width, height, channels);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            if (channels == 1) {
                int sum = src(x, y, 0) + src(x, y, 1) + src(x, y, 2);
                out(x, y, 0) = (uint8_t)((sum + 1) / 3);
            } else {
                for (int c = 0; c < channels; c++)
                    out(x, y, c) = src(x, y, 0);
            }
        }
    }
    return out;
}

void fill_uniform(loom::Buffer<float> &b, uint32_t seed, float lo, float hi) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    // Dense buffers (the apps allocate them) are filled in memory order.
    float *p = b.data();
    for (int64_t i = 0, n = b.number_of_elements(); i < n; i++)
        p[i] = dist(rng);
}

std::string compare(const std::string &what, const loom::Buffer<> &got,
                    const std::function<double(const int *coords)> &expected, double tolerance) {
    const int dims = got.dimensions();
    std::vector<int> coords(std::max(dims, 1));
    for (int d = 0; d < dims; d++)
        coords[d] = got.dim(d).min();
    int64_t bad = 0, total = got.number_of_elements();
    std::ostringstream first;
    for (int64_t i = 0; i < total; i++) {
        double g = element_as_double(got, coords.data());
        double e = expected(coords.data());
        bool ok = tolerance > 0 ? std::fabs(g - e) <= tolerance * std::max(1.0, std::fabs(e))
                                : (g == e || (std::isnan(g) && std::isnan(e)));
        if (!ok && bad++ < 5) {
            first << "\n  at (";
            for (int d = 0; d < dims; d++)
                first << (d ? ", " : "") << coords[d];
            first << "): got " << g << ", expected " << e;
        }
        for (int d = 0; d < dims; d++) { // next coordinate, dimension 0 fastest
            if (++coords[d] < got.dim(d).min() + got.dim(d).extent()) break;
            coords[d] = got.dim(d).min();
        }
    }
    if (!bad) return "";
    std::ostringstream msg;
    msg << what << ": " << bad << " of " << total << " elements differ from the C++ reference"
        << (tolerance > 0 ? " (relative tolerance " + std::to_string(tolerance) + ")" : "")
        << first.str();
    return msg.str();
}

} // namespace loom_apps
