// Halide 14's image I/O header for Loom: Halide::Tools::load_image, save_image and the
// converting forms, from Loom's own tools/ImageIO.h.
#pragma once

#include "Halide.h"
#include "ImageIO.h"
