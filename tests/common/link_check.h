// The body of the C++ and CUDA link tests (cxx_link.cpp, cuda_link.cu): the
// public headers, compiled as C++, must declare the library's functions with
// C linkage (a declaration outside extern "C" mangles the name and the link
// fails) and with the right types (the calls below must give the right
// values).  Host code only: it runs without a GPU.
#ifndef LINK_CHECK_H
#define LINK_CHECK_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <hyperlayout/base.h>
#include <hyperlayout/kindex.h>
#include <hyperlayout/layout.h>
#include <hyperlayout/neighbours.h>
#include <hyperlayout/npy.h>
#include <hyperlayout/plan.h>
#include <hyperlayout/shape.h>
#include <hyperlayout/wisdom.h>

#define LINK_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond);                  \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

// 0 when every check holds; 1 after printing the first that does not.
static int link_check(const char *who)
{
    // base.h: hl_strerror (once declared outside extern "C")
    const char *ok = hl_strerror(HL_OK);
    const char *syntax = hl_strerror(HL_ERR_SYNTAX);
    LINK_CHECK(ok != nullptr && syntax != nullptr && ok[0] != '\0');
    LINK_CHECK(std::strcmp(ok, syntax) != 0);

    // shape.h: notation prints the slowest dimension first
    hl_shape s;
    LINK_CHECK(hl_shape_parse(&s, "[3,4,int32]") == HL_OK);
    LINK_CHECK(s.rank == 2 && s.extent[0] == 4 && s.extent[1] == 3 && s.elem_size == 4);
    LINK_CHECK(hl_shape_count(&s) == 12);
    LINK_CHECK(hl_shape_parse(&s, "[3,") == HL_ERR_SYNTAX);
    LINK_CHECK(hl_shape_parse(&s, "[3,4,int32]") == HL_OK);

    // plan.h: a flip of dimension 0 reverses every row, out of place and in place
    std::vector<int32_t> in(12), out(12, -1);
    for (int i = 0; i < 12; i++)
        in[i] = i;
    hl_plan *p = nullptr;
    LINK_CHECK(hl_plan_flip(&p, &s, UINT64_C(1) << 0, nullptr) == HL_OK && p != nullptr);
    LINK_CHECK(hl_execute(p, in.data(), out.data()) == HL_OK);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++)
            LINK_CHECK(out[y * 4 + x] == in[y * 4 + (3 - x)]);
    LINK_CHECK(hl_execute(p, out.data(), out.data()) == HL_OK);
    LINK_CHECK(out == in);
    // overlapping but not equal buffers are refused
    LINK_CHECK(hl_execute(p, out.data(), out.data() + 1) == HL_ERR_OVERLAP);
    // hl_plan_compose takes the hl_plan * array callers have (flip twice: identity)
    hl_plan *steps[2] = {p, p}, *twice = nullptr;
    LINK_CHECK(hl_plan_compose(&twice, steps, 2, nullptr) == HL_OK);
    LINK_CHECK(hl_execute(twice, in.data(), out.data()) == HL_OK);
    LINK_CHECK(out == in);
    hl_plan_destroy(twice);
    hl_plan_destroy(p);

    // layout.h: the same flip as a layout
    auto standard = std::make_unique<hl_layout>();
    auto flipped = std::make_unique<hl_layout>();
    const int64_t extent[2] = {4, 3};
    LINK_CHECK(hl_layout_standard(standard.get(), 2, extent) == HL_OK);
    LINK_CHECK(hl_layout_flip(flipped.get(), standard.get(), UINT64_C(1) << 0) == HL_OK);
    const int64_t x[2] = {1, 2};
    int64_t offset = -1;
    LINK_CHECK(hl_layout_offset(flipped.get(), x, &offset) == HL_OK && offset == 2 * 4 + 2);

    // kindex.h (inline) and neighbours.h
    hl_kindex ki;
    LINK_CHECK(hl_kindex_init(&ki, 2, extent) == HL_OK);
    int64_t back[HL_MAX_RANK];
    hl_kindex_fromk(&ki, 9, back);
    LINK_CHECK(back[0] == 1 && back[1] == 2 && hl_kindex_tok(&ki, back) == 9);
    int64_t m = 0;
    LINK_CHECK(hl_neighbourhood_count(2, HL_VON_NEUMANN, 1, &m) == HL_OK && m == 4);
    std::vector<int64_t> offsets(static_cast<size_t>(m * 2)), nbr(static_cast<size_t>(m));
    LINK_CHECK(hl_neighbourhood_offsets(2, HL_VON_NEUMANN, 1, offsets.data(),
                                        static_cast<int64_t>(offsets.size())) == HL_OK);
    LINK_CHECK(hl_neighbours_of(&ki, 0, offsets.data(), m, HL_BOUNDARY_PERIODIC, nbr.data()) ==
               HL_OK);
    for (int64_t k : nbr)
        LINK_CHECK(k == 1 || k == 3 || k == 4 || k == 8);

    // npy.h: a header formatted and parsed back, in memory
    unsigned char header[256];
    size_t len = 0;
    LINK_CHECK(hl_npy_format_header(&s, header, sizeof header, &len) == HL_OK && len % 64 == 0);
    hl_npy_info info;
    LINK_CHECK(hl_npy_parse_header(header, len, &info) == HL_OK);
    LINK_CHECK(info.shape.rank == 2 && info.shape.extent[0] == 4 && info.shape.extent[1] == 3);
    LINK_CHECK(std::strcmp(info.descr, "<i4") == 0 && info.data_offset == static_cast<int64_t>(len));

    // wisdom.h: a malformed text is refused and changes nothing
    const std::int64_t entries = hl_wisdom_count();
    LINK_CHECK(hl_wisdom_import("not wisdom\n") == HL_ERR_SYNTAX);
    LINK_CHECK(hl_wisdom_count() == entries);

    std::printf("%s: the public headers link against libhyperlayout and compute right\n", who);
    return 0;
}

#endif
