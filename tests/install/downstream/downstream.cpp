/* downstream.c as C++17: the umbrella header, fields.h's generic names
 * included (C++ overloads), through an installed hyperlayout. */
#include <hyperlayout.h>
#include <cstdio>
#include <cstring>

int main()
{
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", HYPERLAYOUT_VERSION_MAJOR,
             HYPERLAYOUT_VERSION_MINOR, HYPERLAYOUT_VERSION_PATCH);
    if (strcmp(version, hl_version()) != 0) {
        fprintf(stderr, "headers say %s, library %s\n", version, hl_version());
        return 1;
    }
    hl_shape s;
    hl_plan *p = nullptr;
    char why[256];
    hl_status st = hl_shape_parse(&s, "[2,3,int32]");
    if (st == HL_OK)
        st = hl_plan_ops(&p, &s, "flip:0 shift:0,1", 0, nullptr, why, sizeof why);
    int in[6] = {0, 1, 2, 3, 4, 5}, out[6];
    if (st == HL_OK)
        st = hl_execute(p, in, out);
    hl_plan_destroy(p);
    if (st != HL_OK) {
        fprintf(stderr, "%s %s\n", hl_strerror(st), why);
        return 1;
    }
    /* rows {0,1,2} {3,4,5} flipped in dimension 0, then rolled one row */
    static const int want[6] = {5, 4, 3, 2, 1, 0};
    if (memcmp(out, want, sizeof want) != 0) {
        fprintf(stderr, "wrong result\n");
        return 1;
    }
    hl_fields f;
    if (hl_fields_alloc(&f, 4, 3) != HL_OK)
        return 1;
    *hl_fields_at(f, 1, 2) = 1.5;
    const double got = *hl_fields_var(hl_fields_cptr(f, 2, 0), 1);
    hl_fields_free(&f);
    if (got != 1.5)
        return 1;
    printf("hyperlayout %s, fields %s\n", hl_version(), HL_FIELDS_ORDER_NAME);
    return 0;
}
