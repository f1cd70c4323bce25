// A Generator's Inputs and Outputs (see dsl/Generator.h), with Halide 14's kinds:
//
//   Input<Buffer<T, D>>   an image the C function takes (an ImageParam)
//   Input<Func>           the same, used as a Func; apply() may give it any Func
//   Input<T>, Input<Expr> a scalar (a Param; Input<Expr> of the type `<name>.type` gives)
//   Output<Buffer<T, D>>, Output<Func> (a Tuple where given several types), Output<T> (a Func
//                         of no dimension)
//
// and arrays of each (Input<Func[3]>, Output<Buffer<float, 2>[]>): elements named
// `<name>_0`, `<name>_1`, ... in the C function, the size fixed by the type, by the
// GeneratorParam `<name>.size`, by configure(), by the vector apply() gives, or, for an
// Output, by resize() in generate(). A type or dimension count the declaration leaves out
// comes from the GeneratorParams `<name>.type` (a comma-separated list for a Tuple) and
// `<name>.dim`, from set_type() / set_dimensions() in configure(), or from what apply() gives.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "dsl/Argument.h"
#include "dsl/Buffer.h"
#include "dsl/Func.h"
#include "dsl/GeneratorParam.h"
#include "dsl/ImageParam.h"
#include "dsl/Param.h"

namespace loom {

template <typename T> class Input;
template <typename T> class Output;

namespace Internal {

enum class IOKind { Buffer, Function, Scalar };

/** What apply() gives one Input: Funcs, Buffers or Exprs; a vector of them for an array. */
struct GeneratorInputValue {
    std::vector<Func> funcs;
    std::vector<Buffer<>> buffers;
    std::vector<Expr> exprs;
    bool is_vector = false;
};

inline GeneratorInputValue to_generator_input_value(const Func &f) { return {{f}, {}, {}}; }
template <typename T, int D> GeneratorInputValue to_generator_input_value(const Buffer<T, D> &b) {
    return {{}, {Buffer<>(b)}, {}};
}
inline GeneratorInputValue to_generator_input_value(const Expr &e) { return {{}, {}, {e}}; }
template <typename T, typename = std::enable_if_t<std::is_arithmetic<T>::value>>
GeneratorInputValue to_generator_input_value(T value) {
    return {{}, {}, {Internal::make_const(type_of<T>(), value)}};
}
template <typename T> GeneratorInputValue to_generator_input_value(const std::vector<T> &values) {
    GeneratorInputValue all;
    all.is_vector = true;
    for (const T &v : values) {
        GeneratorInputValue one = to_generator_input_value(v);
        all.funcs.insert(all.funcs.end(), one.funcs.begin(), one.funcs.end());
        all.buffers.insert(all.buffers.end(), one.buffers.begin(), one.buffers.end());
        all.exprs.insert(all.exprs.end(), one.exprs.begin(), one.exprs.end());
    }
    return all;
}

/** One Input or Output of a Generator: a single value or an array, each element a Func
 * (buffers, Funcs) or an Expr (scalars), of known or yet unknown types, dimensions and array
 * size. Registers itself, in declaration order, with the Generator being constructed (or the
 * one whose configure() is running), and gives that Generator GeneratorParams `<name>.type`,
 * `<name>.dim` and `<name>.size` for what its declaration leaves out.
 *
 * Invariant: once the Generator is built (its inputs made into parameters or bound by apply(),
 * its outputs made), funcs_ (Buffer, Function) or exprs_ (Scalar) holds one value per array
 * element, and types_ / dims_ are known. */
class GeneratorIO {
public:
    virtual ~GeneratorIO();
    GeneratorIO(const GeneratorIO &) = delete;
    GeneratorIO &operator=(const GeneratorIO &) = delete;

