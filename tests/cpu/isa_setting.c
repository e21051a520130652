/* The HL_ISA setting, read once per process, so each case is a process of
 * its own (tests/cpu/CMakeLists.txt sets HL_ISA for it):
 *
 *     isa_setting LEVEL   HL_ISA names a level this CPU has: plans get it,
 *                         the output is the reference's, hl_isa_force(NULL)
 *                         returns to it;
 *     isa_setting bad     HL_ISA names no usable level: HL_ERR_ISA from every
 *                         plan's creation, never another level in its place,
 *                         until hl_isa_force picks one.
 *
 * Exit 0 when all holds, 77 (CTest's skip) when the CPU lacks LEVEL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"
#include "hyperlayout/expert.h"

static int failures;

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "isa_setting: %s:%d: %s\n", __FILE__, __LINE__, #cond);                \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* A flip and transpose of [64,48,float32] planned and run: its status, and
 * whether the output is the reference's. */
static hl_status plan_and_check(int *right)
{
    hl_shape s;
    hl_status st = hl_shape_parse(&s, "[64,48,float32]");
    hl_plan *p = NULL;
    if (st == HL_OK)
        st = hl_plan_ops(&p, &s, "flip:0 permute:1,0", 0, NULL, NULL, 0);
    *right = 0;
    if (st != HL_OK)
        return st;
    float in[64 * 48], out[64 * 48];
    for (int i = 0; i < 64 * 48; i++)
        in[i] = (float)i;
    st = hl_execute(p, in, out);
    /* out[x1 + 64 x0'] with x0' = 47 - x0: in[(47 - x0) + 48 x1] */
    *right = st == HL_OK;
    for (int x1 = 0; x1 < 64 && *right; x1++)
        for (int x0 = 0; x0 < 48; x0++)
            if (out[x1 + 64 * x0] != in[(47 - x0) + 48 * x1])
                *right = 0;
    hl_plan_destroy(p);
    return st;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: isa_setting LEVEL|bad (with HL_ISA set)\n", stderr);
        return 2;
    }
    const char *env = getenv("HL_ISA");
    const char *value = NULL;
    const hl_status setting = hl_isa_setting(&value);
    int right;
    if (strcmp(argv[1], "bad") != 0) {
        if (setting != HL_OK && hl_isa_force(argv[1]) == HL_ERR_UNSUPPORTED) {
            printf("isa_setting: this CPU or build lacks %s: skipped\n", argv[1]);
            return 77;
        }
        EXPECT(setting == HL_OK);
        EXPECT(value && env && !strcmp(value, env));
        EXPECT(!strcmp(hl_isa_name(), argv[1]));
        EXPECT(hl_isa_usable() == HL_OK);
        EXPECT(plan_and_check(&right) == HL_OK && right);
        EXPECT(hl_isa_force("generic") == HL_OK && !strcmp(hl_isa_name(), "generic"));
        EXPECT(hl_isa_force(NULL) == HL_OK && !strcmp(hl_isa_name(), argv[1]));
    } else {
        EXPECT(setting == HL_ERR_ISA);
        EXPECT(value && env && !strncmp(value, env, 8));
        EXPECT(!strcmp(hl_isa_name(), "invalid") && hl_isa_usable() == HL_ERR_ISA);
        EXPECT(plan_and_check(&right) == HL_ERR_ISA);
        hl_shape s;
        hl_plan *p = NULL;
        EXPECT(hl_shape_parse(&s, "[8,8,float64]") == HL_OK);
        EXPECT(hl_plan_flip(&p, &s, 1, NULL) == HL_ERR_ISA && p == NULL);
        EXPECT(hl_isa_force("generic") == HL_OK && !strcmp(hl_isa_name(), "generic"));
        EXPECT(hl_isa_usable() == HL_OK);
        EXPECT(plan_and_check(&right) == HL_OK && right);
        EXPECT(hl_isa_force(NULL) == HL_OK && !strcmp(hl_isa_name(), "invalid"));
        EXPECT(plan_and_check(&right) == HL_ERR_ISA);
        EXPECT(strstr(hl_strerror(HL_ERR_ISA), "HL_ISA") != NULL);
    }
    if (failures)
        return 1;
    printf("isa_setting %s: HL_ISA=%s as documented\n", argv[1], env ? env : "");
    return 0;
}
