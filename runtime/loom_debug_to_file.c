/* Func::debug_to_file (Halide 14's): a realized Func's values written to a file, in the format
 * its name's extension picks, each as Halide 14 writes it so that the tools that read Halide's
 * dumps read these:
 *   .tif / .tiff  an uncompressed TIFF (2-D images; a third dimension under 5 is channels,
 *                 planar; else depth, TIFF tag 32997), samples of the element type;
 *   .mat          a MATLAB level 5 file holding one array named after the file;
 *   other         20 bytes of header (four extents, dimensions past four folded into the
 *                 fourth, and the type code), then the elements (ImageStack's .tmp).
 * The elements follow dimension 0 fastest, whatever the buffer's strides; byte order is the
 * machine's (little-endian). */
#include <stdio.h>
#include <string.h>

#include "loom_runtime.h"

/* Type codes (lower/StorageFlattening.cpp's debug_type_code): float, double, uint8 (and bool),
 * int8, uint16, int16, uint32, int32, uint64, int64. */
static const int16_t tiff_sample_format[10] = {3, 3, 1, 2, 1, 2, 1, 2, 1, 2};
static const uint8_t matlab_class[10] = {7, 6, 9, 8, 11, 10, 13, 12, 15, 14};
static const uint8_t matlab_type[10] = {7, 9, 2, 1, 4, 3, 6, 5, 13, 12};

