// A C++ translation unit against the shared libhyperlayout (CTest cxx_link):
// the umbrella header compiles cleanly as C++17 (-Wall -Wextra -pedantic
// -Werror) and declares C linkage; fields.h's generic names resolve as C++
// overloads (fields_cxx.h).
#include <hyperlayout.h>

#include "link_check.h"

static int fields_check()
{
    hl_fields_um um;
    hl_fields_em em;
    if (hl_fields_alloc(&um, 5, 3) != HL_OK || hl_fields_alloc(&em, 5, 3) != HL_OK)
        return 1;
    for (int64_t u = 0; u < 5; u++)
        for (int64_t p = 0; p < 3; p++)
            *hl_fields_at(um, u, p) = double(10 * u + p);
    int bad = hl_fields_convert(em, um, nullptr) != HL_OK ||
              *hl_fields_var(hl_fields_cptr(em, 1, 1), 4) != 42.0 ||
              hl_fields_order_of(em) != HL_FIELDS_EQUATION_MAJOR ||
              hl_fields_index(um, 4, 2) != 14;
    hl_fields_free(&um);
    hl_fields_free(&em);
    if (bad)
        std::fprintf(stderr, "cxx_link: fields.h's C++ overloads disagree\n");
    return bad;
}

int main()
{
    return link_check("cxx_link") | fields_check() |
           (std::strcmp(hl_version(), HYPERLAYOUT_VERSION_STRING) != 0);
}