    const std::string &name() const { return io_name; }
    IOKind kind() const { return io_kind; }
    bool is_input() const { return input; }
    bool is_array() const { return array; }
    bool array_size_defined() const { return array_size_ >= 0; }
    /** The number of elements; throws naming `<name>.size` where nothing gave it. */
    size_t array_size() const;
    bool types_defined() const { return !types_.empty(); }
    /** The element types (several for a Tuple Output); throw naming `<name>.type` where
     * nothing gave them. */
    const std::vector<Type> &types() const;
    Type type() const;
    bool dims_defined() const { return dims_ >= 0; }
    int dims() const;
    /** Halide's: in configure(), for an Input or Output whose declaration leaves them out. */
    void set_type(const Type &t);
    void set_dimensions(int d);
    void set_array_size(int size);
    /** The name of element i in the C function: the Input's name, or `<name>_<i>` for an
     * array. */
    std::string array_name(size_t i) const;

    /** The GeneratorParams `<name>.type` / `.dim` / `.size` (field "type", "dim", "size"). */
    void set_from_generator_param(const std::string &field, const std::string &text);
    std::string generator_param_value(const std::string &field) const;

    // Called by GeneratorBase, in this order.
    /** An Input of a Generator built ahead of time: an ImageParam or Param per element, named
     * array_name(i), the C function's arguments. */
    virtual void make_parameters();
    /** An Input given a value by apply(): checked against what the declaration says. */
    virtual void bind(const GeneratorInputValue &value);
    /** An Output: a Func per element (where the size is known; resize() makes them later). */
    virtual void make_funcs();
    /** The C function's arguments for an Input: one per element. */
    std::vector<Argument> arguments() const;
    /** The Funcs of an Output once generate() ran. */
    virtual std::vector<Func> output_funcs() const { return funcs_; }

protected:
    GeneratorIO(bool input, const std::string &name, IOKind kind, std::vector<Type> types, int dims,
                int array_size, bool is_array);

    /** The values once built; throw naming the Input where it is read before generate(). */
    const std::vector<Func> &funcs() const;
    const std::vector<Expr> &exprs() const;
    /** For an Output array: the element count, settable in generate() (Halide's resize). */
    void resize_outputs(size_t size);

    std::vector<Func> funcs_;
    std::vector<Expr> exprs_;
    std::vector<ImageParam> image_params_; // a buffer or Func Input built ahead of time
    std::vector<Param<>> scalar_params_;   // a scalar Input built ahead of time
    bool built = false;

    const char *direction() const { return input ? "Input" : "Output"; }

private:
    bool input;
    std::string io_name;
    IOKind io_kind;
    std::vector<Type> types_;
    int dims_;
    int array_size_; // -1: not given yet
    bool array;
    // What the declaration gave, which its GeneratorParams may not change.
    bool declared_types, declared_dims, declared_size;
    std::vector<std::unique_ptr<GeneratorParamBase>> synthetic_params;
    GeneratorBase *owner;