static int has_suffix(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Little-endian fields into a byte array. */
static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* TIFF: the header (byte order, version 42, offset of the directory), a directory of 15 entries
 * of 12 bytes, the next directory's offset (none), the two resolutions (1/1), then, with more
 * than one channel, the strips' offsets and byte counts, then the samples. 210 bytes before
 * the offsets. */
enum { tiff_entries = 15, tiff_header_bytes = 8 + 2 + tiff_entries * 12 + 4 + 16 };

static void tiff_entry(uint8_t **p, uint16_t tag, uint16_t type, int32_t count, int32_t value) {
    put16(*p, tag);
    put16(*p + 2, type);
    put32(*p + 4, (uint32_t)count);
    /* A SHORT value sits in the first two bytes of the value field. */
    if (type == 3) {
        put16(*p + 8, (uint16_t)value);
        put16(*p + 10, 0);
    } else {
        put32(*p + 8, (uint32_t)value);
    }
    *p += 12;
}

static int write_tiff_header(FILE *f, const int32_t extent[4], int32_t bytes_per_element,
                             int32_t type_code, int64_t elements) {
    int32_t channels, depth;
    if ((extent[3] == 0 || extent[3] == 1) && extent[2] < 5) {
        channels = extent[2];
        depth = 1;
    } else {
        channels = extent[3];
        depth = extent[2];
    }
    uint8_t h[tiff_header_bytes];
    memset(h, 0, sizeof h);
    h[0] = 'I';
    h[1] = 'I';
    put16(h + 2, 42);
    put32(h + 4, 8); /* the directory follows the header */
    put16(h + 8, tiff_entries);
    uint8_t *e = h + 10;
    const int32_t width_resolution_at = 10 + tiff_entries * 12 + 4;
    tiff_entry(&e, 256, 4, 1, extent[0]);                /* width */
    tiff_entry(&e, 257, 4, 1, extent[1]);                /* height */
    tiff_entry(&e, 258, 3, 1, bytes_per_element * 8);    /* bits per sample */
    tiff_entry(&e, 259, 3, 1, 1);                        /* no compression */
    tiff_entry(&e, 262, 3, 1, channels >= 3 ? 2 : 1);    /* RGB, or black is zero */
    tiff_entry(&e, 273, 4, channels, tiff_header_bytes); /* strip offsets */
    tiff_entry(&e, 277, 3, 1, channels);                 /* samples per pixel */
    tiff_entry(&e, 278, 4, 1, extent[1]);                /* rows per strip */
    tiff_entry(&e, 279, 4, channels,                     /* strip byte counts */
               channels == 1 ? (int32_t)(elements * bytes_per_element)
                             : tiff_header_bytes + channels * 4);
    tiff_entry(&e, 282, 5, 1, width_resolution_at);           /* x resolution */
    tiff_entry(&e, 283, 5, 1, width_resolution_at + 8);       /* y resolution */
    tiff_entry(&e, 284, 3, 1, 2);                             /* planar */
    tiff_entry(&e, 296, 3, 1, 1);                             /* no resolution unit */
    tiff_entry(&e, 339, 3, 1, tiff_sample_format[type_code]); /* sample format */
    tiff_entry(&e, 32997, 4, 1, depth);                       /* image depth */
    /* e now at the next directory's offset, 0; then the resolutions. */
    put32(h + width_resolution_at, 1);
    put32(h + width_resolution_at + 4, 1);
    put32(h + width_resolution_at + 8, 1);
    put32(h + width_resolution_at + 12, 1);
    if (fwrite(h, sizeof h, 1, f) != 1) return -3;
    if (channels > 1) {
        const int32_t plane = extent[0] * extent[1] * depth * bytes_per_element;
        uint8_t word[4];
        for (int32_t c = 0; c < channels; c++) {
            put32(word, (uint32_t)(tiff_header_bytes + channels * 8 + c * plane));
            if (fwrite(word, 4, 1, f) != 1) return -4;
        }
        for (int32_t c = 0; c < channels; c++) {
            put32(word, (uint32_t)plane);
            if (fwrite(word, 4, 1, f) != 1) return -5;
        }
    }
    return 0;
}

/* MATLAB level 5: a 128-byte text header (its last four bytes the version and the byte-order
 * mark), then one miMATRIX element: the array flags (class), the dimensions (at least two,
 * padded to an even count), the name (padded to 8 bytes) and the data (padded to 8 bytes). */
static int write_mat_header(FILE *f, const char *filename, const int32_t extent[4],
                            int32_t dimensions, int32_t type_code, uint64_t payload_bytes,
                            uint32_t *final_padding) {
    char text[128];
    memset(text, ' ', sizeof text);
    const char *says = "MATLAB 5.0 MAT-file, produced by Loom";
    memcpy(text, says, strlen(says));
    text[124] = 0;
    text[125] = 1;
    text[126] = 'I';
    text[127] = 'M';
    if (fwrite(text, sizeof text, 1, f) != 1) return -7;

    /* The array's name: the file's name without its folder and extension. */
    const char *end = filename + strlen(filename);
    while (end != filename && *end != '.')
        end--;
    const char *start = end;
    while (start != filename && start[-1] != '/')
        start--;
    char name[256];
    memset(name, 0, sizeof name);
    uint32_t name_bytes = (uint32_t)(end - start);
    if (name_bytes > 248) name_bytes = 248;
    memcpy(name, start, name_bytes);
    const uint32_t padded_name = (name_bytes + 7) & ~7u;

    *final_padding = (uint32_t)(7 - ((payload_bytes - 1) & 7));
    if ((payload_bytes + *final_padding) >> 32) return -6;
    const int32_t dims = dimensions < 2 ? 2 : dimensions;
    const int32_t padded_dims = (dims + 1) & ~1;
    uint32_t words[8] = {14,
                         40 + padded_dims * 4 + padded_name + (uint32_t)payload_bytes +
                             *final_padding,
                         6,
                         8,
                         matlab_class[type_code],
                         1,
                         5,
                         (uint32_t)(dims * 4)};
    uint8_t bytes[32];
    for (int i = 0; i < 8; i++)
        put32(bytes + 4 * i, words[i]);
    if (fwrite(bytes, sizeof bytes, 1, f) != 1) return -7;
    uint8_t extents[16];
    for (int i = 0; i < 4; i++)
        put32(extents + 4 * i, (uint32_t)extent[i]);
    if (fwrite(extents, (size_t)padded_dims * 4, 1, f) != 1) return -8;
    uint8_t name_header[8];
    put32(name_header, 1);
    put32(name_header + 4, name_bytes);
    if (fwrite(name_header, 8, 1, f) != 1) return -9;
    if (padded_name && fwrite(name, padded_name, 1, f) != 1) return -10;
    uint8_t data_header[8];
    put32(data_header, matlab_type[type_code]);
    put32(data_header + 4, (uint32_t)payload_bytes);
    if (fwrite(data_header, 8, 1, f) != 1) return -11;
    return 0;
}

int32_t loom_debug_to_file(void *user_context, const char *filename, int32_t type_code,
                           loom_buffer_t *buffer) {
    if (!buffer->host || buffer->dimensions > 4 || type_code < 0 || type_code > 9) return -1;
    int32_t result = loom_cuda_copy_to_host(user_context, buffer, filename);
    if (result != 0) return result;

    /* The shape, four dimensions: those missing have extent 1. */
    loom_dimension_t shape[4];
    int64_t elements = 1;
    for (int i = 0; i < 4; i++) {
        if (i < buffer->dimensions) {
            shape[i] = buffer->dim[i];
        } else {
            shape[i].min = 0;
            shape[i].extent = 1;
            shape[i].stride = 0;
        }
        elements *= shape[i].extent;
    }
    const int32_t extent[4] = {shape[0].extent, shape[1].extent, shape[2].extent, shape[3].extent};
    const int32_t bytes_per_element = (buffer->type.bits + 7) / 8;

    FILE *f = fopen(filename, "wb");
    if (!f) return -2;
    uint32_t final_padding = 0;
    if (has_suffix(filename, ".tiff") || has_suffix(filename, ".tif")) {
        result = write_tiff_header(f, extent, bytes_per_element, type_code, elements);
    } else if (has_suffix(filename, ".mat")) {
        result = write_mat_header(f, filename, extent, buffer->dimensions, type_code,
                                  (uint64_t)(elements * bytes_per_element), &final_padding);
    } else {
        uint8_t header[20];
        for (int i = 0; i < 4; i++)
            put32(header + 4 * i, (uint32_t)extent[i]);
        put32(header + 16, (uint32_t)type_code);
        result = fwrite(header, sizeof header, 1, f) == 1 ? 0 : -12;
    }

    /* The elements, dimension 0 fastest, gathered through the strides into a block. */
    uint8_t block[4096];
    size_t used = 0;
    for (int32_t i3 = 0; result == 0 && i3 < shape[3].extent; i3++) {
        for (int32_t i2 = 0; result == 0 && i2 < shape[2].extent; i2++) {
            for (int32_t i1 = 0; result == 0 && i1 < shape[1].extent; i1++) {
                for (int32_t i0 = 0; i0 < shape[0].extent; i0++) {
                    const int64_t offset =
                        (int64_t)i0 * shape[0].stride + (int64_t)i1 * shape[1].stride +
                        (int64_t)i2 * shape[2].stride + (int64_t)i3 * shape[3].stride;
                    memcpy(block + used, buffer->host + offset * bytes_per_element,
                           (size_t)bytes_per_element);
                    used += (size_t)bytes_per_element;
                    if (used + (size_t)bytes_per_element > sizeof block) {
                        if (fwrite(block, used, 1, f) != 1) result = -13;
                        used = 0;
                    }
                }
            }
        }
    }
    if (result == 0 && used && fwrite(block, used, 1, f) != 1) result = -14;
    const uint8_t zeros[8] = {0};
    if (result == 0 && final_padding && fwrite(zeros, final_padding, 1, f) != 1) result = -16;
    if (fclose(f) != 0 && result == 0) result = -17;
    return result;
}

int32_t loom_error_debug_to_file_failed(void *user_context, const char *func_name,
                                        const char *filename, int32_t code) {
    const char *why = code == -1   ? "the buffer has no host memory or more than four dimensions"
                      : code == -2 ? "the file could not be opened: check that its folder exists "
                                     "and can be written"
                      : code == -6 ? "a .mat file holds at most 4 GB"
                      : code > 0   ? "its device copy could not be brought to the host"
                                   : "writing the file failed: check the space left on its disk";
    char message[512];
    snprintf(message, sizeof message,
             "Func %s could not be written to the file %s by "
             "debug_to_file (error %d): %s.",
             func_name, filename, code, why);
    loom_error(user_context, message);
    return loom_code_generic_error;
}
