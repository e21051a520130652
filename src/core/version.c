/* hyperlayout — the version the library was built as. */
#include "hyperlayout/version.h"

const char *hl_version(void)
{
    return HYPERLAYOUT_VERSION_STRING;
}