    void check_matching(const GeneratorInputValue &value);
};

/** The elements of an array Input or Output as a range (Halide's begin() / end()). */
template <typename Element> class GeneratorIOElements {
public:
    explicit GeneratorIOElements(std::vector<Element> v) : elements(std::move(v)) {}
    typename std::vector<Element>::const_iterator begin() const { return elements.begin(); }
    typename std::vector<Element>::const_iterator end() const { return elements.end(); }

private:
    std::vector<Element> elements;
};

/** The array size a declared type gives: 1 for a single value, N for T[N], -1 (not given yet)
 * for T[]. */
template <typename T> constexpr int io_array_size() {
    return std::is_array<T>::value ? (std::extent<T>::value == 0 ? -1 : (int)std::extent<T>::value)
                                   : 1;
}

/** The element types a Buffer<T> Input or Output declares: none for void (given later). */
template <typename T> std::vector<Type> declared_types() {
    if constexpr (std::is_void<T>::value) {
        return {};
    } else {
        return {type_of<T>()};
    }
}

/** Input<Func>, Input<Func[N]>, Input<Func[]>: a Func per element, a buffer argument per
 * element when built ahead of time (read through the ImageParam's Func), any Func apply()
 * gives otherwise. */
template <typename T> class FuncInput : public GeneratorIO {
public:
    explicit FuncInput(const std::string &name) : FuncInput(name, std::vector<Type>{}, -1) {}
    FuncInput(const std::string &name, const Type &t) : FuncInput(name, std::vector<Type>{t}, -1) {}
    FuncInput(const std::string &name, int dims) : FuncInput(name, std::vector<Type>{}, dims) {}
    FuncInput(const std::string &name, const Type &t, int dims)
        : FuncInput(name, std::vector<Type>{t}, dims) {}

    /** A call of the (single) Func. */
    template <typename... Args> FuncRef operator()(const Args &...args) const {
        return single()(args...);
    }
    FuncRef operator()(const std::vector<Expr> &args) const { return single()(args); }
    operator Func() const { return single(); }
    const Func &operator[](size_t i) const { return funcs().at(i); }
    size_t size() const { return array_size(); }
    GeneratorIOElements<Func> elements() const { return GeneratorIOElements<Func>(funcs()); }
    typename std::vector<Func>::const_iterator begin() const { return funcs().begin(); }
    typename std::vector<Func>::const_iterator end() const { return funcs().end(); }
    int dimensions() const { return dims(); }
    Func in() { return single().in(); }
    Func in(const Func &consumer) { return single().in(consumer); }
    Func in(const std::vector<Func> &consumers) { return single().in(consumers); }
    /** The estimates auto-schedulers read, on the buffer behind each element. */
    FuncInput &set_estimates(const Internal::Region &estimates) {
        for (ImageParam &p : image_params_)
            p.set_estimates(estimates);
        return *this;
    }

private:
    FuncInput(const std::string &name, std::vector<Type> types, int dims)
        : GeneratorIO(true, name, IOKind::Function, std::move(types), dims, io_array_size<T>(),
                      std::is_array<T>::value) {}
    Func single() const {
        user_assert(!is_array()) << "Input " << name() << " is an array: index it (" << name()
                                 << "[i])";
        return funcs().at(0);
    }
};

/** Input<Buffer<T, D>[N]> (N > 0) and Input<Buffer<T, D>[]> (N == 0): an ImageParam per
 * element; apply() gives them Buffers. */
template <typename T, int D, int N> class BufferArrayInput : public GeneratorIO {
public:
    explicit BufferArrayInput(const std::string &name) : BufferArrayInput(name, D) {}
    BufferArrayInput(const std::string &name, int dimensions)
        : GeneratorIO(true, name, IOKind::Buffer, Internal::declared_types<T>(), dimensions,
                      N == 0 ? -1 : N, true) {
        user_assert(D == AnyDims || dimensions == AnyDims || D == dimensions)
            << "Input " << name << " is an array of Buffers of " << D
            << " dimensions, but is given " << dimensions
            << ". Give one count, in the type or the constructor.";
    }
    const ImageParam &operator[](size_t i) const { return images().at(i); }
    size_t size() const { return array_size(); }
    typename std::vector<ImageParam>::const_iterator begin() const { return images().begin(); }
    typename std::vector<ImageParam>::const_iterator end() const { return images().end(); }
    int dimensions() const { return dims(); }

    void bind(const GeneratorInputValue &value) override {
        user_assert(value.funcs.empty())
            << "Input " << name() << " is an array of Buffers: apply() must give it Buffers "
            << "(a std::vector of them); declare it Input<Func[]> to give it Funcs";
        GeneratorIO::bind(value);
        for (size_t i = 0; i < value.buffers.size(); i++) {
            image_params_.push_back(ImageParam(type(), dims(), array_name(i)));
            image_params_.back().set(value.buffers[i]);
            funcs_.push_back(Func(image_params_.back()));
        }
    }

private:
    const std::vector<ImageParam> &images() const {
        (void)funcs(); // checks the Input is built
        return image_params_;
    }
};

/** Input<T[N]> (N > 0) and Input<T[]> (N == 0), T arithmetic: a Param<T> per element, each
 * with the declaration's default and range. */
template <typename T, int N> class ScalarArrayInput : public GeneratorIO {
public:
    explicit ScalarArrayInput(const std::string &name)
        : GeneratorIO(true, name, IOKind::Scalar, {type_of<T>()}, 0, N == 0 ? -1 : N, true) {}
    ScalarArrayInput(const std::string &name, T value) : ScalarArrayInput(name) {
        default_value = value;
    }
    ScalarArrayInput(const std::string &name, T value, T min, T max)
        : ScalarArrayInput(name, value) {
        range[0] = Expr(min);
        range[1] = Expr(max);
    }
    Expr operator[](size_t i) const { return exprs().at(i); }
    size_t size() const { return array_size(); }
    typename std::vector<Expr>::const_iterator begin() const { return exprs().begin(); }
    typename std::vector<Expr>::const_iterator end() const { return exprs().end(); }
    Type type() const { return type_of<T>(); }

    void make_parameters() override {
        for (size_t i = 0; i < array_size(); i++) {
            Param<T> p(array_name(i), default_value, range[0], range[1]);
            scalar_params_.push_back(Param<>(p));
            exprs_.push_back(p);
        }
        built = true;
    }

private:
    T default_value = T();
    Expr range[2]; // undefined: no bound
};

/** Output<Buffer<T, D>>, Output<Func> and Output<T>: the Func the Generator defines (or
 * assigns) in generate(). */
class FuncOutput : public Func, public GeneratorIO {
public:
    FuncOutput(const std::string &name, IOKind kind, std::vector<Type> types, int dims)
        : Func(name), GeneratorIO(false, name, kind, std::move(types), dims, 1, false) {}
    const std::string &name() const { return GeneratorIO::name(); }
    /** The element type the declaration (or `<name>.type`) gives; for a Tuple, types(). */
    Type type() const { return GeneratorIO::type(); }
    int dimensions() const { return dims(); }
    /** The output buffer's dimension i, to constrain it (Halide's Output::dim). */
    OutputImageParam::Dim dim(int i) const { return output_buffer().dim(i); }
    std::vector<Func> output_funcs() const override { return {Func(*this)}; }
    void make_funcs() override { built = true; }
};

/** Output<Buffer<T, D>[N]>, Output<Func[N]>, Output<T[N]> (N == 0: []): a Func per element,
 * named `<name>_<i>`, made where the size is known and by resize() in generate(). */
class FuncArrayOutput : public GeneratorIO {
public:
    FuncArrayOutput(const std::string &name, IOKind kind, std::vector<Type> types, int dims,
                    int size)
        : GeneratorIO(false, name, kind, std::move(types), dims, size == 0 ? -1 : size, true) {}
    Func &operator[](size_t i) {
        (void)funcs();
        return funcs_.at(i);
    }
    const Func &operator[](size_t i) const { return funcs().at(i); }
    size_t size() const { return array_size(); }
    /** Halide's: the number of elements, where neither the type nor `<name>.size` gave it (or
     * the same number). */
    void resize(size_t size) { resize_outputs(size); }
    std::vector<Func>::iterator begin() {
        (void)funcs();
        return funcs_.begin();
    }
    std::vector<Func>::iterator end() { return funcs_.end(); }
    std::vector<Func>::const_iterator begin() const { return funcs().begin(); }
    std::vector<Func>::const_iterator end() const { return funcs_.end(); }
    int dimensions() const { return dims(); }
};

/** Halide's ways of declaring a Func Output's types and dimensions: neither, a type, a
 * dimension count, both, or a Tuple's types with or without a count. Base is made from
 * (name, types, dimensions), each left out as empty or -1. */
template <typename Base> class DeclaredTypesAndDims : public Base {
public:
    explicit DeclaredTypesAndDims(const std::string &name) : Base(name, std::vector<Type>{}, -1) {}
    DeclaredTypesAndDims(const std::string &name, const Type &t)
        : Base(name, std::vector<Type>{t}, -1) {}
    DeclaredTypesAndDims(const std::string &name, int dims)
        : Base(name, std::vector<Type>{}, dims) {}
    DeclaredTypesAndDims(const std::string &name, const Type &t, int dims)
        : Base(name, std::vector<Type>{t}, dims) {}
    DeclaredTypesAndDims(const std::string &name, const std::vector<Type> &t) : Base(name, t, -1) {}
    DeclaredTypesAndDims(const std::string &name, const std::vector<Type> &t, int dims)
        : Base(name, t, dims) {}
};

/** Output<Func>'s base: one Func. */
class SingleFuncOutput : public FuncOutput {
public:
    SingleFuncOutput(const std::string &name, const std::vector<Type> &types, int dims)
        : FuncOutput(name, IOKind::Function, types, dims) {}
};

/** Output<Func[N]>'s base (N == 0: Output<Func[]>). */
template <int N> class FuncArrayOfSize : public FuncArrayOutput {
public:
    FuncArrayOfSize(const std::string &name, const std::vector<Type> &types, int dims)
        : FuncArrayOutput(name, IOKind::Function, types, dims, N) {}
};

/** Output<Buffer<T, D>[N]> (N == 0: Output<Buffer<T, D>[]>): a Func per element. */
template <typename T, int D, int N> class BufferArrayOutput : public FuncArrayOutput {
public:
    explicit BufferArrayOutput(const std::string &name) : BufferArrayOutput(name, D) {}
    BufferArrayOutput(const std::string &name, int dims)
        : FuncArrayOutput(name, IOKind::Buffer, Internal::declared_types<T>(), dims, N) {}
};

} // namespace Internal

/** A buffer input: an ImageParam of element type T, with D dimensions where the type gives
 * them (Input<Buffer<uint8_t, 2>> input{"input"}, as Halide 14 writes it). Input<Buffer<>>
 * (T void) takes its type from `<name>.type`, and its dimensions from `<name>.dim` where
 * neither the type nor the constructor gives them. apply() gives it a Buffer (bound as the
 * image) or a Func (read in its place). */
template <typename T, int D>
class Input<Buffer<T, D>> : public ImageParam, public Internal::GeneratorIO {
public:
    explicit Input(const std::string &name) : Input(name, D) {}
    Input(const std::string &name, int dimensions)
        : Internal::GeneratorIO(true, name, Internal::IOKind::Buffer, Internal::declared_types<T>(),
                                dimensions, 1, false) {
        user_assert(D == AnyDims || dimensions == AnyDims || D == dimensions)
            << "Input " << name << " is a Buffer of " << D << " dimensions, but is given "
            << dimensions << ". Give one count, in the type or the constructor.";
        // Known now: made at once, so that the ImageParam can be constrained before generate().
        if (types_defined() && dims_defined()) make_image();
    }

