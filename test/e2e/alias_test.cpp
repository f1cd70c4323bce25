// Loads and stores carry alias information: a Func's own allocation never overlaps an input or
// an output, so LLVM may keep a tile of accumulators in registers across a reduction loop even
// though the tile's address has more uses than its escape analysis explores.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <sstream>
#include <vector>

#include "E2ETestUtil.h"

namespace {

using namespace loom;

const Target avx512("x86-64-linux-avx512-avx512_skylake");

struct TiledProduct {
    ImageParam a{Float(32), 2, "a"}, b{Float(32), 2, "b"};
    Func prod{"prod"}, out{"out"};

    // out = a * b with 32 x 8 register tiles: the update's k loop holds 16 vectors of sums and
    // is unrolled by 4, so the tile's address has some 150 uses (LLVM's escape analysis stops
    // at 100 and must then assume that a store to the tile may change a or b).
    explicit TiledProduct(int n) {
        Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
        RDom k(0, n, "k");
        RVar ko("ko"), ki("ki");
        prod(x, y) = 0.0f;
        prod(x, y) += a(k, y) * b(x, k);
        out(x, y) = prod(x, y);
        out.tile(x, y, xo, yo, xi, yi, 32, 8).vectorize(xi, 16).unroll(xi).unroll(yi);
        prod.compute_at(out, xo).vectorize(x, 16).unroll(x).unroll(y);
        prod.update()
            .split(k, ko, ki, 4)
            .reorder(x, y, ki, ko)
            .vectorize(x, 16)
            .unroll(x)
            .unroll(y)
            .unroll(ki);
    }
};

// The block name a label line defines (`name:` or `"name":`, then anything), or "".
std::string label_of(const std::string &line) {
    const size_t start = !line.empty() && line[0] == '"' ? 1 : 0;
    size_t end = start;
    while (end < line.size() && line[end] != ':' && line[end] != '"' && !std::isspace((unsigned char)line[end])) end++;
    if (end == start) return "";
    const size_t colon = end + (start == 1 && end < line.size() && line[end] == '"' ? 1 : 0);
    return colon < line.size() && line[colon] == ':' ? line.substr(start, end - start) : "";
}

// The body of the loop over the update's ko: from its header label (a block named
// prod.s1.k...ko...) to the first conditional branch back to it (its latch), as text. Plain
// string scanning: libstdc++'s std::regex recurses once per character it matches and overflows
// the stack on a module's worth of IR.
std::string k_loop_body(const std::string &ir) {
    std::vector<std::string> lines;
    std::istringstream in(ir);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    for (size_t i = 0; i < lines.size(); i++) {
        const std::string name = label_of(lines[i]);
        if (name.rfind("prod.s1.k", 0) != 0 || name.find("ko", 9) == std::string::npos) continue;
        std::string body;
        for (size_t j = i; j < lines.size(); j++) {
            body += lines[j] + "\n";
            const std::string &line = lines[j];
            const size_t br = line.find("br i1 ");
            if (br == std::string::npos) continue;
            for (const std::string &target : {"label %" + name, "label %\"" + name + "\""}) {
                const size_t at = line.find(target, br);
                const size_t after = at + target.size();
                if (at != std::string::npos &&
                    (after == line.size() || line[after] == ',' || std::isspace((unsigned char)line[after])))
                    return body;
            }
        }
        return "";
    }
    return "";
}

TEST(AliasInfo, TileOfSumsStaysInRegistersAcrossTheReduction) {
    TiledProduct p(64);
    std::string ir = Pipeline(p.out).llvm_ir(avx512);
    std::string body = k_loop_body(ir);
    ASSERT_FALSE(body.empty()) << "no loop over prod.s1.k.ko in\n" << ir;
    // Per k: 16 products and 16 sums, no store of the tile and no reload of it.
    EXPECT_THAT(body, ::testing::Not(::testing::HasSubstr("store <16 x float>"))) << body;
    EXPECT_THAT(body, ::testing::HasSubstr("fadd <16 x float>")) << body;
}

TEST(AliasInfo, TiledProductIsCorrect) {
    const int n = 64;
    TiledProduct p(n);
    Buffer<float> a(n, n), b(n, n);
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            a(x, y) = (float)((x * 3 + y * 7) % 11) - 5.0f;
            b(x, y) = (float)((x * 5 + y) % 13) * 0.5f;
        }
    p.a.set(a);
    p.b.set(b);
    Buffer<float> out = p.out.realize({n, n});
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            float sum = 0.0f;
            for (int k = 0; k < n; k++)
                sum += a(k, y) * b(x, k);
            ASSERT_EQ(out(x, y), sum) << "at " << x << ", " << y;
        }
}

} // namespace
