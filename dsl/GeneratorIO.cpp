#include "dsl/GeneratorIO.h"

#include <cctype>

#include "dsl/Generator.h"

namespace loom {
namespace Internal {

namespace {

/** `<io>.type`, `<io>.dim` and `<io>.size`: GeneratorParams that fill in what an Input's or
 * Output's declaration leaves out (Halide's synthetic GeneratorParams). */
class GeneratorIOParam : public GeneratorParamBase {
public:
    GeneratorIOParam(GeneratorIO &io, const std::string &field)
        : GeneratorParamBase(io.name() + "." + field), io(io), field(field) {}
    void set_from_string(const std::string &text) override {
        io.set_from_generator_param(field, text);
    }
    std::string value_string() const override { return io.generator_param_value(field); }

private:
    GeneratorIO &io;
    std::string field;
};

bool is_c_identifier(const std::string &name) {
    if (name.empty() || !(std::isalpha((unsigned char)name[0]))) return false;
    for (char c : name) {
        if (!std::isalnum((unsigned char)c) && c != '_') return false;
    }
    return true;
}

int parse_count(const std::string &param, const std::string &text) {
    return (int)parse_generator_value<unsigned>(param, text);
}

std::string types_string(const std::vector<Type> &types) {
    std::string s;
    for (const Type &t : types)
        s += (s.empty() ? "" : ",") + type_to_string(t);
    return s;
}

} // namespace

GeneratorIO::GeneratorIO(bool input, const std::string &name, IOKind kind, std::vector<Type> types,
                         int dims, int array_size, bool is_array)
    : input(input), io_name(name), io_kind(kind), types_(std::move(types)),
      dims_(dims < 0 ? -1 : dims), array_size_(array_size), array(is_array),
      declared_types(!types_.empty()), declared_dims(dims_ >= 0), declared_size(array_size >= 0),
      owner(generator_under_construction()) {
    user_assert(owner) << direction() << " " << name
                       << " must be a member of a Generator, or made by add_" << direction()
                       << " in configure()";
    user_assert(is_c_identifier(name))
        << direction() << " \"" << name
        << "\": a name starts with a letter and holds letters, digits and '_' (it names an "
           "argument of the C function)";
    user_assert(input || kind != IOKind::Scalar) << "Output " << name << " can't be a scalar";
    owner->register_io(this);
    // Inputs and Outputs added by configure() come after the GeneratorParams were set: their
    // declarations give everything.
    if (!owner->is_configuring()) {
        synthetic_params.push_back(std::make_unique<GeneratorIOParam>(*this, "type"));
        if (kind != IOKind::Scalar)
            synthetic_params.push_back(std::make_unique<GeneratorIOParam>(*this, "dim"));
        if (array) synthetic_params.push_back(std::make_unique<GeneratorIOParam>(*this, "size"));
    }
}

GeneratorIO::~GeneratorIO() = default;

size_t GeneratorIO::array_size() const {
    user_assert(array_size_defined())
        << direction() << " " << name() << " is an array of no size yet: set the GeneratorParam "
        << name() << ".size, call set_array_size() in configure()"
        << (input ? ", or give apply() a vector" : ", or call resize() in generate()");
    return (size_t)array_size_;
}

const std::vector<Type> &GeneratorIO::types() const {
    user_assert(types_defined())
        << direction() << " " << name() << " has no element type yet: it comes from the "
        << "GeneratorParam " << name() << ".type, which is not set. Pass " << name()
        << ".type=uint8 (or another type) to the generator, call set_type() in configure(), "
        << "or declare the " << direction() << " with its element type (" << direction()
        << "<Buffer<uint8_t, 2>>, say).";
    return types_;
}

Type GeneratorIO::type() const {
    const std::vector<Type> &t = types();
    user_assert(t.size() == 1) << direction() << " " << name() << " is a Tuple of " << t.size()
                               << " types (" << types_string(t) << "): read types()";
    return t[0];
}

int GeneratorIO::dims() const {
    user_assert(dims_defined())
        << direction() << " " << name() << " has no dimension count yet: set the GeneratorParam "
        << name() << ".dim, call set_dimensions() in configure(), or declare it with one";
    return dims_;
}

void GeneratorIO::set_type(const Type &t) {
    user_assert(owner->is_configuring())
        << direction() << " " << name() << ": set_type() may be called only in configure()";
    user_assert(!types_defined()) << direction() << " " << name() << " already has the type "
                                  << types_string(types_) << "; set_type() can't change it";
    types_ = {t};
}

void GeneratorIO::set_dimensions(int d) {
    user_assert(owner->is_configuring())
        << direction() << " " << name() << ": set_dimensions() may be called only in configure()";
    user_assert(!dims_defined()) << direction() << " " << name() << " already has " << dims_
                                 << " dimensions; set_dimensions() can't change them";
    user_assert(d >= 0) << direction() << " " << name() << ": set_dimensions(" << d
                        << "): a dimension count is at least 0";
    dims_ = d;
}

void GeneratorIO::set_array_size(int size) {
    user_assert(owner->is_configuring())
        << direction() << " " << name() << ": set_array_size() may be called only in configure()";
    user_assert(array) << direction() << " " << name() << " is not an array";
    user_assert(!array_size_defined())
        << direction() << " " << name() << " already has " << array_size_
        << " elements; set_array_size() can't change that";
    user_assert(size >= 0) << direction() << " " << name() << ": set_array_size(" << size << ")";
    array_size_ = size;
}

std::string GeneratorIO::array_name(size_t i) const {
    return array ? name() + "_" + std::to_string(i) : name();
}

void GeneratorIO::set_from_generator_param(const std::string &field, const std::string &text) {
    const std::string param = name() + "." + field;
    if (field == "type") {
        user_assert(!declared_types)
            << "GeneratorParam " << param << ": " << direction() << " " << name()
            << " is declared with the type " << types_string(types_) << ", which it can't change";
        std::vector<Type> parsed;
        size_t start = 0;
        while (true) {
            const size_t comma = text.find(',', start);
            parsed.push_back(parse_generator_type(param, text.substr(start, comma - start)));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        user_assert(parsed.size() == 1 || (!input && io_kind == IOKind::Function))
            << "GeneratorParam " << param << ": only an Output<Func> is a Tuple of several types";
        types_ = parsed;
    } else if (field == "dim") {
        user_assert(!declared_dims)
            << "GeneratorParam " << param << ": " << direction() << " " << name()
            << " is declared with " << dims_ << " dimensions, which it can't change";
        dims_ = parse_count(param, text);
    } else {
        user_assert(!declared_size)
            << "GeneratorParam " << param << ": " << direction() << " " << name()
            << " is declared with " << array_size_ << " elements, which it can't change";
        array_size_ = parse_count(param, text);
    }
}

std::string GeneratorIO::generator_param_value(const std::string &field) const {
    if (field == "type") return types_defined() ? types_string(types_) : "unset";
    if (field == "dim") return dims_defined() ? std::to_string(dims_) : "unset";
    return array_size_defined() ? std::to_string(array_size_) : "unset";
}

void GeneratorIO::make_parameters() {
    for (size_t i = 0; i < array_size(); i++) {
        if (io_kind == IOKind::Scalar) {
            Param<> p(type(), array_name(i));
            scalar_params_.push_back(p);
            exprs_.push_back(p);
        } else {
            ImageParam image(type(), dims(), array_name(i));
            image_params_.push_back(image);
            funcs_.push_back(Func(image));
        }
    }
    built = true;
}

void GeneratorIO::check_matching(const GeneratorInputValue &value) {
    const std::string what = "Input " + name();
    if (array) {
        user_assert(value.is_vector) << what << " is an array: apply() must give it a std::vector";
    } else {
        user_assert(!value.is_vector)
            << what << " is not an array: apply() must give it one value, not a std::vector";
    }
    const size_t count = value.funcs.size() + value.buffers.size() + value.exprs.size();
    if (array_size_defined()) {
        user_assert(count == (size_t)array_size_)
            << what << " has " << array_size_ << " elements; apply() gave " << count;
    } else {
        array_size_ = (int)count;
    }
    auto match_type = [&](const Type &t, const std::string &of) {
        if (!types_defined()) types_ = {t};
        user_assert(types_.size() == 1 && types_[0] == t)
            << what << " has the type " << types_string(types_) << "; apply() gave " << of
            << " of type " << type_to_string(t) << ". Cast it, or give another.";
    };
    auto match_dims = [&](int d, const std::string &of) {
        if (!dims_defined()) dims_ = d;
        user_assert(dims_ == d) << what << " has " << dims_ << " dimensions; apply() gave " << of
                                << " of " << d;
    };
    if (io_kind == IOKind::Scalar) {
        user_assert(value.funcs.empty() && value.buffers.empty())
            << what << " is a scalar: apply() must give it a number or an Expr";
        for (const Expr &e : value.exprs) {
            user_assert(e.defined()) << what << ": apply() gave an undefined Expr";
            match_type(e.type(), "an Expr");
        }
        return;
    }
    user_assert(value.exprs.empty())
        << what << " is a " << (io_kind == IOKind::Buffer ? "Buffer" : "Func")
        << ": apply() must give it a Func or a Buffer, not a number "
           "or an Expr";
    for (const Func &f : value.funcs) {
        user_assert(f.defined()) << what << ": apply() gave Func " << f.name()
                                 << ", which has no definition";
        user_assert(f.outputs() == 1)
            << what << ": apply() gave Func " << f.name() << ", a Tuple; an Input is one value";
        match_type(f.output_type(), "Func " + f.name());
        match_dims(f.dimensions(), "Func " + f.name());
    }
    for (const Buffer<> &b : value.buffers) {
        user_assert(b.defined()) << what << ": apply() gave an unallocated Buffer";
        match_type(b.type(), "Buffer " + b.name());
        match_dims(b.dimensions(), "Buffer " + b.name());
    }
}

void GeneratorIO::bind(const GeneratorInputValue &value) {
    check_matching(value);
    exprs_ = value.exprs;
    funcs_ = value.funcs;
    // Buffers of a Func Input are read through Funcs; a Buffer Input binds them itself.
    if (io_kind == IOKind::Function) {
        for (const Buffer<> &b : value.buffers)
            funcs_.push_back(Func(b));
    }
    built = true;
}

void GeneratorIO::make_funcs() {
    if (array_size_defined()) resize_outputs(array_size());
    built = true;
}

void GeneratorIO::resize_outputs(size_t size) {
    user_assert(!input && array) << direction() << " " << name()
                                 << ": resize() is for an array Output";
    user_assert(!declared_size || size == (size_t)array_size_)
        << "Output " << name() << " is declared with " << array_size_ << " elements; resize("
        << size << ") can't change that";
    array_size_ = (int)size;
    while (funcs_.size() < size)
        funcs_.push_back(Func(array_name(funcs_.size())));
    funcs_.resize(size);
}

std::vector<Argument> GeneratorIO::arguments() const {
    std::vector<Argument> args;
    for (const ImageParam &p : image_params_)
        args.push_back(Argument(p));
    for (const Param<> &p : scalar_params_)
        args.push_back(Argument(p));
    return args;
}

const std::vector<Func> &GeneratorIO::funcs() const {
    user_assert(built) << direction() << " " << name()
                       << " is read before generate(): its value exists only once the Generator "
                          "is being built (or apply() gave it)";
    return funcs_;
}

const std::vector<Expr> &GeneratorIO::exprs() const {
    user_assert(built) << direction() << " " << name()
                       << " is read before generate(): its value exists only once the Generator "
                          "is being built (or apply() gave it)";
    return exprs_;
}

} // namespace Internal
} // namespace loom
