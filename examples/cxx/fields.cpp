// Fields in C++: one solver source for either storage order (fields_cxx.h).
//
// An unknown x property array (here 1000 unknowns, each with 3 equations of
// 2 components: 6 properties) is stored unknown-major (each unknown's 6
// values together) or equation-major (each property's 1000 values
// together).  In C++ the generic names hl_fields_at, hl_fields_cptr,
// hl_fields_var, ... are overloads chosen by the view's type, so the
// template below compiles for both, as cheap as indexing the raw pointer.
// The two copies are filled the same way, one is converted into the other
// order by the plan engine (hl_fields_convert), and the sums must agree.
#include <hyperlayout.h>  // in C++, fields.h's generic names come from fields_cxx.h

#include <cmath>
#include <cstdio>

namespace {

constexpr int64_t nunk = 1000, nprop = 6;

template <typename Fields> void fill(Fields f)
{
    for (int64_t u = 0; u < nunk; u++)
        for (int64_t p = 0; p < nprop; p++)
            *hl_fields_at(f, u, p) = std::sin(0.001 * u) + p;
}

// The sum of one component of one equation over every unknown, through a
// hoisted component pointer (Quinoa's cptr / var).
template <typename Fields> double component_sum(Fields f, int64_t comp, int64_t offset)
{
    auto c = hl_fields_cptr(f, comp, offset);
    double sum = 0;
    for (int64_t u = 0; u < nunk; u++)
        sum += *hl_fields_var(c, u);
    return sum;
}

bool ok(hl_status st, const char *what)
{
    if (st != HL_OK)
        std::fprintf(stderr, "fields: %s: %s\n", what, hl_strerror(st));
    return st == HL_OK;
}

}  // namespace

int main()
{
    hl_fields_um um{};
    hl_fields_em em{}, converted{};
    if (!ok(hl_fields_alloc(&um, nunk, nprop), "alloc") || !ok(hl_fields_alloc(&em, nunk, nprop), "alloc") ||
        !ok(hl_fields_alloc(&converted, nunk, nprop), "alloc"))
        return 1;
    fill(um);
    fill(em);
    // unknown-major -> equation-major, through a plan (a 2D transpose)
    if (!ok(hl_fields_convert(converted, um, nullptr), "convert"))
        return 1;
    int bad = 0;
    for (int64_t eq = 0; eq < 3; eq++)
        for (int64_t comp = 0; comp < 2; comp++) {
            const double a = component_sum(um, comp, 2 * eq), b = component_sum(em, comp, 2 * eq),
                         c = component_sum(converted, comp, 2 * eq);
            bad += a != b || a != c;
        }
    std::printf("%s: unknown-major and equation-major storage of %lld x %lld values give the same "
                "sums; the conversion by the plan engine too\n",
                bad ? "FAILED" : "ok", (long long)nunk, (long long)nprop);
    hl_fields_free(&um);
    hl_fields_free(&em);
    hl_fields_free(&converted);
    return bad ? 1 : 0;
}
