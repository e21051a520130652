/* hyperlayout — the table of executors, and the describers' helper. */
#include <stdarg.h>
#include <stdio.h>

#include "executor.h"

const hl_executor *const hl_executors[] = {
    &hl_cpu_executor,
#ifdef HL_HAVE_CUDA
    &hl_cuda_executor,
#endif
    NULL,
};

size_t hl_appendf(char *buf, size_t size, size_t used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *at = buf && used < size ? buf + used : NULL;
    const int n = vsnprintf(at, at ? size - used : 0, fmt, ap);
    va_end(ap);
    return n > 0 ? (size_t)n : 0;
}
