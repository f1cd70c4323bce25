// Halide 14's benchmarking header for Loom: Halide::Tools::benchmark and its clock, from
// Loom's own tools/Benchmark.h.
#pragma once

#include "Benchmark.h"

// Halide::Tools is loom::Tools. Only the alias, not Halide.h: a program that calls
// ahead-of-time pipelines includes this without Loom's compiler headers (lesson 21 of Halide's
// tutorial). The alias may be declared again by Halide.h or HalideBuffer.h.
namespace Halide = loom;
