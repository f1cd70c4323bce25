// docs/HALIDE_API.md names, for each name of Halide 14's API that Loom has, the test that covers
// it as `test/<file>.cpp:Suite.Name`. A test moved to another file or renamed would leave the
// row pointing nowhere: every such reference must name a file that defines that test (TEST,
// TEST_F or a case macro that expands to one: the file holds the suite and the case's name).

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read_file(const std::string &path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(HalideApiDoc, EveryTestItNamesExistsInTheFileItNames) {
    const std::string root = LOOM_SOURCE_DIR;
    const std::string doc = read_file(root + "/docs/HALIDE_API.md");
    ASSERT_FALSE(doc.empty()) << "cannot read " << root << "/docs/HALIDE_API.md";
    const std::regex reference(R"(`(test/[\w/]+\.cpp):(\w+)\.(\w+)`)");
    int checked = 0;
    std::vector<std::string> dangling;
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), reference);
         it != std::sregex_iterator(); ++it) {
        const std::string file = (*it)[1], suite = (*it)[2], name = (*it)[3];
        const std::string source = read_file(root + "/" + file);
        const bool has_test =
            !source.empty() && std::regex_search(source, std::regex("\\b" + suite + "\\b")) &&
            std::regex_search(source,
                              std::regex("\\(\\s*(" + suite + "\\s*,\\s*)?" + name + "\\s*[,)]"));
        if (!has_test) dangling.push_back(it->str());
        checked++;
    }
    EXPECT_GT(checked, 100);
    for (const std::string &d : dangling)
        ADD_FAILURE() << "docs/HALIDE_API.md names " << d
                      << ", which that file does not define: point the row at the test's file";
}

} // namespace
