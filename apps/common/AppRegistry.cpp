// The list of apps. Each app folder declares its factory in <name>.h; CMake defines
// LOOM_APP_<name> for every app folder it builds.
#include "apps/common/App.h"
#include "apps/common/AppCases.h"

#include <cstring>
#include <sstream>
#include <stdexcept>

#include "apps/common/AllApps.h"

namespace loom_apps {

const char *variant_name(Variant v) {
    switch (v) {
    case Variant::Hand:
        return "hand";
    case Variant::Unfused:
        return "unfused";
    case Variant::GPU:
        return "gpu";
    case Variant::Auto:
        return "auto";
    case Variant::Search:
        return "search";
    case Variant::Autotune:
        return "autotune";
    case Variant::GPUAuto:
        return "gpu-auto";
    case Variant::GPUAutotune:
        return "gpu-autotune";
    case Variant::Mullapudi2016:
        return "Mullapudi2016";
    case Variant::Adams2019:
        return "Adams2019";
    case Variant::Li2018:
        return "Li2018";
    }
    return "?";
}

std::vector<std::string> split_commas(const std::string &list) {
    std::vector<std::string> out;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');) {
        if (!item.empty()) out.push_back(item);
    }
    return out;
}

void scribble_outputs(App &app) {
    for (auto &out : app.outputs) {
        std::memset(out.raw_data(), 0xA5, out.number_of_elements() * out.type().bytes());
    }
}

const std::vector<std::pair<std::string, AppFactory>> &all_apps() {
    static const std::vector<std::pair<std::string, AppFactory>> apps = {
#ifdef LOOM_APP_blur
        {"blur", make_blur_app},
#endif
#ifdef LOOM_APP_unsharp
        {"unsharp", make_unsharp_app},
#endif
#ifdef LOOM_APP_harris
        {"harris", make_harris_app},
#endif
#ifdef LOOM_APP_bilateral_grid
        {"bilateral_grid", make_bilateral_grid_app},
#endif
#ifdef LOOM_APP_local_laplacian
        {"local_laplacian", make_local_laplacian_app},
#endif
#ifdef LOOM_APP_interpolate
        {"interpolate", make_interpolate_app},
#endif
#ifdef LOOM_APP_camera_pipe
        {"camera_pipe", make_camera_pipe_app},
#endif
#ifdef LOOM_APP_pointwise
        {"chain", make_chain_app},
        {"bias_relu", make_bias_relu_app},
#endif
#ifdef LOOM_APP_softmax
        {"softmax", make_softmax_app},
#endif
#ifdef LOOM_APP_layer_norm
        {"layer_norm", make_layer_norm_app},
#endif
#ifdef LOOM_APP_matmul
        {"matmul_1024", [] { return make_matmul_app(1024, false); }},
        {"matmul_2048", [] { return make_matmul_app(2048, false); }},
        {"matmul_bias_relu", [] { return make_matmul_app(1024, true); }},
#endif
#ifdef LOOM_APP_conv_relu
        {"conv_relu", make_conv_relu_app},
#endif
    };
    return apps;
}

std::unique_ptr<App> make_app(const std::string &name) {
    std::string known;
    for (const auto &[app_name, factory] : all_apps()) {
        if (app_name == name) return factory();
        known += (known.empty() ? "" : ", ") + app_name;
    }
    throw std::invalid_argument("no app named '" + name + "'; the apps are: " + known);
}

} // namespace loom_apps