    const std::string &name() const { return Internal::GeneratorIO::name(); }
    Type type() const { return Internal::GeneratorIO::type(); }
    int dimensions() const { return dims(); }

    /** A read of the image (or of the Func apply() gave in its place). */
    template <typename... Args> Expr operator()(const Args &...args) const {
        if (bound_func.defined()) return bound_func(args...);
        return ImageParam::operator()(args...);
    }
    Expr operator()(const std::vector<Expr> &args) const {
        if (bound_func.defined()) return bound_func(args);
        return ImageParam::operator()(args);
    }
    Expr operator()(const std::vector<Var> &args) const {
        return (*this)(std::vector<Expr>(args.begin(), args.end()));
    }
    operator Func() const {
        return bound_func.defined() ? bound_func : ImageParam::operator Func();
    }

    void make_parameters() override {
        if (!ImageParam::defined()) make_image();
        image_params_ = {*this};
        funcs_ = {ImageParam::operator Func()};
        built = true;
    }
    void bind(const Internal::GeneratorInputValue &value) override {
        Internal::GeneratorIO::bind(value);
        if (!value.buffers.empty()) {
            if (!ImageParam::defined()) make_image();
            ImageParam::set(value.buffers[0]);
            funcs_ = {ImageParam::operator Func()};
        } else {
            bound_func = value.funcs[0];
        }
    }

private:
    Func bound_func; // what apply() gave in place of the image
    void make_image() { ImageParam::operator=(ImageParam(type(), dims(), name())); }
};

template <typename T, int D, size_t N>
class Input<Buffer<T, D>[N]> : public Internal::BufferArrayInput<T, D, (int)N> {
public:
    using Internal::BufferArrayInput<T, D, (int)N>::BufferArrayInput;
};
template <typename T, int D>
class Input<Buffer<T, D>[]> : public Internal::BufferArrayInput<T, D, 0> {
public:
    using Internal::BufferArrayInput<T, D, 0>::BufferArrayInput;
};

template <> class Input<Func> : public Internal::FuncInput<Func> {
public:
    using Internal::FuncInput<Func>::FuncInput;
};
template <size_t N> class Input<Func[N]> : public Internal::FuncInput<Func[N]> {
public:
    using Internal::FuncInput<Func[N]>::FuncInput;
};
template <> class Input<Func[]> : public Internal::FuncInput<Func[]> {
public:
    using Internal::FuncInput<Func[]>::FuncInput;
};

/** Input<Expr>: a scalar whose type comes from `<name>.type` (or configure(), or apply()). */
template <> class Input<Expr> : public Internal::GeneratorIO {
public:
    explicit Input(const std::string &name)
        : Internal::GeneratorIO(true, name, Internal::IOKind::Scalar, {}, 0, 1, false) {}
    Input(const std::string &name, const Type &t)
        : Internal::GeneratorIO(true, name, Internal::IOKind::Scalar, {t}, 0, 1, false) {}
    operator Expr() const { return exprs().at(0); }
    /** The value auto-schedulers assume, on the Param behind it (built ahead of time). */
    void set_estimate(const Expr &value) {
        for (Param<> &p : scalar_params_)
            p.parameter()->scalar_estimate = value;
    }
};

template <typename T, size_t N> class Input<T[N]> : public Internal::ScalarArrayInput<T, (int)N> {
public:
    using Internal::ScalarArrayInput<T, (int)N>::ScalarArrayInput;
};
template <typename T> class Input<T[]> : public Internal::ScalarArrayInput<T, 0> {
public:
    using Internal::ScalarArrayInput<T, 0>::ScalarArrayInput;
};

/** A scalar input: a Param<T>, an argument of the C function; apply() gives it a value of
 * type T or an Expr of that type, read in its place. */
template <typename T> class Input : public Param<T>, public Internal::GeneratorIO {
    static_assert(std::is_arithmetic<T>::value, "Input<T> takes Buffer<T, D>, Func, Expr, an "
                                                "arithmetic type, or an array of one of those");

public:
    explicit Input(const std::string &name)
        : Param<T>(name), Internal::GeneratorIO(true, name, Internal::IOKind::Scalar,
                                                {type_of<T>()}, 0, 1, false) {}
    Input(const std::string &name, T value)
        : Param<T>(name, value), Internal::GeneratorIO(true, name, Internal::IOKind::Scalar,
                                                       {type_of<T>()}, 0, 1, false) {}
    /** With the range a run may pass (Param's min and max: a value outside fails the run). */
    Input(const std::string &name, T value, T min, T max)
        : Param<T>(name, value, Expr(min), Expr(max)), Internal::GeneratorIO(
                                                           true, name, Internal::IOKind::Scalar,
                                                           {type_of<T>()}, 0, 1, false) {}

    const std::string &name() const { return Param<T>::name(); }
    Type type() const { return Param<T>::type(); }
    operator Expr() const { return built ? exprs().at(0) : Param<T>::operator Expr(); }

    void make_parameters() override {
        scalar_params_ = {Param<>(*this)};
        exprs_ = {Param<T>::operator Expr()};
        built = true;
    }
};

/** A buffer output: a Func of element type T that generate() defines (or assigns), with D
 * dimensions where the type gives them. Output<Buffer<void, D>> (Halide's Output<Buffer<>>)
 * takes its element type from the GeneratorParam `<name>.type` (output.type=uint16 on the
 * driver's command line), which type() reads in generate(). */
template <typename T, int D> class Output<Buffer<T, D>> : public Internal::FuncOutput {
public:
    explicit Output(const std::string &name) : Output(name, D) {}
    Output(const std::string &name, int dimensions)
        : Internal::FuncOutput(name, Internal::IOKind::Buffer, Internal::declared_types<T>(),
                               dimensions) {
        user_assert(D == AnyDims || dimensions == AnyDims || D == dimensions)
            << "Output " << name << " is a Buffer of " << D << " dimensions, but is given "
            << dimensions << ". Give one count, in the type or the constructor.";
    }
    /** Makes the output the given Func (defined elsewhere in generate()). */
    Output &operator=(const Func &f) {
        Func::operator=(f);
        return *this;
    }
};

/** Output<Func>: a Func with the declared types (several: a Tuple) and dimensions, or those
 * `<name>.type` and `<name>.dim` give, or those of the Func generate() defines. */
template <> class Output<Func> : public Internal::DeclaredTypesAndDims<Internal::SingleFuncOutput> {
public:
    using Internal::DeclaredTypesAndDims<Internal::SingleFuncOutput>::DeclaredTypesAndDims;
    Output &operator=(const Func &f) {
        Func::operator=(f);
        return *this;
    }
};

/** Output<T>, T arithmetic: a Func of no dimension (`out() = ...`), a buffer of one element
 * in the C function. */
template <typename T> class Output : public Internal::FuncOutput {
    static_assert(std::is_arithmetic<T>::value, "Output<T> takes Buffer<T, D>, Func, an "
                                                "arithmetic type, or an array of one of those");

public:
    explicit Output(const std::string &name)
        : Internal::FuncOutput(name, Internal::IOKind::Function, {type_of<T>()}, 0) {}
    Output &operator=(const Func &f) {
        Func::operator=(f);
        return *this;
    }
};

template <typename T, int D, size_t N>
class Output<Buffer<T, D>[N]> : public Internal::BufferArrayOutput<T, D, (int)N> {
public:
    using Internal::BufferArrayOutput<T, D, (int)N>::BufferArrayOutput;
};
template <typename T, int D>
class Output<Buffer<T, D>[]> : public Internal::BufferArrayOutput<T, D, 0> {
public:
    using Internal::BufferArrayOutput<T, D, 0>::BufferArrayOutput;
};

/** Output<Func[N]> and Output<Func[]>: Funcs of the declared types and dimensions (or those
 * the GeneratorParams give). */
template <size_t N>
class Output<Func[N]> : public Internal::DeclaredTypesAndDims<Internal::FuncArrayOfSize<(int)N>> {
public:
    using Internal::DeclaredTypesAndDims<Internal::FuncArrayOfSize<(int)N>>::DeclaredTypesAndDims;
};
template <>
class Output<Func[]> : public Internal::DeclaredTypesAndDims<Internal::FuncArrayOfSize<0>> {
public:
    using Internal::DeclaredTypesAndDims<Internal::FuncArrayOfSize<0>>::DeclaredTypesAndDims;
};

/** Output<T[N]> and Output<T[]>, T arithmetic: Funcs of no dimension. */
template <typename T, size_t N> class Output<T[N]> : public Internal::FuncArrayOutput {
public:
    explicit Output(const std::string &name)
        : Internal::FuncArrayOutput(name, Internal::IOKind::Function, {type_of<T>()}, 0, (int)N) {}
};
template <typename T> class Output<T[]> : public Internal::FuncArrayOutput {
public:
    explicit Output(const std::string &name)
        : Internal::FuncArrayOutput(name, Internal::IOKind::Function, {type_of<T>()}, 0, 0) {}
};

} // namespace loom
