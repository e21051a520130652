/* hyperlayout — the table of executors, and the describers' helper.  The
 * only place in the planner that names an executor: adding one is a row
 * here (and its own source). */
#include <stdarg.h>
#include <stdio.h>

#include "executor.h"

/* The CPU executor (src/cpu/cpu.c): eager, host memory. */
extern const hl_executor hl_cpu_executor;

#ifdef HL_HAVE_CUDA
/* The CUDA executor (src/cuda/cuda.cu): not eager, prepared by
 * hl_plan_cuda_prepare. */
extern const hl_executor hl_cuda_executor;
#endif

const hl_executor *const hl_executors[] = {
    &hl_cpu_executor,
#ifdef HL_HAVE_CUDA
    &hl_cuda_executor,
#endif
    NULL,
};

const hl_executor *const hl_host_executor = &hl_cpu_executor;

size_t hl_appendf(char *buf, size_t size, size_t used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *at = buf && used < size ? buf + used : NULL;
    const int n = vsnprintf(at, at ? size - used : 0, fmt, ap);
    va_end(ap);
    return n > 0 ? (size_t)n : 0;
}
