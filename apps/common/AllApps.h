// The headers of every app CMake builds (it defines LOOM_APP_<name> for each app folder).
#pragma once

#ifdef LOOM_APP_blur
#include "apps/blur/blur.h"
#endif
#ifdef LOOM_APP_unsharp
#include "apps/unsharp/unsharp.h"
#endif
#ifdef LOOM_APP_harris
#include "apps/harris/harris.h"
#endif
#ifdef LOOM_APP_bilateral_grid
#include "apps/bilateral_grid/bilateral_grid.h"
#endif
#ifdef LOOM_APP_local_laplacian
#include "apps/local_laplacian/local_laplacian.h"
#endif
#ifdef LOOM_APP_interpolate
#include "apps/interpolate/interpolate.h"
#endif
#ifdef LOOM_APP_camera_pipe
#include "apps/camera_pipe/camera_pipe.h"
#endif
#ifdef LOOM_APP_pointwise
#include "apps/pointwise/pointwise.h"
#endif
#ifdef LOOM_APP_softmax
#include "apps/softmax/softmax.h"
#endif
#ifdef LOOM_APP_layer_norm
#include "apps/layer_norm/layer_norm.h"
#endif
#ifdef LOOM_APP_matmul
#include "apps/matmul/matmul.h"
#endif
#ifdef LOOM_APP_conv_relu
#include "apps/conv_relu/conv_relu.h"
#endif
