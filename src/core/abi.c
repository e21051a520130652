/* hyperlayout — the sizes, offsets and constants the library was built
 * with (version.h: hl_abi_value), for bindings that declare them again. */
#include <stddef.h>
#include <string.h>

#include "hyperlayout/ops.h"
#include "hyperlayout/plan.h"
#include "hyperlayout/shape.h"
#include "hyperlayout/version.h"

#define SIZE(T) {#T, (int64_t)sizeof(T)}
#define MEMBER(T, m) {#T "." #m, (int64_t)offsetof(T, m)}
#define CONSTANT(c) {#c, (int64_t)(c)}

static const struct {
    const char *name;
    int64_t value;
} abi[] = {
    SIZE(hl_shape),
    MEMBER(hl_shape, rank),
    MEMBER(hl_shape, extent),
    MEMBER(hl_shape, dtype),
    MEMBER(hl_shape, elem_size),
    SIZE(hl_plan_options),
    MEMBER(hl_plan_options, threads),
    MEMBER(hl_plan_options, reference),
    MEMBER(hl_plan_options, effort),
    MEMBER(hl_plan_options, range),
    MEMBER(hl_plan_options, scratch),
    MEMBER(hl_plan_options, scratch_bytes),
    CONSTANT(HL_MAX_RANK),
    CONSTANT(HL_OPS_NUMPY_AXES),
    CONSTANT(HL_ERR_DIM),
    CONSTANT(HL_ERR_UNSUPPORTED),
    CONSTANT(HL_ERR_IN_PLACE),
};

hl_status hl_abi_value(const char *name, int64_t *value)
{
    if (!name || !value)
        return HL_ERR_NULL;
    for (size_t i = 0; i < sizeof abi / sizeof *abi; i++)
        if (!strcmp(abi[i].name, name)) {
            *value = abi[i].value;
            return HL_OK;
        }
    return HL_ERR_ARG;
}
