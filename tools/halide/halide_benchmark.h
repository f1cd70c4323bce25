// Halide 14's benchmarking header for Loom: Halide::Tools::benchmark and its clock, from
// Loom's own tools/Benchmark.h.
#pragma once

#include "Benchmark.h"
#include "Halide.h"
