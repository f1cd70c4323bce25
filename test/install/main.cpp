// Uses an installed Loom through find_package(Loom) and <loom.h> only: defines a two-stage
// pipeline that reads an input buffer, JIT-compiles and runs it, and checks every output value.
#include <loom.h>

#include <cstdint>
#include <cstdio>
#include <exception>

int main() {
    using namespace loom;
    try {
        const int width = 16, height = 8;
        Buffer<int32_t> input(width, height);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) input(x, y) = x * 3 - y;
        }

        Var x("x"), y("y");
        Func scaled("scaled"), out("out");
        scaled(x, y) = input(x, y) * 2 + y;
        out(x, y) = scaled(x, y) + 1;

        Buffer<int32_t> result = out.realize({width, height});
        int bad = 0;
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int32_t want = (x * 3 - y) * 2 + y + 1;
                if (result(x, y) != want && bad++ < 5) {
                    std::printf("loom install check: out(%d, %d) = %d, expected %d\n", x, y,
                                result(x, y), want);
                }
            }
        }
        if (bad) {
            std::printf("loom install check: FAILED (%d wrong values)\n", bad);
            return 1;
        }
        std::printf("loom install check: OK (%dx%d pipeline compiled and run from the installed "
                    "package)\n",
                    width, height);
        return 0;
    } catch (const std::exception &e) {
        std::printf("loom install check: FAILED with an exception: %s\n", e.what());
        return 1;
    }
}
